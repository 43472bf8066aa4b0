package crf

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/trellis-nlp/trellis/framework/learn/internal/learntest"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// TestGradientPairs compares the analytic gradient of a CRF with
// input-conditioned transitions (pair features: attributes conjoined with
// the label bigram, labels = "bigram") with central finite differences:
// the per-position pair marginals minus the gold pairs, plus the L2 term.
func TestGradientPairs(t *testing.T) {
	for _, c := range []struct {
		name   string
		pairs  []bool // attributes marked for pair features
		values bool
		dense  bool
	}{
		{"ambiguous attribute", []bool{false, false, false, true, false}, false, false},
		{"bias attribute with values", []bool{false, false, false, false, true}, true, false},
		{"two attributes dense", []bool{false, true, false, true, false}, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(21, 22))
			d := learntest.Synthetic(r, 12, 1, c.values)
			var m *linear.Model
			if c.dense {
				m = linear.NewDense(learntest.NumAttrs, learntest.NumLabels, true)
			} else {
				m = linear.NewObserved(d, learntest.NumAttrs, learntest.NumLabels, true)
			}
			m = linear.WithPairs(m, d, c.pairs)
			if m.NumPairs() == 0 {
				t.Fatal("no pair features: the test would check nothing")
			}
			o := newObjective(m, d, allSentences(d), objectiveKind{withTransitions, globalNorm}, 0.3, 2)
			x := make([]float64, len(m.W))
			for i := range x {
				x[i] = r.NormFloat64()
			}
			grad := make([]float64, len(x))
			o.Evaluate(x, grad)
			scratch := make([]float64, len(x))
			const h = 1e-5
			for i := range x {
				old := x[i]
				x[i] = old + h
				fp := o.Evaluate(x, scratch)
				x[i] = old - h
				fm := o.Evaluate(x, scratch)
				x[i] = old
				num := (fp - fm) / (2 * h)
				if math.Abs(num-grad[i]) > 1e-5*math.Max(1, math.Abs(num)) {
					t.Fatalf("gradient[%d] (pair base %d) = %v, finite difference %v", i, m.PairBase(), grad[i], num)
				}
			}
		})
	}
}
