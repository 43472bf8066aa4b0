package tagger_test

import (
	"math"
	"testing"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// bruteMarginals enumerates every label sequence of s and returns
// P(y_i = y) normalized over them, exp(score) summed per (i, y).
func bruteMarginals(s *lattice.Scores) [][]float64 {
	n, l := s.N, s.L
	path := make([]int32, n)
	sums := make([][]float64, n)
	for i := range sums {
		sums[i] = make([]float64, l)
	}
	total := 0.0
	var walk func(i int)
	walk = func(i int) {
		if i == n {
			p := math.Exp(lattice.SequenceScore(s, path))
			total += p
			for j, y := range path {
				sums[j][y] += p
			}
			return
		}
		for y := 0; y < l; y++ {
			path[i] = int32(y)
			walk(i + 1)
		}
	}
	walk(0)
	for i := range sums {
		for y := range sums[i] {
			sums[i][y] /= total
		}
	}
	return sums
}

// TestMarginals: every token's marginals over every label match brute-force
// enumeration over the lattice Tag decodes, constrained and not; with
// labels the constraints cannot satisfy they are the unconstrained ones;
// each token's marginals sum to 1 and Tag's label is consistent with them
// (nonzero probability).
func TestMarginals(t *testing.T) {
	input := "the DT\nbird NN\nflew VBD\n\nzebra NN\n\na DT\nthe DT\ncat NN\nsat VBD\n"
	for _, tc := range []struct {
		name        string
		constrained bool
		labels      []string // nil: the tiny model's own
	}{
		{"unconstrained", false, nil},
		{"constrained", true, nil},
		{"all forbidden", true, []string{"I-A", "I-B", "I-C"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tinyModel(t)
			m.Constrained = tc.constrained
			if tc.labels != nil {
				m.Labels = tc.labels
			}
			reg, _ := builtin.Registries()
			tg, err := tagger.New(m, reg, tagger.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			f, err := corpus.New(m.Format)
			if err != nil {
				t.Fatal(err)
			}
			sents, err := readAll(f, input, corpus.ReadOptions{LabelOptional: true})
			if err != nil {
				t.Fatal(err)
			}
			got, err := tg.Marginals(sents)
			if err != nil {
				t.Fatal(err)
			}
			pred, err := tg.Tag(sents)
			if err != nil {
				t.Fatal(err)
			}
			ref := m
			if tc.labels != nil {
				// Every constrained path is forbidden: the reference is
				// the unconstrained lattice.
				c := *m
				c.Constrained = false
				ref = &c
			}
			lats := referenceLattice(t, ref, f, sents)
			if len(got) != len(sents) {
				t.Fatalf("%d sentences of marginals, want %d", len(got), len(sents))
			}
			for k := range sents {
				checkMarginals(t, k, got[k], bruteMarginals(&lats[k]), pred[k], m)
			}
		})
	}
}

func checkMarginals(t *testing.T, k int, got, want [][]float64, pred []string, m *model.Model) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("sentence %d: %d tokens of marginals, want %d", k, len(got), len(want))
	}
	for i := range want {
		sum := 0.0
		for y := range want[i] {
			if math.Abs(got[i][y]-want[i][y]) > 1e-9 {
				t.Errorf("sentence %d token %d label %s: marginal %v, brute force %v", k, i, m.Labels[y], got[i][y], want[i][y])
			}
			sum += got[i][y]
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("sentence %d token %d: marginals sum to %v", k, i, sum)
		}
		for y, name := range m.Labels {
			if name == pred[i] && !(got[i][y] > 0) {
				t.Errorf("sentence %d token %d: Tag's label %s has marginal %v", k, i, name, got[i][y])
			}
		}
	}
}
