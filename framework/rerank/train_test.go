// train_test.go checks the learners: the perceptron's update and
// averaging against a hand-computed run, the maxent gradient against
// finite differences, and that training learns and is reproducible.
package rerank

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// handSet is two lists of two candidates each, rank 1 right and rank 0
// wrong in both:
//
//	list 0: c0 {1, 2} score 0, c1 {1, 3} score −0.5
//	list 1: c2 {4}    score 0, c3 {5}    score −2
func handSet() *Set {
	return &Set{
		first: []int{0, 2, 4},
		start: []int{0, 2, 4, 5, 6},
		ids:   []int32{1, 2, 1, 3, 4, 5},
		real:  []float64{0, -0.5, 0, -2},
		counts: []Counts{
			{Correct: 0, Pred: 1, Gold: 1}, {Correct: 1, Pred: 1, Gold: 1},
			{Correct: 0, Pred: 1, Gold: 1}, {Correct: 1, Pred: 1, Gold: 1},
		},
	}
}

// TestPerceptronHandComputed visits list 0 then list 1 from w = (1, 0…):
//
//	visit 1 (t=0): scores 0 > −0.5, rank 0 wrong: w += f(c1) − f(c0):
//	  w = (0.5, 0, −1, 1, 0, 0)
//	visit 2 (t=1): scores 0 > 0.5·−2, rank 0 wrong: w += f(c3) − f(c2):
//	  w = (−1.5, 0, −1, 1, −1, 1)
//	average of the two: (−0.5, 0, −1, 1, −0.5, 0.5)
func TestPerceptronHandComputed(t *testing.T) {
	w := []float64{1, 0, 0, 0, 0, 0}
	r := newPerceptronRun(handSet(), w)
	r.step(0)
	if want := []float64{0.5, 0, -1, 1, 0, 0}; !slices.Equal(w, want) {
		t.Fatalf("after visit 1: w = %v, want %v", w, want)
	}
	r.step(1)
	if want := []float64{-1.5, 0, -1, 1, -1, 1}; !slices.Equal(w, want) {
		t.Fatalf("after visit 2: w = %v, want %v", w, want)
	}
	r.average()
	if want := []float64{-0.5, 0, -1, 1, -0.5, 0.5}; !slices.Equal(w, want) {
		t.Fatalf("averaged: w = %v, want %v", w, want)
	}
	// A visit that predicts an oracle-best candidate does not update, but
	// counts for the average.
	w = []float64{1, 0, -1, 1, 0, 0}
	r = newPerceptronRun(handSet(), w)
	r.step(0)
	if r.t != 1 || !slices.Equal(w, []float64{1, 0, -1, 1, 0, 0}) {
		t.Errorf("a right prediction changed w to %v (t = %d)", w, r.t)
	}
}

// randomSet is a set of random lists with random features and gold
// counts, some lists with every candidate oracle-best.
func randomSet(rng *rand.Rand, lists, dim int) *Set {
	s := &Set{first: []int{0}, start: []int{0}}
	for range lists {
		k := 1 + rng.IntN(4)
		gold := rng.IntN(3)
		for range k {
			for range 1 + rng.IntN(5) {
				s.ids = append(s.ids, int32(1+rng.IntN(dim-1)))
			}
			s.start = append(s.start, len(s.ids))
			s.real = append(s.real, -3*rng.Float64())
			pred := rng.IntN(3)
			s.counts = append(s.counts, Counts{Correct: rng.IntN(min(pred, gold) + 1), Pred: pred, Gold: gold})
		}
		s.first = append(s.first, len(s.real))
	}
	return s
}

func TestMaxEntGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const dim = 12
	set := randomSet(rng, 30, dim)
	for _, c2 := range []float64{0, 0.3} {
		obj := newMaxentObjective(set, c2)
		w := make([]float64, dim)
		for i := range w {
			w[i] = rng.NormFloat64()
		}
		grad := make([]float64, dim)
		obj.eval(w, grad)
		scratch := make([]float64, dim)
		const h = 1e-6
		for i := range w {
			wi := w[i]
			w[i] = wi + h
			fp := obj.eval(w, scratch)
			w[i] = wi - h
			fm := obj.eval(w, scratch)
			w[i] = wi
			num := (fp - fm) / (2 * h)
			if math.Abs(num-grad[i]) > 1e-6*math.Max(1, math.Abs(num)) {
				t.Errorf("c2 = %g, feature %d: gradient %g, finite difference %g", c2, i, grad[i], num)
			}
		}
	}
}

// syntheticLists are lists of random sentences over a few types whose
// candidates are the gold labeling with a few labels changed, scored so
// the gold is rarely first: something a reranker can learn from the span
// words (a word always has the same type).
func syntheticLists(seed uint64, n, k int) []List {
	rng := rand.New(rand.NewPCG(seed, 1))
	vocab := []string{"Paris", "Smith", "Acme", "Rome", "Jones", "Globex", "the", "saw", "in", "and"}
	types := []string{"LOC", "PER", "ORG", "LOC", "PER", "ORG", "", "", "", ""}
	out := make([]List, n)
	for s := range out {
		m := 2 + rng.IntN(6)
		l := List{Doc: s / 4, Words: make([]string, m), Gold: make([]string, m)}
		for i := range m {
			v := rng.IntN(len(vocab))
			l.Words[i] = vocab[v]
			l.Gold[i] = "O"
			if types[v] != "" {
				l.Gold[i] = "I-" + types[v]
			}
		}
		goldAt := rng.IntN(k)
		score := 0.0
		for j := range k {
			c := slices.Clone(l.Gold)
			if j != goldAt {
				for range 1 + rng.IntN(2) {
					c[rng.IntN(m)] = []string{"O", "I-PER", "I-LOC", "I-ORG"}[rng.IntN(4)]
				}
			}
			l.Labels = append(l.Labels, c)
			l.Scores = append(l.Scores, score)
			score -= rng.Float64()
		}
		out[s] = l
	}
	return out
}

func TestTrainLearnsAndIsReproducible(t *testing.T) {
	train, test := syntheticLists(1, 400, 5), syntheticLists(2, 200, 5)
	perceptron := DefaultSettings()
	maxent := DefaultSettings()
	maxent.Trainer, maxent.C2 = TrainerMaxEnt, 0.1
	for _, s := range []Settings{perceptron, maxent} {
		m, err := Train(context.Background(), train, s)
		if err != nil {
			t.Fatal(err)
		}
		choice, err := m.Rerank(test)
		if err != nil {
			t.Fatal(err)
		}
		got := eval1(test, choice)
		first := eval1(test, make([]int, len(test)))
		if got < first+0.2 {
			t.Errorf("%s: reranked F1 %.3f, first pass %.3f: nothing learnt", s.Trainer, got, first)
		}
		again, err := Train(context.Background(), train, s)
		if err != nil {
			t.Fatal(err)
		}
		b1, _ := m.MarshalBinary()
		b2, _ := again.MarshalBinary()
		if !bytes.Equal(b1, b2) {
			t.Errorf("%s: two trainings differ", s.Trainer)
		}
	}
	// Another seed shuffles differently.
	s := perceptron
	s.Seed = 99
	a, _ := Train(context.Background(), train, perceptron)
	b, _ := Train(context.Background(), train, s)
	if slices.Equal(a.Weights, b.Weights) {
		t.Error("seeds 0 and 99 gave the same perceptron")
	}
}

func TestSettingsRefused(t *testing.T) {
	train := syntheticLists(1, 10, 3)
	for _, s := range []Settings{{Trainer: "svm"}, {Trainer: TrainerPerceptron}, {Trainer: TrainerMaxEnt, C2: -1},
		{Trainer: TrainerPerceptron, Epochs: 1, Features: []string{"nope"}}} {
		if _, err := Train(context.Background(), train, s); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
	noGold := syntheticLists(1, 10, 3)
	noGold[3].Gold = nil
	if _, err := Train(context.Background(), noGold, DefaultSettings()); err == nil {
		t.Error("a list without gold accepted for training")
	}
	bad := syntheticLists(1, 10, 3)
	bad[2].Scores[2] = bad[2].Scores[0] + 1
	if _, err := Train(context.Background(), bad, DefaultSettings()); err == nil {
		t.Error("unsorted scores accepted")
	}
}
