package lattice

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// bruteLabelPath enumerates every state path of s (h states per label),
// sums the probabilities of each labelling and returns the most probable
// labelling with its probability, and the best state path of it.
func bruteLabelPath(s *Scores, h int) (labels []int32, prob float64, best []int32) {
	all := enumerate(s) // best first
	scores := make([]float64, len(all))
	for k, p := range all {
		scores[k] = p.score
	}
	logZ := LogSumExp(scores)
	type group struct {
		labels []int32
		prob   float64
		best   []int32
	}
	var groups []*group
	for _, p := range all {
		if math.IsInf(p.score, -1) {
			continue
		}
		lab := make([]int32, len(p.path))
		for i, st := range p.path {
			lab[i] = st / int32(h)
		}
		k := slices.IndexFunc(groups, func(g *group) bool { return slices.Equal(g.labels, lab) })
		if k < 0 {
			groups = append(groups, &group{labels: lab, best: p.path})
			k = len(groups) - 1
		}
		groups[k].prob += math.Exp(p.score - logZ)
	}
	top := groups[0]
	for _, g := range groups[1:] {
		if g.prob > top.prob {
			top = g
		}
	}
	return top.labels, top.prob, top.best
}

// TestLabelPathBruteForce: with room to enumerate every state path, and
// with the default width whenever the search certifies its answer, the
// labelling LabelPath returns is the most probable one by enumeration, and
// the state path the best one of that labelling; without hidden states it
// is Viterbi.
func TestLabelPathBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for trial := 0; trial < 300; trial++ {
		h := 2 + trial%2
		labels := 2 + r.IntN(2)
		n := 1 + r.IntN(4)
		s := randomScores(r, n, labels*h, 1.5, trial%3 == 0)
		ws := NewWorkspace(labels * h)
		if math.IsInf(ws.ForwardBackward(s), -1) {
			continue // every sequence forbidden
		}
		wantLabels, _, wantPath := bruteLabelPath(s, h)
		for _, width := range []int{0, 1 << 20} {
			d := NewDecoder(ws, DecodeLabelPath, 0)
			d.States, d.Width = h, width
			dst := make([]int32, n)
			score := d.Decode(dst, s)
			got := make([]int32, n)
			for i, st := range dst {
				got[i] = st / int32(h)
			}
			if width > 0 || slices.Equal(got, wantLabels) {
				if !slices.Equal(got, wantLabels) || !slices.Equal(dst, wantPath) {
					t.Fatalf("trial %d width %d: labels %v path %v, enumeration %v path %v", trial, width, got, dst, wantLabels, wantPath)
				}
				if score != SequenceScore(s, dst) {
					t.Fatalf("trial %d: score %v, the path's %v", trial, score, SequenceScore(s, dst))
				}
			}
		}
		plain := NewDecoder(ws, DecodeLabelPath, 0)
		dst, vit := make([]int32, n), make([]int32, n)
		if plain.Decode(dst, s) != ws.Viterbi(vit, s) || !slices.Equal(dst, vit) {
			t.Fatalf("trial %d: without hidden states LabelPath %v is not Viterbi %v", trial, dst, vit)
		}
	}
}

// TestLabelPathBeatsViterbi: a lattice where the best state path's
// labelling is not the most probable one — label 0 has one strong state
// path, label 1 two slightly weaker ones that add up to more.
func TestLabelPathBeatsViterbi(t *testing.T) {
	s := &Scores{N: 1, L: 4, State: []float64{1, math.Inf(-1), 0.8, 0.8}, Trans: make([]float64, 16), Start: make([]float64, 4), Stop: make([]float64, 4)}
	ws := NewWorkspace(4)
	dst := make([]int32, 1)
	ws.Viterbi(dst, s)
	if dst[0] != 0 {
		t.Fatalf("Viterbi picked state %d", dst[0])
	}
	d := NewDecoder(ws, DecodeLabelPath, 0)
	d.States = 2
	if d.Decode(dst, s); dst[0]/2 != 1 {
		t.Fatalf("LabelPath picked state %d (label %d), want label 1", dst[0], dst[0]/2)
	}
}
