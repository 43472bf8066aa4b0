package crf

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/learn/internal/learntest"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/linear"
)

func allSentences(d *feature.Dataset) []int {
	s := make([]int, d.NumSentences())
	for i := range s {
		s[i] = i
	}
	return s
}

// TestGradient compares the analytic gradient with central finite
// differences, with and without transitions, dense and observed features.
func TestGradient(t *testing.T) {
	for _, c := range []struct {
		name               string
		transitions, dense bool
		values             bool
		norm               normalization // localNorm: maxent (without transitions) or MEMM
		prior              bool          // L2 centred on random weights (prior = "init_model")
	}{
		{"observed", true, false, false, globalNorm, false},
		{"dense", true, true, true, globalNorm, false},
		{"no-transitions", false, false, true, globalNorm, false},
		{"maxent", false, false, true, localNorm, false},
		{"maxent dense", false, true, false, localNorm, false},
		{"memm", true, false, true, localNorm, false},
		{"memm dense", true, true, false, localNorm, false},
		{"observed prior", true, false, true, globalNorm, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(11, 12))
			d := learntest.Synthetic(r, 12, 1, c.values)
			var m *linear.Model
			if c.dense {
				m = linear.NewDense(5, 3, c.transitions)
			} else {
				m = linear.NewObserved(d, 5, 3, c.transitions)
			}
			m.Local = c.norm == localNorm && c.transitions
			o := newObjective(m, d, allSentences(d), objectiveKind{transitionsIf(c.transitions), c.norm}, 0.3, 2)
			if c.prior {
				o.prior = make([]float64, len(m.W))
				for i := range o.prior {
					o.prior[i] = r.NormFloat64()
				}
			}
			x := make([]float64, len(m.W))
			for i := range x {
				x[i] = r.NormFloat64()
			}
			if !c.transitions {
				for i := m.NumFeatures(); i < len(x); i++ {
					x[i] = 0
				}
			}
			grad := make([]float64, len(x))
			o.Evaluate(x, grad)
			scratch := make([]float64, len(x))
			const h = 1e-5
			for i := range x {
				if !c.transitions && i >= m.NumFeatures() {
					if grad[i] != 0 {
						t.Fatalf("transition gradient %d = %v without transitions", i, grad[i])
					}
					continue
				}
				old := x[i]
				x[i] = old + h
				fp := o.Evaluate(x, scratch)
				x[i] = old - h
				fm := o.Evaluate(x, scratch)
				x[i] = old
				num := (fp - fm) / (2 * h)
				if math.Abs(num-grad[i]) > 1e-5*math.Max(1, math.Abs(num)) {
					t.Fatalf("gradient[%d] = %v, finite difference %v", i, grad[i], num)
				}
			}
		})
	}
}

// TestObjectiveMatchesBruteForce checks the loss itself against log Z by
// enumeration on the tiny lattices.
func TestObjectiveValue(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 3))
	d := learntest.Synthetic(r, 5, 1, false)
	m := linear.NewDense(5, 3, true)
	o := newObjective(m, d, allSentences(d), objectiveKind{withTransitions, globalNorm}, 0, 1)
	for i := range m.W {
		m.W[i] = r.NormFloat64()
	}
	got := o.Evaluate(m.W, make([]float64, len(m.W)))
	want := 0.0
	var sc lattice.Scores
	for s := 0; s < d.NumSentences(); s++ {
		m.Lattice(&sc, m.W, d, s)
		var scores []float64
		path := make([]int32, sc.N)
		var rec func(i int)
		rec = func(i int) {
			if i == sc.N {
				scores = append(scores, lattice.SequenceScore(&sc, path))
				return
			}
			for y := int32(0); y < 3; y++ {
				path[i] = y
				rec(i + 1)
			}
		}
		rec(0)
		lo, hi := d.Sentence(s)
		want += lattice.LogSumExp(scores) - lattice.SequenceScore(&sc, d.Labels[lo:hi])
	}
	if math.Abs(got-want) > 1e-9*math.Abs(want) {
		t.Fatalf("objective %v, brute force %v", got, want)
	}
}

// TestLocalObjectiveValue checks the MEMM's loss against the model as the
// decoders see it: a locally normalized model's lattice (linear.Scorer
// puts the normalizers in) scores every label sequence with its log
// probability, so the scores of all sequences, by enumeration, sum to 1
// in probability (log Z = 0), and the loss is minus the gold sequences'
// scores. Without transitions (maxent) the loss is the sum of per-token
// log-softmax losses, computed here from the state scores directly.
func TestLocalObjectiveValue(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 3))
	d := learntest.Synthetic(r, 6, 1, true)
	t.Run("memm", func(t *testing.T) {
		m := linear.NewDense(5, 3, true)
		m.Local = true
		for i := range m.W {
			m.W[i] = r.NormFloat64()
		}
		clear(m.Stop()) // a local model's stop weights stay zero
		got := newObjective(m, d, allSentences(d), objectiveKind{withTransitions, localNorm}, 0, 1).Evaluate(m.W, make([]float64, len(m.W)))
		want := 0.0
		var sc lattice.Scores
		for s := 0; s < d.NumSentences(); s++ {
			m.Lattice(&sc, m.W, d, s)
			if logZ := lattice.LogSumExp(enumerate(&sc)); math.Abs(logZ) > 1e-12 {
				t.Fatalf("sentence %d: log Σ P(sequence) = %v, want 0", s, logZ)
			}
			lo, hi := d.Sentence(s)
			want -= lattice.SequenceScore(&sc, d.Labels[lo:hi])
		}
		if math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Fatalf("objective %v, from the lattice %v", got, want)
		}
	})
	t.Run("maxent", func(t *testing.T) {
		m := linear.NewObserved(d, 5, 3, false)
		for i := 0; i < m.NumFeatures(); i++ {
			m.W[i] = r.NormFloat64()
		}
		got := newObjective(m, d, allSentences(d), objectiveKind{noTransitions, localNorm}, 0, 1).Evaluate(m.W, make([]float64, len(m.W)))
		want := 0.0
		state := make([]float64, 3)
		for tok := 0; tok < d.NumTokens(); tok++ {
			m.StateScores(state, m.W, d, tok, tok+1)
			want += lattice.LogSumExp(state) - state[d.Labels[tok]]
		}
		if math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Fatalf("objective %v, per-token log-softmax %v", got, want)
		}
	})
}

// enumerate returns the scores of every label sequence of sc.
func enumerate(sc *lattice.Scores) []float64 {
	var scores []float64
	path := make([]int32, sc.N)
	var rec func(i int)
	rec = func(i int) {
		if i == sc.N {
			scores = append(scores, lattice.SequenceScore(sc, path))
			return
		}
		for y := int32(0); y < int32(sc.L); y++ {
			path[i] = y
			rec(i + 1)
		}
	}
	rec(0)
	return scores
}

// TestThreadIndependence: the gradient's bits must not depend on the
// number of threads.
func TestThreadIndependence(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	d := learntest.Synthetic(r, 400, 1, true)
	m := linear.NewObserved(d, 5, 3, true)
	x := make([]float64, len(m.W))
	for i := range x {
		x[i] = r.NormFloat64()
	}
	var ref []float64
	var refF float64
	for _, threads := range []int{1, 2, 3, 8} {
		o := newObjective(m, d, allSentences(d), objectiveKind{withTransitions, globalNorm}, 0.5, threads)
		g := make([]float64, len(x))
		f := o.Evaluate(x, g)
		if ref == nil {
			ref, refF = g, f
			continue
		}
		if f != refF {
			t.Fatalf("threads=%d: objective %v differs from 1 thread %v", threads, f, refF)
		}
		for i := range g {
			if g[i] != ref[i] {
				t.Fatalf("threads=%d: gradient[%d] differs", threads, i)
			}
		}
	}
}

// TestHotRowsSameGradient: the objective and gradient computed with the
// model's hot rows (state scores and expected counts a row at a time) are
// bit for bit those of the sparse loops, with 1 and 2 threads, without
// and with pair features (which share the shard's Scorer).
func TestHotRowsSameGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 6))
	d := learntest.Synthetic(r, 300, 1, false)
	plain := linear.NewObserved(d, 5, 3, true)
	paired := linear.WithPairs(plain, d, []bool{false, false, false, true, false})
	if paired.NumPairs() == 0 {
		t.Fatal("no pair features")
	}
	for _, m := range []*linear.Model{plain, paired} {
		checkHotGradient(t, r, m, d)
	}
}

func checkHotGradient(t *testing.T, r *rand.Rand, m *linear.Model, d *feature.Dataset) {
	t.Helper()
	x := make([]float64, len(m.W))
	for i := range x {
		x[i] = r.NormFloat64()
	}
	for _, threads := range []int{1, 2} {
		var f [2]float64
		var g [2][]float64
		for k, hot := range []bool{true, false} {
			o := newObjective(m, d, allSentences(d), objectiveKind{withTransitions, globalNorm}, 0.5, threads)
			if o.hot == nil {
				t.Fatal("the test model has no hot rows")
			}
			if !hot {
				o.hot = nil
			}
			g[k] = make([]float64, len(x))
			f[k] = o.Evaluate(x, g[k])
		}
		if math.Float64bits(f[0]) != math.Float64bits(f[1]) {
			t.Fatalf("threads=%d: objective %v with hot rows, %v without", threads, f[0], f[1])
		}
		for i := range g[0] {
			if math.Float64bits(g[0][i]) != math.Float64bits(g[1][i]) {
				t.Fatalf("threads=%d: gradient[%d] %v with hot rows, %v without", threads, i, g[0][i], g[1][i])
			}
		}
	}
}

// TestFloat32CountsSameGradient checks that the gold counts kept in
// float32 (useFloat32Counts) give the objective and gradient of float64
// counts bit for bit, with and without pair features and a prior, for the
// CRF and the local objective.
func TestFloat32CountsSameGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 7))
	d := learntest.Synthetic(r, 300, 1, false)
	plain := linear.NewObserved(d, 5, 3, true)
	paired := linear.WithPairs(plain, d, []bool{false, false, false, true, false})
	for _, c := range []struct {
		name  string
		m     *linear.Model
		norm  normalization
		prior bool
	}{{"crf", plain, globalNorm, false}, {"pairs", paired, globalNorm, false}, {"local", plain, localNorm, false}, {"prior", plain, globalNorm, true}} {
		t.Run(c.name, func(t *testing.T) {
			x, prior := make([]float64, len(c.m.W)), make([]float64, len(c.m.W))
			for i := range x {
				x[i], prior[i] = r.NormFloat64(), r.NormFloat64()
			}
			var f [2]float64
			var g [2][]float64
			for k, narrow := range []bool{true, false} {
				o := newObjective(c.m, d, allSentences(d), objectiveKind{withTransitions, c.norm}, 0.5, 2)
				if o.empirical32 == nil {
					t.Fatal("binary data with few counts: want float32 counts")
				}
				if !narrow {
					o.empirical = make([]float64, len(o.empirical32))
					for i, e := range o.empirical32 {
						o.empirical[i] = float64(e)
					}
					o.empirical32 = nil
				}
				if c.prior {
					o.prior = prior
				}
				g[k] = make([]float64, len(x))
				f[k] = o.Evaluate(x, g[k])
			}
			if math.Float64bits(f[0]) != math.Float64bits(f[1]) {
				t.Fatalf("objective %v with float32 counts, %v with float64", f[0], f[1])
			}
			for i := range g[0] {
				if math.Float64bits(g[0][i]) != math.Float64bits(g[1][i]) {
					t.Fatalf("gradient[%d] %v with float32 counts, %v with float64", i, g[0][i], g[1][i])
				}
			}
		})
	}
}

func TestTrain(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 7))
	train, test := learntest.Synthetic(r, 300, 1, false), learntest.Synthetic(r, 100, 1, false)
	one, two := 1.0, 0.1
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"lbfgs", Config{}},
		{"owlqn", Config{Training: Training{C1: &one, C2: &two}}},
		{"sgd", Config{Training: Training{Algorithm: "sgd", MaxIterations: 20}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := &Learner{cfg: c.cfg}
			if diags := l.Validate(); diags.HasErrors() {
				t.Fatal(diags)
			}
			var models [][]float64
			for _, threads := range []int{1, 2} {
				res, err := l.Train(context.Background(), learntest.Problem(train, threads))
				if err != nil {
					t.Fatal(err)
				}
				if acc := learntest.Accuracy(res.Model, test); acc < 0.88 {
					t.Fatalf("accuracy %.4f, want >= 0.88 (about the Bayes rate of this data)", acc)
				}
				models = append(models, res.Model.W)
			}
			for i := range models[0] {
				if models[0][i] != models[1][i] {
					t.Fatalf("weight %d differs between 1 and 2 threads", i)
				}
			}
		})
	}
}

// BenchmarkGradient: the CRF's gradient pass and the locally normalized
// one (MEMM) side by side.
func BenchmarkGradient(b *testing.B) {
	for _, norm := range []normalization{globalNorm, localNorm} {
		b.Run(fmt.Sprintf("local=%v", norm == localNorm), func(b *testing.B) {
			r := rand.New(rand.NewPCG(8, 9))
			d := learntest.Synthetic(r, 2000, 1, false)
			m := linear.NewObserved(d, 5, 3, true)
			m.Local = norm == localNorm
			o := newObjective(m, d, allSentences(d), objectiveKind{withTransitions, norm}, 1, 1)
			g := make([]float64, len(m.W))
			b.ReportAllocs()
			for b.Loop() {
				o.Evaluate(m.W, g)
			}
		})
	}
}

// TestCheckpointResume: training interrupted after any checkpoint and
// resumed from it ends with the uninterrupted run's weights and info, to
// the bit, for L-BFGS, OWL-QN and SGD, with dev-score tracking (and early
// stopping) in play, whatever the thread count of either run.
func TestCheckpointResume(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	train, dev := learntest.Synthetic(r, 150, 1, false), learntest.Synthetic(r, 40, 1, false)
	one, small := 1.0, 0.1
	for _, c := range []struct {
		name string
		cfg  Config
		form Form
	}{
		{"lbfgs", Config{Training: Training{MaxIterations: 40}}, Chain},
		{"owlqn", Config{Training: Training{C1: &one, C2: &small, MaxIterations: 40}}, Chain},
		{"lbfgs patience", Config{Training: Training{Patience: 3}}, Chain},
		{"lbfgs warm start", Config{Training: Training{MaxIterations: 40}, Speedups: Speedups{WarmStartEpochs: 3}}, Chain},
		{"sgd", Config{Training: Training{Algorithm: "sgd", MaxIterations: 9}}, Chain},
		{"sgd mixed", Config{Training: Training{Algorithm: "sgd", MaxIterations: 9, Shards: 3}}, Chain},
		{"sgd mixed batches", Config{Training: Training{Algorithm: "sgd", MaxIterations: 9, Shards: 2}, Speedups: Speedups{BatchSize: 3}}, Chain},
		{"lbfgs shards", Config{Training: Training{MaxIterations: 40, Shards: 3}}, Chain},
		{"maxent lbfgs", Config{Training: Training{MaxIterations: 40}}, PerToken},
		{"memm lbfgs", Config{Training: Training{MaxIterations: 40}}, Local},
		{"memm owlqn", Config{Training: Training{C1: &one, C2: &small, MaxIterations: 40}}, Local},
		{"memm sgd", Config{Training: Training{Algorithm: "sgd", MaxIterations: 9}}, Local},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := &Learner{cfg: c.cfg, form: c.form}
			if diags := l.Validate(); diags.HasErrors() {
				t.Fatal(diags)
			}
			prob := func(threads int) *learn.Problem {
				p := learntest.Problem(train, threads)
				p.Dev = dev
				p.DevScore = func(m *linear.Model) float64 { return learntest.Accuracy(m, dev) }
				return p
			}
			var saved [][]byte
			p := prob(2)
			p.Checkpoints = &learn.Checkpoints{Every: 2, Save: func(b []byte) error {
				saved = append(saved, append([]byte(nil), b...))
				return nil
			}}
			want, err := l.Train(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if len(saved) < 2 {
				t.Fatalf("%d checkpoints (info %v)", len(saved), want.Info)
			}
			for k, b := range saved {
				p := prob(1 + k%2)
				p.Checkpoints = &learn.Checkpoints{Every: 2, Save: func([]byte) error { return nil }, Resume: b}
				got, err := l.Train(context.Background(), p)
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
			}
			// A checkpoint of another problem is refused.
			other := learntest.Problem(learntest.Synthetic(r, 20, 1, true), 1)
			other.NumLabels++
			other.Checkpoints = &learn.Checkpoints{Every: 3, Resume: saved[0]}
			if _, err := l.Train(context.Background(), other); err == nil {
				t.Errorf("a checkpoint of another problem was accepted")
			}
		})
	}
}

// TestNonFinite: values so large that the objective overflows stop SGD
// with an error naming the epoch, not with a model of NaNs.
func TestNonFinite(t *testing.T) {
	d := learntest.Synthetic(rand.New(rand.NewPCG(3, 4)), 60, 1, true)
	for k := range d.Values {
		d.Values[k] = 1e305
	}
	l := &Learner{cfg: Config{Training: Training{Algorithm: "sgd", MaxIterations: 5}}}
	_, err := l.Train(context.Background(), learntest.Problem(d, 1))
	if err == nil || !strings.Contains(err.Error(), "sgd epoch 1 produced a non-finite objective") {
		t.Fatalf("got %v", err)
	}
}
