package online_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/arow"
	"github.com/trellis-nlp/trellis/framework/learn/internal/learntest"
	"github.com/trellis-nlp/trellis/framework/learn/online"
	"github.com/trellis-nlp/trellis/framework/learn/pa"
	"github.com/trellis-nlp/trellis/framework/learn/perceptron"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// rules are the online learners' update rules, fresh each call.
func rules() map[string]func() online.Rule {
	return map[string]func() online.Rule{
		"perceptron": func() online.Rule { return perceptron.Rule{} },
		"pa-0":       func() online.Rule { return &pa.Rule{Type: 0, C: 0.5, ErrorSensitive: true} },
		"pa-1":       func() online.Rule { return &pa.Rule{Type: 1, C: 0.5, ErrorSensitive: true} },
		"pa-2":       func() online.Rule { return &pa.Rule{Type: 2, C: 0.5} },
		"arow":       func() online.Rule { return &arow.Rule{Variance: 1, Gamma: 0.5} },
	}
}

// mixedLearners are the online learners of learners(t) with shards and
// mix set.
func mixedLearners(t *testing.T, shards int, mix string) map[string]func() learn.Learner {
	out := map[string]func() learn.Learner{}
	for name, mk := range learners(t) {
		out[name] = func() learn.Learner {
			l := mk()
			c := l.Config()
			switch c := c.(type) {
			case *perceptron.Config:
				c.Shards, c.Mix = shards, mix
			case *pa.Config:
				c.Shards, c.Mix = shards, mix
			case *arow.Config:
				c.Shards, c.Mix = shards, mix
			default:
				t.Fatalf("%T", c)
			}
			return l
		}
	}
	return out
}

func sameBits(t *testing.T, what string, a, b []float64) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d weights, %d", what, len(a), len(b))
	}
	for f := range a {
		if math.Float64bits(a[f]) != math.Float64bits(b[f]) {
			t.Fatalf("%s: weight %d = %v, want %v", what, f, a[f], b[f])
		}
	}
}

// TestOneShardIsSerial: mixing one shard is the serial learner to the
// bit — weights, updates, curve — for every rule (AROW's variances go
// through the mix), averaged or not, shuffled or not, with a dev set
// choosing the best epoch or without.
func TestOneShardIsSerial(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	d, dev := learntest.Synthetic(r, 150, 2, true), learntest.Synthetic(r, 40, 2, false)
	for name, mk := range rules() {
		for _, mix := range []string{"uniform", "mistakes"} {
			for _, flags := range [][3]bool{{true, true, false}, {false, true, true}, {true, false, true}} {
				average, shuffle, withDev := flags[0], flags[1], flags[2]
				t.Run(fmt.Sprintf("%s/%s/avg=%v,shuffle=%v,dev=%v", name, mix, average, shuffle, withDev), func(t *testing.T) {
					run := func(train func(context.Context, *learn.Problem, string, *online.Config, online.Rule) (*learn.Result, error)) (*learn.Result, []learn.Point) {
						p := learntest.Problem(d, 1)
						if withDev {
							p.Dev = dev
							p.DevScore = func(m *linear.Model) float64 { return learntest.Accuracy(m, dev) }
						}
						var curve []learn.Point
						p.Observe = func(pt learn.Point) { curve = append(curve, pt) }
						cfg := &online.Config{Epochs: new(4), Common: online.Common{Average: &average, Shuffle: &shuffle}, Shards: 1, Mix: mix}
						res, err := train(context.Background(), p, "x", cfg, mk())
						if err != nil {
							t.Fatal(err)
						}
						return res, curve
					}
					serial, sc := run(online.Train)
					mixed, mc := run(online.TrainMixed)
					sameBits(t, "one shard", mixed.Model.W, serial.Model.W)
					if mixed.Info["updates"] != serial.Info["updates"] || mixed.Info["best_epoch"] != serial.Info["best_epoch"] {
						t.Errorf("info %v, serial %v", mixed.Info, serial.Info)
					}
					for k := range sc {
						if mc[k].Loss != sc[k].Loss || mc[k].DevScore != sc[k].DevScore {
							t.Errorf("epoch %d: %+v, serial %+v", k+1, mc[k], sc[k])
						}
					}
				})
			}
		}
	}
}

// TestMixedThreadIndependence: the shards' reduction order is fixed, so
// the bytes do not depend on Problem.Threads (1, 2, 3 and 8 replicas for
// 5 shards: one wave, several, a last wave short).
func TestMixedThreadIndependence(t *testing.T) {
	d := learntest.Synthetic(rand.New(rand.NewPCG(5, 6)), 100, 2, false)
	for _, mix := range []string{"uniform", "mistakes"} {
		for name, mk := range mixedLearners(t, 5, mix) {
			t.Run(name+"/"+mix, func(t *testing.T) {
				var want *learn.Result
				for _, threads := range []int{1, 2, 3, 8} {
					got, err := mk().Train(context.Background(), learntest.Problem(d, threads))
					if err != nil {
						t.Fatal(err)
					}
					if want == nil {
						want = got
						continue
					}
					sameBits(t, fmt.Sprintf("%d threads", threads), got.Model.W, want.Model.W)
					if fmt.Sprint(got.Info) != fmt.Sprint(want.Info) {
						t.Errorf("%d threads: info %v, want %v", threads, got.Info, want.Info)
					}
				}
				if want.Info["shards"] != 5 || want.Info["mix"] != mix {
					t.Errorf("info %v", want.Info)
				}
			})
		}
	}
}

// TestMixedLearns: every rule mixed over 4 shards still resolves the
// transition the synthetic data needs; the mix changes the model.
func TestMixedLearns(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	train, test := learntest.Synthetic(r, 300, 2, false), learntest.Synthetic(r, 100, 2, false)
	serial := learners(t)
	for name, mk := range mixedLearners(t, 4, "mistakes") {
		t.Run(name, func(t *testing.T) {
			res, err := mk().Train(context.Background(), learntest.Problem(train, 2))
			if err != nil {
				t.Fatal(err)
			}
			if acc := learntest.Accuracy(res.Model, test); acc < 0.9 {
				t.Fatalf("accuracy %.3f, want >= 0.9", acc)
			}
			s, err := serial[name]().Train(context.Background(), learntest.Problem(train, 2))
			if err != nil {
				t.Fatal(err)
			}
			if slices.Equal(s.Model.W, res.Model.W) {
				t.Error("4 shards gave the serial weights: the mix did nothing")
			}
		})
	}
}

// TestMixedAveraging checks one mixed epoch against the definitions on
// two shards (sentences dealt: even ones, odd ones; unshuffled): each
// shard is the serial learner on its own sentences, the mixed weights
// are the mean of their last weights, and the averaged weights the mean
// of every weight vector either shard held after a sentence — the serial
// averages of the shards weighted by their sentences.
func TestMixedAveraging(t *testing.T) {
	d := learntest.Synthetic(rand.New(rand.NewPCG(3, 4)), 31, 2, false)
	var even, odd []int
	for s := 0; s < d.NumSentences(); s++ {
		if s%2 == 0 {
			even = append(even, s)
		} else {
			odd = append(odd, s)
		}
	}
	train := func(d *feature.Dataset, shards int, average bool) []float64 {
		cfg := &online.Config{Epochs: new(1), Common: online.Common{Shuffle: new(false), Average: &average, Features: "all"}, Shards: shards}
		res, err := online.Train(context.Background(), learntest.Problem(d, 1), "avg", cfg, perceptron.Rule{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Model.W
	}
	n0, n1 := float64(len(even)), float64(len(odd))
	last0, last1 := train(d.Subset(even), 0, false), train(d.Subset(odd), 0, false)
	avg0, avg1 := train(d.Subset(even), 0, true), train(d.Subset(odd), 0, true)
	last, avg := train(d, 2, false), train(d, 2, true)
	for f := range last {
		if want := (last0[f] + last1[f]) / 2; last[f] != want {
			t.Fatalf("mixed weight %d = %v, want %v", f, last[f], want)
		}
		if want := (n0*avg0[f] + n1*avg1[f]) / (n0 + n1); math.Abs(avg[f]-want) > 1e-9 {
			t.Fatalf("averaged weight %d = %v, want %v", f, avg[f], want)
		}
	}
}

// TestMixedCheckpointResume: a mixed run resumed from any of its
// checkpoints ends with the uninterrupted run's bits, with and without
// a dev set, for both mixes; a serial run's checkpoint does not fit a
// mixed run, nor one of another shard count.
func TestMixedCheckpointResume(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	d, dev := learntest.Synthetic(r, 120, 2, false), learntest.Synthetic(r, 40, 2, false)
	for _, mix := range []string{"uniform", "mistakes"} {
		for name, mk := range mixedLearners(t, 3, mix) {
			for _, withDev := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/dev=%v", name, mix, withDev), func(t *testing.T) {
					saved := checkResume(t, mk, d, dev, withDev, 2)
					for other, l := range map[string]learn.Learner{"serial": learners(t)[name](), "4 shards": mixedLearners(t, 4, mix)[name]()} {
						p := learntest.Problem(d, 1)
						p.Checkpoints = &learn.Checkpoints{Every: 2, Resume: saved[0]}
						if _, err := l.Train(context.Background(), p); err == nil || !strings.Contains(err.Error(), "does not fit") {
							t.Errorf("3 shards' checkpoint resumed %s: %v", other, err)
						}
					}
				})
			}
		}
	}
}

// TestMixedCancel: cancelling a mixed run stops it with the context's
// error.
func TestMixedCancel(t *testing.T) {
	d := learntest.Synthetic(rand.New(rand.NewPCG(5, 6)), 60, 2, false)
	for name, mk := range mixedLearners(t, 3, "uniform") {
		ctx, cancel := context.WithCancel(context.Background())
		p := learntest.Problem(d, 2)
		p.Observe = func(pt learn.Point) {
			if pt.Step == 2 {
				cancel()
			}
		}
		if _, err := mk().Train(ctx, p); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v after cancelling", name, err)
		}
		cancel()
	}
}
