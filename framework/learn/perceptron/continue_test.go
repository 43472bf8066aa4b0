package perceptron

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/internal/learntest"
	"github.com/trellis-nlp/trellis/framework/learn/online"
)

func ptr[T any](v T) *T { return &v }

// train trains a perceptron of cfg on d, continuing init when not nil.
func train(t *testing.T, cfg Config, p *learn.Problem, init *learn.Result) *learn.Result {
	t.Helper()
	if init != nil {
		p.Init = init.Model
	}
	l := &Learner{cfg: cfg}
	if d := l.cfg.Validate(); d.HasErrors() && !(init != nil && *cfg.Epochs == 0) {
		t.Fatal(d)
	}
	res, err := l.Train(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestContinue: continuing for zero epochs gives back the model; the
// plain perceptron without shuffling continued for m epochs after k is,
// to the bit, the one trained k+m epochs (its update depends only on the
// weights and the sentence); the averaged, shuffled one is not (the
// average restarts and the shuffle order restarts from the seed) but
// lands close.
func TestContinue(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	d, test := learntest.Synthetic(r, 300, 2, false), learntest.Synthetic(r, 100, 2, false)
	t.Run("zero epochs", func(t *testing.T) {
		cfg := Config{online.Config{Epochs: ptr(3)}}
		a := train(t, cfg, learntest.Problem(d, 1), nil)
		cfg.Epochs, cfg.InitModel = ptr(0), "a.model"
		b := train(t, cfg, learntest.Problem(d, 1), a)
		if !slices.Equal(a.Model.W, b.Model.W) {
			t.Error("zero epochs from a model changed its weights")
		}
	})
	t.Run("plain, unshuffled: exact", func(t *testing.T) {
		cfg := Config{online.Config{Epochs: ptr(2), Common: online.Common{Average: ptr(false), Shuffle: ptr(false)}}}
		k := train(t, cfg, learntest.Problem(d, 1), nil)
		cfg.Epochs = ptr(3)
		km := train(t, cfg, learntest.Problem(d, 1), k)
		cfg.Epochs = ptr(5)
		all := train(t, cfg, learntest.Problem(d, 1), nil)
		if !slices.Equal(km.Model.W, all.Model.W) {
			t.Error("2 epochs continued for 3 differ from 5 epochs")
		}
	})
	t.Run("averaged, shuffled: close", func(t *testing.T) {
		cfg := Config{online.Config{Epochs: ptr(2)}}
		k := train(t, cfg, learntest.Problem(d, 1), nil)
		cfg.Epochs = ptr(3)
		km := train(t, cfg, learntest.Problem(d, 1), k)
		cfg.Epochs = ptr(5)
		all := train(t, cfg, learntest.Problem(d, 1), nil)
		a, b := learntest.Accuracy(km.Model, test), learntest.Accuracy(all.Model, test)
		if a < b-0.02 || a < 0.9 {
			t.Errorf("continued accuracy %.3f, trained through %.3f", a, b)
		}
		if slices.Equal(km.Model.W, all.Model.W) {
			t.Error("averaged weights equal: the test does not test what it says")
		}
	})
}
