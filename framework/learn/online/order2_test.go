package online_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/internal/learntest"
	"github.com/trellis-nlp/trellis/framework/learn/online"
)

// TestLearnsSecondOrder: every online rule fits data that only a
// second-order model solves (learntest.Periodic) with order 2, and none
// does at first order; the perceptron's one-by-one updates
// (AddTransitions) and the summed Δ agree on the trigram weights.
func TestLearnsSecondOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	train, test := learntest.Periodic(r, 200, 3), learntest.Periodic(r, 100, 3)
	for name, mk := range learners(t) {
		t.Run(name, func(t *testing.T) {
			p := learntest.Problem(train, 1)
			p.Order = 2
			l := mk()
			if !learn.TrainsSecondOrder(l) {
				t.Fatalf("%s does not say it trains second-order models", name)
			}
			res, err := l.Train(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Model.SecondOrder() {
				t.Fatal("the model is not second order")
			}
			if acc := learntest.Accuracy(res.Model, test); acc < 0.99 {
				t.Fatalf("accuracy %.3f at second order, want >= 0.99", acc)
			}
			plain, err := mk().Train(context.Background(), learntest.Problem(train, 1))
			if err != nil {
				t.Fatal(err)
			}
			if acc := learntest.Accuracy(plain.Model, test); acc > 0.85 {
				t.Fatalf("accuracy %.3f at first order: the data does not need second order", acc)
			}
		})
	}
	cfg := &online.Config{Epochs: new(3)}
	p := learntest.Problem(train, 1)
	p.Order = 2
	a, err := online.Train(context.Background(), p, "sum", cfg, sumRule{viaDelta: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := online.Train(context.Background(), p, "sum", cfg, sumRule{})
	if err != nil {
		t.Fatal(err)
	}
	nonzero := false
	for _, v := range a.Model.TrigramWeights(a.Model.W) {
		nonzero = nonzero || v != 0
	}
	if !nonzero {
		t.Fatal("no trigram weight changed")
	}
	for f := range a.Model.W {
		if a.Model.W[f] != b.Model.W[f] {
			t.Fatalf("weight %d: %v through Delta, %v one by one", f, a.Model.W[f], b.Model.W[f])
		}
	}
}
