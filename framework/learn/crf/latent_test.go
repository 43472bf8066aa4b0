package crf

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/learn/internal/learntest"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// latentFixture is a latent model over Synthetic's labels with random
// weights x (transition weights zero without transitions).
func latentFixture(t *testing.T, k int, transitions, dense, values bool, sents int) (*linear.Model, *feature.Dataset, []float64) {
	t.Helper()
	r := rand.New(rand.NewPCG(21, 22))
	d := learntest.Synthetic(r, sents, 1, values)
	base := linear.NewObserved(d, learntest.NumAttrs, learntest.NumLabels, transitions)
	if dense {
		base = linear.NewDense(learntest.NumAttrs, learntest.NumLabels, transitions)
	}
	m := latentModel(base, k, 7)
	if err := m.Validate(); err != nil || !m.Sorted() {
		t.Fatalf("latent model invalid (%v) or unsorted", err)
	}
	x := make([]float64, len(m.W))
	for i := range x {
		x[i] = r.NormFloat64()
	}
	if !transitions {
		clear(x[m.NumFeatures():])
	}
	return m, d, x
}

// TestLatentGradient compares the latent objective's gradient with central
// finite differences.
func TestLatentGradient(t *testing.T) {
	for _, c := range []struct {
		name                       string
		k                          int
		transitions, dense, values bool
	}{
		{"k2 observed", 2, true, false, false},
		{"k3 dense values", 3, true, true, true},
		{"k2 no transitions", 2, false, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, d, x := latentFixture(t, c.k, c.transitions, c.dense, c.values, 10)
			o := newObjective(m, d, allSentences(d), objectiveKind{transitionsIf(c.transitions), globalNorm}, 0.3, 2)
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

// TestLatentObjectiveValue checks the loss against enumeration: for each
// sentence, log Σ over all state paths minus log Σ over the state paths
// whose labels are the gold ones (the clamped log Z).
func TestLatentObjectiveValue(t *testing.T) {
	for _, k := range []int{2, 3} {
		m, d, x := latentFixture(t, k, true, false, true, 6)
		o := newObjective(m, d, allSentences(d), objectiveKind{withTransitions, globalNorm}, 0, 1)
		got := o.Evaluate(x, make([]float64, len(x)))
		want := 0.0
		for s := 0; s < d.NumSentences(); s++ {
			var sc lattice.Scores
			sc.State = make([]float64, 0, 64*m.NumLabels)
			m.Lattice(&sc, x, d, s)
			lo, hi := d.Sentence(s)
			gold := d.Labels[lo:hi]
			var all, clamped []float64
			enumerateStates(&sc, func(path []int32, score float64) {
				all = append(all, score)
				labels := slices.Clone(path)
				m.ToLabels(labels)
				if slices.Equal(labels, gold) {
					clamped = append(clamped, score)
				}
			})
			if len(all) != int(math.Pow(float64(m.NumLabels), float64(hi-lo))) {
				t.Fatalf("enumerated %d paths", len(all))
			}
			want += lattice.LogSumExp(all) - lattice.LogSumExp(clamped)
		}
		if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Fatalf("k=%d: objective %v, enumeration %v", k, got, want)
		}
	}
}

// enumerateStates calls f with every state path of sc and its score.
func enumerateStates(sc *lattice.Scores, f func(path []int32, score float64)) {
	path := make([]int32, sc.N)
	var rec func(i int)
	rec = func(i int) {
		if i == sc.N {
			f(path, lattice.SequenceScore(sc, path))
			return
		}
		for y := int32(0); y < int32(sc.L); y++ {
			path[i] = y
			rec(i + 1)
		}
	}
	rec(0)
}

// TestLatentTrain trains the latent CRF on the synthetic problem: the
// same model bits for 1 and 2 threads and for a second run, states of a
// label that differ, and accuracy as good as the plain CRF's bound.
func TestLatentTrain(t *testing.T) {
	for _, c := range []struct{ init, prior string }{{"", ""}, {initSplit, ""}, {initRandom, ""}, {"", priorSplit}} {
		t.Run("hidden_init="+c.init+",prior="+c.prior, func(t *testing.T) { testLatentTrain(t, c.init, c.prior) })
	}
}

func testLatentTrain(t *testing.T, init, prior string) {
	r := rand.New(rand.NewPCG(5, 6))
	train, test := learntest.Synthetic(r, 200, 1, false), learntest.Synthetic(r, 80, 1, false)
	var ref *linear.Model
	for _, threads := range []int{1, 2, 1} {
		l := New().(*Learner)
		l.cfg.HiddenStates = 2
		l.cfg.HiddenInit = init
		l.cfg.Prior = prior
		if d := l.Validate(); d.HasErrors() {
			t.Fatal(d)
		}
		res, err := l.Train(context.Background(), learntest.Problem(train, threads))
		if err != nil {
			t.Fatal(err)
		}
		if it, _ := res.Info["plain_iterations"].(int); (it > 0) != (init != initRandom) {
			t.Fatalf("hidden_init %q: %d plain iterations before the split", init, it)
		}
		m := res.Model
		if m.HiddenStates != 2 || m.NumLabels != 2*learntest.NumLabels || m.NumOutputLabels() != learntest.NumLabels {
			t.Fatalf("model has %d states, %d hidden per label", m.NumLabels, m.HiddenStates)
		}
		if ref == nil {
			ref = m
			if acc := latentAccuracy(m, test); acc < 0.88 {
				t.Fatalf("accuracy %.3f", acc)
			}
			tr := m.Trans()
			if tr[0] == tr[1] {
				t.Fatal("the two states of label 0 have the same transition weights")
			}
			continue
		}
		for i := range m.W {
			if math.Float64bits(m.W[i]) != math.Float64bits(ref.W[i]) {
				t.Fatalf("threads=%d: weight %d differs (%v vs %v)", threads, i, m.W[i], ref.W[i])
			}
		}
	}
}

// latentAccuracy is token accuracy under Viterbi over states, mapped to
// labels.
func latentAccuracy(m *linear.Model, d *feature.Dataset) float64 {
	ws := lattice.NewWorkspace(m.NumLabels)
	sc := lattice.Scores{State: make([]float64, 0, d.MaxSentenceLen()*m.NumLabels)}
	right, total := 0, 0
	for s := 0; s < d.NumSentences(); s++ {
		m.Lattice(&sc, m.W, d, s)
		path := make([]int32, sc.N)
		ws.Viterbi(path, &sc)
		m.ToLabels(path)
		lo, _ := d.Sentence(s)
		for i, y := range path {
			if d.Labels[lo+i] == y {
				right++
			}
			total++
		}
	}
	return float64(right) / float64(total)
}

// TestLatentValidate: hidden_states must be 2..32, with L-BFGS, without
// init_model, and only on the chain form.
func TestLatentValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(l *Learner)
		want string
	}{
		{"one", func(l *Learner) { l.cfg.HiddenStates = 1 }, "between 2 and 32"},
		{"huge", func(l *Learner) { l.cfg.HiddenStates = 33 }, "between 2 and 32"},
		{"sgd", func(l *Learner) { l.cfg.HiddenStates = 2; l.cfg.Algorithm = "sgd" }, `needs algorithm = "lbfgs"`},
		{"init_model", func(l *Learner) { l.cfg.HiddenStates = 2; l.cfg.InitModel = "m.model" }, "cannot continue init_model"},
		{"memm", func(l *Learner) { l.form = Local; l.cfg.HiddenStates = 2 }, "memm does not take it"},
		{"hidden_init alone", func(l *Learner) { l.cfg.HiddenInit = "split" }, "hidden_init needs hidden_states"},
		{"hidden_iterations alone", func(l *Learner) { l.cfg.HiddenIterations = 5 }, "hidden_iterations needs hidden_states"},
		{"prior split alone", func(l *Learner) { l.cfg.Prior = "split" }, `prior = "split" needs hidden_states`},
		{"prior split random", func(l *Learner) { l.cfg.HiddenStates = 2; l.cfg.HiddenInit = "random"; l.cfg.Prior = "split" }, `prior = "split" needs hidden_states`},
		{"hidden_init unknown", func(l *Learner) { l.cfg.HiddenStates = 2; l.cfg.HiddenInit = "plain" }, `hidden_init must be "split"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := New().(*Learner)
			c.set(l)
			d := l.Validate()
			if !d.HasErrors() || !strings.Contains(d.Error(), c.want) {
				t.Fatalf("diagnostics %v, want %q", d, c.want)
			}
		})
	}
}

// TestSplitWeights: the split gives each state its label's weights, so
// that the latent objective (c2 = 0) there is the plain CRF's at the plain
// weights — the k^n state paths of each label path cancel between Z(x)
// and Z(x, y).
func TestSplitWeights(t *testing.T) {
	for _, c := range []struct {
		name        string
		k           int
		transitions bool
	}{
		{"k2", 2, true},
		{"k3", 3, true},
		{"k2 no transitions", 2, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(31, 32))
			d := learntest.Synthetic(r, 12, 1, true)
			plain := linear.NewObserved(d, learntest.NumAttrs, learntest.NumLabels, c.transitions)
			for i := range plain.W {
				plain.W[i] = r.NormFloat64()
			}
			if !c.transitions {
				clear(plain.W[plain.NumFeatures():])
			}
			split := latentModel(plain, c.k, 9)
			x := splitWeights(plain, c.k)
			if err := split.Validate(); err != nil || split.HiddenStates != c.k || len(x) != len(split.W) {
				t.Fatalf("split model invalid (%v), %d hidden states or %d weights", err, split.HiddenStates, len(x))
			}
			for a := int32(0); a < int32(plain.NumAttrs()); a++ {
				for y := int32(0); y < int32(plain.NumLabels); y++ {
					f := plain.Feature(a, y)
					for j := int32(0); j < int32(c.k); j++ {
						g := split.Feature(a, y*int32(c.k)+j)
						if (f < 0) != (g < 0) || f >= 0 && math.Abs(x[g]-plain.W[f]) > 1e-12 {
							t.Fatalf("attribute %d state %d of label %d: weight %v, label's %v", a, j, y, x[g], plain.W[f])
						}
					}
				}
			}
			want := newObjective(plain, d, allSentences(d), objectiveKind{transitionsIf(c.transitions), globalNorm}, 0, 1).Evaluate(plain.W, make([]float64, len(plain.W)))
			got := newObjective(split, d, allSentences(d), objectiveKind{transitionsIf(c.transitions), globalNorm}, 0, 1).Evaluate(x, make([]float64, len(x)))
			if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Fatalf("latent objective at the unperturbed split %v, plain objective %v", got, want)
			}
		})
	}
}

// TestHiddenIterations: hidden_iterations bounds the iterations after the
// split, not the plain CRF's before it.
func TestHiddenIterations(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	train := learntest.Synthetic(r, 200, 1, false)
	l := New().(*Learner)
	l.cfg.HiddenStates, l.cfg.HiddenIterations = 2, 3
	if d := l.Validate(); d.HasErrors() {
		t.Fatal(d)
	}
	res, err := l.Train(context.Background(), learntest.Problem(train, 2))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := res.Info["plain_iterations"].(int)
	latent, _ := res.Info["iterations"].(int)
	if latent != 3 || plain <= 3 {
		t.Fatalf("%d iterations after the split (want 3), %d before", latent, plain)
	}
}
