// prune_test.go: a pruned model's lattices have the unpruned one's bits.

package linear

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
)

// zeroSome sets about half of m's state and pair weights to ±0.
func zeroSome(r *rand.Rand, m *Model) {
	for f := range m.W[:m.NumFeatures()] {
		if r.IntN(2) == 0 {
			m.W[f] = 0
		}
	}
	pw := m.Pairs()
	for k := range pw {
		switch r.IntN(3) {
		case 0:
			pw[k] = 0
		case 1:
			pw[k] = math.Copysign(0, -1)
		}
	}
}

// withoutDead is d without the occurrences of the attributes keep drops,
// the others renumbered as Pruned renumbers them.
func withoutDead(d *feature.Dataset, keep []bool) *feature.Dataset {
	ids := make([]int32, len(keep))
	n := int32(0)
	for a, k := range keep {
		ids[a] = n
		if k {
			n++
		}
	}
	out := &feature.Dataset{TokenOff: []int{0}, SentOff: d.SentOff, Labels: d.Labels}
	if d.Values != nil {
		out.Values = []float64{}
	}
	for t := 0; t < d.NumTokens(); t++ {
		for k := d.TokenOff[t]; k < d.TokenOff[t+1]; k++ {
			if a := d.Attrs[k]; keep[a] {
				out.Attrs = append(out.Attrs, ids[a])
				if d.Values != nil {
					out.Values = append(out.Values, d.Values[k])
				}
			}
		}
		out.TokenOff = append(out.TokenOff, len(out.Attrs))
	}
	return out
}

// TestPrunedSameBits: a model without its zero weights and its dead
// attributes (on data without them) fills lattices of the same bits —
// dense, sparse and hot models, with and without values and pair
// features; with every pair weight zero, the pair features stay.
func TestPrunedSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for trial := range 60 {
		l, na := 1+r.IntN(6), 2+r.IntN(30)
		m := randomModel(r, na, l, trial%3 == 0)
		if trial%3 == 1 {
			m = hotModel(r, na, l)
		}
		if trial%2 == 0 {
			pair := make([]bool, na)
			for a := range pair {
				pair[a] = r.IntN(3) == 0
			}
			pair[0] = true
			m = withRandomPairs(r, m, pair)
			for i := range m.W {
				m.W[i] = rowValue(r)
			}
		}
		zeroSome(r, m)
		if trial%10 == 4 {
			clear(m.Pairs())
		}
		keep := make([]bool, na)
		for a := range keep {
			keep[a] = m.Live(a) || m.PairOff != nil && !m.AnyLivePair()
		}
		p := m.Pruned(keep)
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		if m.PairOff != nil && !m.AnyLivePair() && p.NumPairs() != m.NumPairs() {
			t.Fatalf("trial %d: %d pair features of weight 0 became %d", trial, m.NumPairs(), p.NumPairs())
		}
		d := randomSentences(r, na, 6, 5, trial%4 < 2)
		pd := withoutDead(d, keep)
		for s := 0; s < d.NumSentences(); s++ {
			var want, got lattice.Scores
			m.Lattice(&want, m.W, d, s)
			p.Lattice(&got, p.W, pd, s)
			if !sameBits(got.State, want.State) || !sameBits(got.TransAt, want.TransAt) ||
				!sameBits(got.Trans, want.Trans) || !sameBits(got.Stop, want.Stop) {
				t.Fatalf("trial %d, sentence %d: the pruned model's lattice differs", trial, s)
			}
			sc := p.NewScorer(p.W)
			p.LatticeWith(&got, sc, p.W, pd, s)
			if !sameBits(got.State, want.State) {
				t.Fatalf("trial %d, sentence %d: the packed scorer's states differ", trial, s)
			}
		}
	}
}
