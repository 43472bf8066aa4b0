package maxent

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/learn"
)

// Labels B, I, O; attributes x, y, z.
const (
	lB, lI, lO = 0, 1, 2
	aX, aY, aZ = 0, 1, 2
)

// dataset builds sentences of (attribute, label) tokens.
func dataset(sents ...[][2]int32) *feature.Dataset {
	d := feature.NewDataset()
	for _, s := range sents {
		for _, tok := range s {
			d.Attrs = append(d.Attrs, tok[0])
			d.TokenOff = append(d.TokenOff, len(d.Attrs))
			d.Labels = append(d.Labels, tok[1])
		}
		d.SentOff = append(d.SentOff, len(d.Labels))
	}
	return d
}

// TestMaxent: with a transition template in the spec, maxent warns that
// it ignores it and trains a per-token classifier (no transitions, all
// transition weights zero). Decoding is per-token argmax: "z" alone is I;
// under a scheme that forbids I at the start, the best sequence the
// scheme allows (Viterbi with zero transitions), which is not I.
func TestMaxent(t *testing.T) {
	train := dataset(
		[][2]int32{{aX, lB}, {aZ, lI}},
		[][2]int32{{aX, lB}, {aZ, lI}},
		[][2]int32{{aY, lO}, {aY, lO}},
	)
	var log bytes.Buffer
	p := &learn.Problem{Train: train, NumAttrs: 3, NumLabels: 3, Transitions: true, Seed: 1, Threads: 1, Log: zerolog.New(&log)}
	res, err := New().Train(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Model
	if !strings.Contains(log.String(), "maxent ignores the spec's transition template") {
		t.Errorf("no warning about the transition template in:\n%s", log.String())
	}
	if m.Transitions || m.Local {
		t.Fatalf("maxent model: transitions %v, local %v; want a plain per-token classifier", m.Transitions, m.Local)
	}
	for f := m.NumFeatures(); f < len(m.W); f++ {
		if m.W[f] != 0 {
			t.Fatalf("transition/start/stop weight %d = %v, want 0", f, m.W[f])
		}
	}
	test := dataset([][2]int32{{aZ, -1}}, [][2]int32{{aX, -1}, {aZ, -1}})
	all := func(n int) []bool {
		b := make([]bool, n)
		for i := range b {
			b[i] = true
		}
		return b
	}
	noIStart := &lattice.Constraints{Trans: all(9), Start: all(3), Stop: all(3)}
	noIStart.Start[lI] = false
	for _, tc := range []struct {
		name string
		c    *lattice.Constraints
		sent int
		want []int32
	}{
		{"z unconstrained", nil, 0, []int32{lI}},
		{"x z unconstrained", nil, 1, []int32{lB, lI}},
		{"x z, I not first", noIStart, 1, []int32{lB, lI}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sc lattice.Scores
			m.NewScorer(m.W).Lattice(&sc, test, tc.sent)
			lattice.NewChain(m.Trans(), m.Start(), m.Stop(), tc.c).Attach(&sc)
			path := make([]int32, sc.N)
			lattice.NewWorkspace(3).Viterbi(path, &sc)
			if !slices.Equal(path, tc.want) {
				t.Fatalf("decoded %v, want %v", path, tc.want)
			}
		})
	}
	t.Run("z, I not first", func(t *testing.T) {
		var sc lattice.Scores
		m.NewScorer(m.W).Lattice(&sc, test, 0)
		lattice.NewChain(m.Trans(), m.Start(), m.Stop(), noIStart).Attach(&sc)
		path := make([]int32, 1)
		lattice.NewWorkspace(3).Viterbi(path, &sc)
		row := sc.State[:3]
		best := lB
		if row[lO] > row[lB] {
			best = lO
		}
		if path[0] != int32(best) {
			t.Fatalf("decoded %v, want the best label allowed first (%d; scores %v)", path, best, row)
		}
	})
}
