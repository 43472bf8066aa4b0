package crf

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/trellis-nlp/trellis/framework/learn/internal/learntest"

	"github.com/trellis-nlp/trellis/framework/learn"
)

// TestContinue: L-BFGS continued from a model it trained to convergence
// on the same data starts at that model's objective value (the weights
// are carried over; only the curvature history is lost) and ends no
// higher, close to it. SGD continued for one epoch moves further (its
// step size restarts at learning_rate: the schedule's position is not
// in a model file) but stays within a few percent. The equality is
// approximate: the optimizer state is not in a model file, so the
// continued run is a fresh minimization from the weights.
func TestContinue(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	train, test := learntest.Synthetic(r, 300, 1, false), learntest.Synthetic(r, 100, 1, false)
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"lbfgs", Config{}},
		{"sgd", Config{Training: Training{Algorithm: "sgd", MaxIterations: 20}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := &Learner{cfg: c.cfg}
			a, err := l.Train(context.Background(), learntest.Problem(train, 1))
			if err != nil {
				t.Fatal(err)
			}
			p := learntest.Problem(train, 1)
			p.Init = a.Model
			var first float64
			p.Observe = func(pt learn.Point) {
				if first == 0 {
					first = pt.Loss
				}
			}
			cfg := c.cfg
			if cfg.Algorithm == "sgd" {
				cfg.MaxIterations = 1
			}
			b, err := (&Learner{cfg: cfg}).Train(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			la, lb := a.Info["loss"].(float64), b.Info["loss"].(float64)
			if c.cfg.Algorithm != "sgd" && (lb > la+1e-9*math.Abs(la) || math.Abs(first-la) > 1e-6*math.Abs(la)) {
				t.Errorf("continued L-BFGS: first loss %v, final %v; the model's was %v", first, lb, la)
			}
			tol := 0.001
			if c.cfg.Algorithm == "sgd" {
				tol = 0.05 // 2.7% on this data
			}
			if math.Abs(lb-la) > tol*math.Abs(la) {
				t.Errorf("continued loss %v far from the model's %v", lb, la)
			}
			if aa, ab := learntest.Accuracy(a.Model, test), learntest.Accuracy(b.Model, test); math.Abs(aa-ab) > 0.01 {
				t.Errorf("accuracy %.4f continued, %.4f before", ab, aa)
			}
		})
	}
}

// TestContinuePrior: continued on other data, the CRF with prior =
// "init_model" ends nearer the model's weights than without (which ends
// at the new data's own optimum, wherever it started).
func TestContinuePrior(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 11))
	first, second := learntest.Synthetic(r, 200, 1, false), learntest.Synthetic(r, 50, 1, false)
	a, err := (&Learner{}).Train(context.Background(), learntest.Problem(first, 1))
	if err != nil {
		t.Fatal(err)
	}
	dist := map[string]float64{}
	for _, prior := range []string{"zero", "init_model"} {
		l := &Learner{cfg: Config{Training: Training{InitModel: "a.model", Prior: prior}}}
		if d := l.Validate(); d.HasErrors() {
			t.Fatal(d)
		}
		p := learntest.Problem(second, 1)
		p.Init = a.Model
		b, err := l.Train(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Model.W) != len(a.Model.W) {
			t.Fatalf("%d weights continued from %d: the synthetic data should share one structure", len(b.Model.W), len(a.Model.W))
		}
		for i, w := range b.Model.W {
			dist[prior] += (w - a.Model.W[i]) * (w - a.Model.W[i])
		}
	}
	if !(dist["init_model"] < dist["zero"]/2) {
		t.Errorf("squared distance to the model: %v with the prior, %v without", dist["init_model"], dist["zero"])
	}
	if d := (&Learner{cfg: Config{Training: Training{Prior: "init_model"}}}).Validate(); !d.HasErrors() {
		t.Error(`prior = "init_model" without init_model: no diagnostic`)
	}
}
