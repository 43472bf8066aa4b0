package online_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/learn/internal/learntest"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/arow"
	"github.com/trellis-nlp/trellis/framework/learn/online"
	"github.com/trellis-nlp/trellis/framework/learn/pa"
	"github.com/trellis-nlp/trellis/framework/learn/perceptron"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// learners are the online learners, each made with a config block's
// values (epochs 7 for the resume test's cadence).
func learners(t *testing.T) map[string]func() learn.Learner {
	seven := 7
	return map[string]func() learn.Learner{
		"perceptron": func() learn.Learner {
			l := perceptron.New()
			l.Config().(*perceptron.Config).Epochs = &seven
			return l
		},
		"pa-0": func() learn.Learner { return paOf(0, &seven) },
		"pa-1": func() learn.Learner { return paOf(1, &seven) },
		"pa-2": func() learn.Learner { return paOf(2, &seven) },
		"arow": func() learn.Learner {
			l := arow.New()
			c := l.Config().(*arow.Config)
			c.Epochs, c.Gamma = &seven, new(0.5)
			return l
		},
	}
}

func paOf(typ int, epochs *int) learn.Learner {
	l := pa.New()
	c := l.Config().(*pa.Config)
	c.Epochs, c.Type, c.C = epochs, &typ, new(0.5)
	return l
}

// TestLearnsTransitions: every online rule resolves the ambiguous
// attribute through the transition 1→2, which a per-token classifier
// cannot (it tops out near 2/3 on those tokens).
func TestLearnsTransitions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	train, test := learntest.Synthetic(r, 300, 2, false), learntest.Synthetic(r, 100, 2, false)
	for name, mk := range learners(t) {
		t.Run(name, func(t *testing.T) {
			res, err := mk().Train(context.Background(), learntest.Problem(train, 1))
			if err != nil {
				t.Fatal(err)
			}
			if acc := learntest.Accuracy(res.Model, test); acc < 0.9 {
				t.Fatalf("accuracy %.3f, want >= 0.9", acc)
			}
		})
	}
}

// TestThreadIndependence: online training is sequential; the thread
// count must not change a bit.
func TestThreadIndependence(t *testing.T) {
	d := learntest.Synthetic(rand.New(rand.NewPCG(5, 6)), 100, 2, false)
	for name, mk := range learners(t) {
		t.Run(name, func(t *testing.T) {
			a, err := mk().Train(context.Background(), learntest.Problem(d, 1))
			if err != nil {
				t.Fatal(err)
			}
			b, err := mk().Train(context.Background(), learntest.Problem(d, 4))
			if err != nil {
				t.Fatal(err)
			}
			for f := range a.Model.W {
				if math.Float64bits(a.Model.W[f]) != math.Float64bits(b.Model.W[f]) {
					t.Fatalf("weight %d: %v with 1 thread, %v with 4", f, a.Model.W[f], b.Model.W[f])
				}
			}
		})
	}
}

// TestCheckpointResume: training interrupted after any checkpoint and
// resumed from it ends with the uninterrupted run's weights and info, to
// the bit, and replays the learning curve; with and without a dev set
// (best-epoch selection). AROW's checkpoints carry its variances.
func TestCheckpointResume(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	d, dev := learntest.Synthetic(r, 120, 2, false), learntest.Synthetic(r, 40, 2, false)
	for name, mk := range learners(t) {
		for _, withDev := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/dev=%v", name, withDev), func(t *testing.T) {
				saved := checkResume(t, mk, d, dev, withDev, 2)
				// A checkpoint of another problem is refused.
				p := learntest.Problem(learntest.Synthetic(r, 50, 2, false), 1)
				p.Checkpoints = &learn.Checkpoints{Every: 2, Resume: saved[0]}
				if _, err := mk().Train(context.Background(), p); err == nil || !strings.Contains(err.Error(), "does not fit") {
					t.Errorf("foreign checkpoint: %v", err)
				}
			})
		}
	}
}

// checkResume trains mk's learner (7 epochs) on d, with dev scoring when
// withDev, saving a checkpoint every few epochs, resumes from each
// checkpoint and checks that the weights, info and learning curve are the
// uninterrupted run's. It returns the checkpoints.
func checkResume(t *testing.T, mk func() learn.Learner, d, dev *feature.Dataset, withDev bool, every int) [][]byte {
	t.Helper()
	prob := func() *learn.Problem {
		p := learntest.Problem(d, 1)
		if withDev {
			p.Dev = dev
			p.DevScore = func(m *linear.Model) float64 { return learntest.Accuracy(m, dev) }
		}
		return p
	}
	var saved [][]byte
	p := prob()
	p.Checkpoints = &learn.Checkpoints{Every: every, Save: func(b []byte) error {
		saved = append(saved, append([]byte(nil), b...))
		return nil
	}}
	var fullCurve []learn.Point
	p.Observe = func(pt learn.Point) { fullCurve = append(fullCurve, pt) }
	want, err := mk().Train(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(saved) != (len(fullCurve)-1)/every {
		t.Fatalf("%d checkpoints for %d epochs every %d", len(saved), len(fullCurve), every)
	}
	for k, b := range saved {
		p := prob()
		p.Checkpoints = &learn.Checkpoints{Every: every, Save: func([]byte) error { return nil }, Resume: b}
		var curve []learn.Point
		p.Observe = func(pt learn.Point) { curve = append(curve, pt) }
		got, err := mk().Train(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		for f := range want.Model.W {
			if math.Float64bits(got.Model.W[f]) != math.Float64bits(want.Model.W[f]) {
				t.Fatalf("resumed from checkpoint %d: weight %d = %v, want %v", k, f, got.Model.W[f], want.Model.W[f])
			}
		}
		if fmt.Sprint(got.Info) != fmt.Sprint(want.Info) {
			t.Errorf("resumed from checkpoint %d: info %v, want %v", k, got.Info, want.Info)
		}
		if len(curve) != len(fullCurve) || curve[len(curve)-1].Loss != fullCurve[len(fullCurve)-1].Loss {
			t.Errorf("resumed from checkpoint %d: curve of %d points, want %d", k, len(curve), len(fullCurve))
		}
	}
	return saved
}

// sumRule is the perceptron's update through Delta: it checks Delta
// against AddState/AddTransitions, which add the same numbers one by one.
type sumRule struct{ viaDelta bool }

func (sumRule) Start(int)        {}
func (sumRule) State() []float64 { return nil }
func (r sumRule) Update(t *online.Trainer, tok0 int, gold, pred []int32, _ int) bool {
	if r.viaDelta {
		feats, vals := t.Delta(tok0, gold, pred)
		for k, f := range feats {
			t.Add(int(f), vals[k])
		}
		return len(feats) > 0
	}
	return perceptron.Rule{}.Update(t, tok0, gold, pred, 0)
}

// TestDelta: on binary attributes the summed Δ and the perceptron's
// one-by-one updates are the same integers, so training through either
// gives the same weights.
func TestDelta(t *testing.T) {
	d := learntest.Synthetic(rand.New(rand.NewPCG(9, 10)), 80, 2, false)
	cfg := &online.Config{Epochs: new(3)}
	a, err := online.Train(context.Background(), learntest.Problem(d, 1), "sum", cfg, sumRule{viaDelta: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := online.Train(context.Background(), learntest.Problem(d, 1), "sum", cfg, sumRule{})
	if err != nil {
		t.Fatal(err)
	}
	for f := range a.Model.W {
		if a.Model.W[f] != b.Model.W[f] {
			t.Fatalf("weight %d: %v through Delta, %v one by one", f, a.Model.W[f], b.Model.W[f])
		}
	}
	if a.Info["updates"].(int) == 0 {
		t.Fatal("no update was made; the comparison proves nothing")
	}
}

// TestAveraging checks the timestamp trick against the definition: the
// averaged weights are the mean of the weight vector after every
// sentence: the last weights of unshuffled runs on the first 1, 2, …, n
// sentences.
func TestAveraging(t *testing.T) {
	d := learntest.Synthetic(rand.New(rand.NewPCG(3, 4)), 30, 2, false)
	last := func(n int, average bool) []float64 {
		sub := feature.NewDataset()
		end := d.SentOff[n]
		sub.Attrs = d.Attrs[:d.TokenOff[end]]
		sub.TokenOff = d.TokenOff[:end+1]
		sub.Labels = d.Labels[:end]
		sub.SentOff = d.SentOff[:n+1]
		cfg := &online.Config{Epochs: new(1), Common: online.Common{Shuffle: new(false), Average: &average, Features: "all"}}
		res, err := online.Train(context.Background(), learntest.Problem(sub, 1), "avg", cfg, perceptron.Rule{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Model.W
	}
	n := d.NumSentences()
	sum := make([]float64, len(last(1, false)))
	for k := 1; k <= n; k++ {
		for f, w := range last(k, false) {
			sum[f] += w
		}
	}
	got := last(n, true)
	for f := range got {
		if want := sum[f] / float64(n); math.Abs(got[f]-want) > 1e-9 {
			t.Fatalf("averaged weight %d = %v, mean of the steps %v", f, got[f], want)
		}
	}
}

// TestUpdatesCountChanges: "updates" counts the sentences whose update
// changed the weights, not the mislabelled ones. Sentence 1 is a token
// without attributes in a model without transitions, labelled 1: every
// label scores 0, it decodes as 0 every epoch, and Δ is empty, so no rule
// can move (for PA ‖Δ‖² = 0, the step that has nothing to do). Sentence
// 2 ("a0", labelled 1) is wrong once, then learnt: one update in all.
func TestUpdatesCountChanges(t *testing.T) {
	d := feature.NewDataset()
	d.TokenOff = append(d.TokenOff, len(d.Attrs))
	d.Labels = append(d.Labels, 1)
	d.SentOff = append(d.SentOff, len(d.Labels))
	d.Attrs = append(d.Attrs, 0)
	d.TokenOff = append(d.TokenOff, len(d.Attrs))
	d.Labels = append(d.Labels, 1)
	d.SentOff = append(d.SentOff, len(d.Labels))
	for name, mk := range learners(t) {
		t.Run(name, func(t *testing.T) {
			p := &learn.Problem{Train: d, NumAttrs: 1, NumLabels: 2, Seed: 1, Threads: 1, Log: zerolog.Nop()}
			var losses []float64
			p.Observe = func(pt learn.Point) { losses = append(losses, pt.Loss) }
			res, err := mk().Train(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Info["updates"]; got != 1 {
				t.Errorf("updates = %v, want 1", got)
			}
			if len(losses) != 7 || losses[len(losses)-1] != 0.5 {
				t.Errorf("train errors per epoch %v, want 7 epochs ending at 0.5 (sentence 1 always wrong)", losses)
			}
		})
	}
}

// TestLearnsPairs: every online rule fits data that only input-conditioned
// transitions solve (learntest.Switching) when its switching attributes
// are pair features, and none does without them; the perceptron's
// one-by-one updates (AddPairs) and the summed Δ agree on pair features.
func TestLearnsPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	train, test := learntest.Switching(r, 200, 2), learntest.Switching(r, 100, 2)
	for name, mk := range learners(t) {
		t.Run(name, func(t *testing.T) {
			p := learntest.Problem(train, 1)
			p.Pairs = learntest.SwitchingPairs
			l := mk()
			if !learn.TrainsPairs(l) {
				t.Fatalf("%s does not say it trains pair features", name)
			}
			res, err := l.Train(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if acc := learntest.Accuracy(res.Model, test); acc < 0.99 {
				t.Fatalf("accuracy %.3f with pair features, want >= 0.99", acc)
			}
			plain, err := mk().Train(context.Background(), learntest.Problem(train, 1))
			if err != nil {
				t.Fatal(err)
			}
			if acc := learntest.Accuracy(plain.Model, test); acc > 0.8 {
				t.Fatalf("accuracy %.3f without pair features: the data does not need them", acc)
			}
		})
	}
	cfg := &online.Config{Epochs: new(3)}
	p := learntest.Problem(train, 1)
	p.Pairs = learntest.SwitchingPairs
	a, err := online.Train(context.Background(), p, "sum", cfg, sumRule{viaDelta: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := online.Train(context.Background(), p, "sum", cfg, sumRule{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Model.NumPairs() == 0 {
		t.Fatal("no pair features")
	}
	for f := range a.Model.W {
		if a.Model.W[f] != b.Model.W[f] {
			t.Fatalf("weight %d: %v through Delta, %v one by one", f, a.Model.W[f], b.Model.W[f])
		}
	}
}
