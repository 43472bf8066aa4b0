package crf

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/learn/internal/learntest"
)

// TestWarmStart: warm_start_epochs = N is N epochs of algorithm = "sgd"
// followed by L-BFGS continued from their model (the two-run recipe
// measured in docs/results.md), bit for bit and iteration for iteration,
// with 1 and 3 threads, one sentence per SGD step and batches of 7 (whose
// two lanes run side by side with 3 threads, one after the other with 1);
// it ends at plain L-BFGS's optimum up to the stopping tolerance. So for
// the three forms.
func TestWarmStart(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	train, test := learntest.Synthetic(r, 300, 1, false), learntest.Synthetic(r, 100, 1, false)
	for _, form := range []Form{Chain, PerToken, Local} {
		for _, batch := range []int{0, 7} {
			t.Run(fmt.Sprintf("%v/batch=%d", form, batch), func(t *testing.T) { checkWarmStart(t, form, batch, train, test) })
		}
	}
}

func checkWarmStart(t *testing.T, form Form, batch int, train, test *feature.Dataset) {
	const epochs = 4
	// A tight stopping rule, so that the warm-started and the plain
	// L-BFGS both end near enough the one optimum to tag alike.
	delta := 1e-9
	sgd, err := (&Learner{cfg: Config{Training: Training{Algorithm: "sgd", MaxIterations: epochs, Delta: &delta}, Speedups: Speedups{BatchSize: batch}}, form: form}).Train(context.Background(), learntest.Problem(train, 1))
	if err != nil {
		t.Fatal(err)
	}
	p := learntest.Problem(train, 1)
	p.Init = sgd.Model
	twoRuns, err := (&Learner{cfg: Config{Training: Training{Delta: &delta}}, form: form}).Train(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := (&Learner{cfg: Config{Training: Training{Delta: &delta}}, form: form}).Train(context.Background(), learntest.Problem(train, 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, threads := range []int{1, 3} {
		l := &Learner{cfg: Config{Training: Training{Delta: &delta}, Speedups: Speedups{WarmStartEpochs: epochs, BatchSize: batch}}, form: form}
		if d := l.Validate(); d.HasErrors() {
			t.Fatal(d)
		}
		warm, err := l.Train(context.Background(), learntest.Problem(train, threads))
		if err != nil {
			t.Fatal(err)
		}
		for f := range warm.Model.W {
			if math.Float64bits(warm.Model.W[f]) != math.Float64bits(twoRuns.Model.W[f]) {
				t.Fatalf("threads=%d: weight %d = %v, the two-run recipe's %v", threads, f, warm.Model.W[f], twoRuns.Model.W[f])
			}
		}
		if warm.Info["iterations"] != twoRuns.Info["iterations"] || warm.Info["warm_start_epochs"] != epochs ||
			warm.Info["warm_start_loss"] != sgd.Info["loss"] {
			t.Errorf("threads=%d: info %v; the two runs' %v and %v", threads, warm.Info, sgd.Info, twoRuns.Info)
		}
		lw, lp := warm.Info["loss"].(float64), plain.Info["loss"].(float64)
		if math.Abs(lw-lp) > 1e-4*math.Abs(lp) {
			t.Errorf("threads=%d: warm-started loss %v, plain L-BFGS %v", threads, lw, lp)
		}
		if aw, ap := learntest.Accuracy(warm.Model, test), learntest.Accuracy(plain.Model, test); math.Abs(aw-ap) > 0.005 {
			t.Errorf("threads=%d: accuracy %.4f warm-started, %.4f plain", threads, aw, ap)
		}
	}
}

// TestWarmStartRefused: warm_start_epochs is refused where SGD would not
// warm L-BFGS up on the same objective, with a detail that starts with
// the setting's name (so the spec points at it).
func TestWarmStartRefused(t *testing.T) {
	one := 1.0
	zero := 0.0
	for _, c := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"negative", Config{Speedups: Speedups{WarmStartEpochs: -1}}, "must be >= 0"},
		{"sgd", Config{Training: Training{Algorithm: "sgd"}, Speedups: Speedups{WarmStartEpochs: 2}}, `with algorithm = "sgd" set max_iterations`},
		{"latent", Config{Latent: Latent{HiddenStates: 2}, Speedups: Speedups{WarmStartEpochs: 2}}, "hidden_init"},
		{"l1", Config{Training: Training{C1: &one}, Speedups: Speedups{WarmStartEpochs: 2}}, "c1 = 0"},
		{"no l2", Config{Training: Training{C2: &zero}, Speedups: Speedups{WarmStartEpochs: 2}}, "c2 > 0"},
		{"prior", Config{Training: Training{InitModel: "m", Prior: "init_model"}, Speedups: Speedups{WarmStartEpochs: 2}}, `prior = "init_model"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := (&Learner{cfg: c.cfg}).Validate()
			var found bool
			for _, x := range d {
				if strings.HasPrefix(x.Detail, "warm_start_epochs ") && strings.Contains(x.Detail, c.want) {
					found = true
				}
			}
			if !found {
				t.Errorf("diagnostics %v, want one on warm_start_epochs saying %q", d, c.want)
			}
		})
	}
	for _, form := range []Form{Chain, PerToken, Local} {
		if d := (&Learner{cfg: Config{Training: Training{InitModel: "m"}, Speedups: Speedups{WarmStartEpochs: 3}}, form: form}).Validate(); d.HasErrors() {
			t.Errorf("%v: %v", form, d)
		}
	}
}

// TestSpeedSettingsRefused: batch_size and history_precision are refused
// where they would do nothing or something else than they say, with a
// detail that names the setting; and taken where they apply.
func TestSpeedSettingsRefused(t *testing.T) {
	one := 1.0
	for _, c := range []struct {
		name string
		cfg  Config
		want string // "" when valid
	}{
		{"batch negative", Config{Training: Training{Algorithm: "sgd"}, Speedups: Speedups{BatchSize: -1}}, "batch_size must be >= 1"},
		{"batch without sgd", Config{Speedups: Speedups{BatchSize: 8}}, `batch_size is SGD's`},
		{"batch with sgd", Config{Training: Training{Algorithm: "sgd"}, Speedups: Speedups{BatchSize: 8}}, ""},
		{"batch with warm start", Config{Speedups: Speedups{WarmStartEpochs: 3, BatchSize: 8}}, ""},
		{"precision unknown", Config{Speedups: Speedups{HistoryPrecision: "float16"}}, `history_precision must be "float64" or "float32"`},
		{"precision with sgd", Config{Training: Training{Algorithm: "sgd"}, Speedups: Speedups{HistoryPrecision: "float32"}}, `needs algorithm = "lbfgs" and c1 = 0`},
		{"precision with l1", Config{Training: Training{C1: &one}, Speedups: Speedups{HistoryPrecision: "float32"}}, `needs algorithm = "lbfgs" and c1 = 0`},
		{"precision float32", Config{Training: Training{Memory: 12}, Speedups: Speedups{HistoryPrecision: "float32"}}, ""},
		{"precision float64", Config{Speedups: Speedups{HistoryPrecision: "float64"}}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := (&Learner{cfg: c.cfg}).Validate()
			if c.want == "" {
				if d.HasErrors() {
					t.Errorf("refused: %v", d)
				}
				return
			}
			var found bool
			for _, x := range d {
				found = found || strings.Contains(x.Detail, c.want)
			}
			if !found {
				t.Errorf("diagnostics %v, want one saying %q", d, c.want)
			}
		})
	}
}

// TestSGDLanesThreads: with batch_size, SGD's bits do not depend on the
// threads, also when the apply's two attribute ranges are lopsided: here
// attribute 0, on every token, carries most of the work, so the range
// split falls at 0 (the main goroutine's range is empty, and the
// transition weights must still be applied once, by it).
func TestSGDLanesThreads(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	d := learntest.Synthetic(r, 200, 1, false)
	for k, a := range d.Attrs {
		d.Attrs[k] = (a + 1) % 5 // the bias, attribute 4, becomes 0
	}
	l := &Learner{cfg: Config{Training: Training{Algorithm: "sgd", MaxIterations: 5}, Speedups: Speedups{BatchSize: 4}}}
	var want []float64
	for _, threads := range []int{1, 2, 3} {
		res, err := l.Train(context.Background(), learntest.Problem(d, threads))
		if err != nil {
			t.Fatal(err)
		}
		if threads == 1 {
			want = res.Model.W
			g := &sgdWalk{obj: &objective{m: res.Model, d: d, sents: allSentences(d)}}
			if split := g.attrSplit(); split != 0 {
				t.Fatalf("the data should split the apply at attribute 0, not %d", split)
			}
			continue
		}
		for f := range want {
			if math.Float64bits(res.Model.W[f]) != math.Float64bits(want[f]) {
				t.Fatalf("threads=%d: weight %d = %v, %v with one thread", threads, f, res.Model.W[f], want[f])
			}
		}
	}
}
