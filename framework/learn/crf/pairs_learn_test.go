package crf

import (
	"context"
	"testing"

	"math/rand/v2"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/internal/learntest"
)

// TestTrainPairs trains on data that only input-conditioned transitions
// solve (learntest.Switching): with the switching attributes as pair
// features every optimizer fits it; without them the CRF cannot.
func TestTrainPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	train, test := learntest.Switching(r, 200, 2), learntest.Switching(r, 100, 2)
	for _, c := range []struct {
		name  string
		cfg   Config
		pairs bool
		min   float64
		max   float64
	}{
		{"lbfgs", Config{}, true, 0.99, 1},
		{"sgd", Config{Training: Training{Algorithm: "sgd", MaxIterations: 20}}, true, 0.99, 1},
		{"without pairs", Config{}, false, 0, 0.8},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := &Learner{cfg: c.cfg}
			p := learntest.Problem(train, 2)
			if c.pairs {
				p.Pairs = learntest.SwitchingPairs
			}
			res, err := l.Train(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if c.pairs && res.Model.NumPairs() == 0 {
				t.Fatal("model has no pair features")
			}
			if acc := learntest.Accuracy(res.Model, test); acc < c.min || acc > c.max {
				t.Fatalf("accuracy %.4f, want in [%v, %v]", acc, c.min, c.max)
			}
		})
	}
}

// TestLocalFormsRefusePairs: maxent and the MEMM cannot train pair
// features and say so.
func TestLocalFormsRefusePairs(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	p := learntest.Problem(learntest.Switching(r, 10, 2), 1)
	p.Pairs = learntest.SwitchingPairs
	for _, form := range []Form{PerToken, Local} {
		l := NewForm(form)
		if l.TrainsPairs() {
			t.Fatalf("form %v claims to train pairs", form)
		}
		if _, err := learn.NewRegistry().Train(context.Background(), form.String(), l, p); err == nil {
			t.Fatalf("form %v trained pair features", form)
		}
	}
}
