package crf

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/internal/learntest"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// TestGradientSecondOrder compares the analytic gradient of a
// second-order CRF (trigram weights, linear.WithTrigrams) with central
// finite differences, alone and with input-conditioned transitions (pair
// features) and real-valued attributes: the trigram expectations minus
// the gold trigrams, the label and bigram marginals summed from pair
// states, plus the L2 term.
func TestGradientSecondOrder(t *testing.T) {
	for _, c := range []struct {
		name   string
		pairs  []bool
		values bool
		dense  bool
	}{
		{"trigrams", nil, false, false},
		{"trigrams and pair features", []bool{false, false, false, true, false}, false, false},
		{"trigrams and pair features with values, dense", []bool{false, true, false, true, false}, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(31, 32))
			d := learntest.Synthetic(r, 12, 1, c.values)
			m := linear.NewObserved(d, learntest.NumAttrs, learntest.NumLabels, true)
			if c.dense {
				m = linear.NewDense(learntest.NumAttrs, learntest.NumLabels, true)
			}
			m = linear.WithPairs(m, d, c.pairs)
			m, err := linear.WithTrigrams(m, d)
			if err != nil {
				t.Fatal(err)
			}
			if m.NumTrigrams() == 0 || (c.pairs != nil && m.NumPairs() == 0) {
				t.Fatal("no trigram or pair features: the test would check nothing")
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
					t.Fatalf("gradient[%d] (trigram base %d, pair base %d) = %v, finite difference %v", i, m.TrigramBase(), m.PairBase(), grad[i], num)
				}
			}
		})
	}
}

// TestTrainSecondOrder trains on data only a second-order model solves
// (learntest.Periodic): with order 2 both optimizers fit it, without it
// the CRF cannot.
func TestTrainSecondOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	train, test := learntest.Periodic(r, 200, 3), learntest.Periodic(r, 100, 3)
	for _, c := range []struct {
		name     string
		cfg      Config
		order    int
		min, max float64
	}{
		{"lbfgs", Config{}, 2, 0.99, 1},
		{"sgd", Config{Training: Training{Algorithm: "sgd", MaxIterations: 20}}, 2, 0.99, 1},
		{"first order", Config{}, 1, 0, 0.85},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := &Learner{cfg: c.cfg}
			p := learntest.Problem(train, 2)
			p.Order = c.order
			res, err := l.Train(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if res.Model.SecondOrder() != (c.order == 2) {
				t.Fatalf("second order %v, want %v", res.Model.SecondOrder(), c.order == 2)
			}
			acc := learntest.Accuracy(res.Model, test)
			t.Logf("accuracy %.4f", acc)
			if acc < c.min || acc > c.max {
				t.Fatalf("accuracy %.4f, want in [%v, %v]", acc, c.min, c.max)
			}
		})
	}
}

// TestOthersRefuseSecondOrder: maxent, the MEMM and the latent CRF cannot
// train a second-order model and say so.
func TestOthersRefuseSecondOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	for _, l := range []*Learner{
		{form: PerToken}, {form: Local}, {cfg: Config{Latent: Latent{HiddenStates: 2}}},
	} {
		p := learntest.Problem(learntest.Periodic(r, 20, 3), 1)
		p.Order = 2
		if _, err := learn.NewRegistry().Train(context.Background(), l.form.String(), l, p); err == nil || !strings.Contains(err.Error(), "second-order") {
			t.Fatalf("%v: error %v, want a refusal of the second-order model", l.form, err)
		}
	}
}
