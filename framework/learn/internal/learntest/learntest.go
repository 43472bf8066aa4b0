// Package learntest holds what the learners' tests share: a small
// synthetic tagging problem that only a model with transitions solves,
// the Problem around it, and token accuracy under Viterbi. It is imported
// by tests only.
package learntest

import (
	"math/rand/v2"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// NumAttrs and NumLabels are the sizes of Synthetic's problem.
const (
	NumAttrs  = 5
	NumLabels = 3
)

// Synthetic builds sents sentences of minLen to minLen+5 tokens where the
// label is the attribute's class, with a transition preference the state
// features cannot express alone: label 2 always follows label 1, and
// attribute 3 is ambiguous between labels 1 and 2. Attribute 4 is a bias.
// With values, the attributes carry real values (0.5 to 1.5 for the class
// attribute, 1 for the bias), so gradient checks cover them.
func Synthetic(r *rand.Rand, sents, minLen int, values bool) *feature.Dataset {
	d := feature.NewDataset()
	for s := 0; s < sents; s++ {
		n := minLen + r.IntN(6)
		prev := int32(-1)
		for i := 0; i < n; i++ {
			y := int32(r.IntN(NumLabels))
			if prev == 1 {
				y = 2
			}
			a := y
			if y != 0 && r.IntN(2) == 0 {
				a = 3 // ambiguous
			}
			d.Attrs = append(d.Attrs, a, 4)
			if values {
				d.Values = append(d.Values, 0.5+r.Float64(), 1)
			}
			d.TokenOff = append(d.TokenOff, len(d.Attrs))
			d.Labels = append(d.Labels, y)
			prev = y
		}
		d.SentOff = append(d.SentOff, len(d.Labels))
	}
	return d
}

// Problem is Synthetic's data as a learner sees it, seed 1, no log.
func Problem(d *feature.Dataset, threads int) *learn.Problem {
	return &learn.Problem{Train: d, NumAttrs: NumAttrs, NumLabels: NumLabels, Transitions: true,
		Seed: 1, Threads: threads, Log: zerolog.Nop()}
}

// Accuracy is m's token accuracy on d, decoding with Viterbi.
func Accuracy(m *linear.Model, d *feature.Dataset) float64 {
	ws := lattice.NewWorkspace(m.NumLabels)
	var sc lattice.Scores
	correct := 0
	for s := 0; s < d.NumSentences(); s++ {
		m.Lattice(&sc, m.W, d, s)
		path := make([]int32, sc.N)
		ws.Viterbi(path, &sc)
		lo, _ := d.Sentence(s)
		for i, y := range path {
			if d.Labels[lo+i] == y {
				correct++
			}
		}
	}
	return float64(correct) / float64(d.NumTokens())
}

// Switching builds sents sentences of minLen to minLen+5 tokens that only
// input-conditioned transitions solve: the first token's attribute 2+y
// names its label y; every later token carries attribute 0 ("keep": the
// label repeats) or 1 ("advance": the label is the previous one plus 1,
// mod NumLabels). Neither attribute says anything about the label alone,
// and a transition matrix can only average the two, so a model needs
// attributes 0 and 1 conjoined with the label bigram (SwitchingPairs).
func Switching(r *rand.Rand, sents, minLen int) *feature.Dataset {
	d := feature.NewDataset()
	for s := 0; s < sents; s++ {
		n := minLen + r.IntN(6)
		y := int32(r.IntN(NumLabels))
		for i := 0; i < n; i++ {
			a := 2 + y
			if i > 0 {
				a = int32(r.IntN(2))
				y = (y + a) % NumLabels
			}
			d.Attrs = append(d.Attrs, a)
			d.TokenOff = append(d.TokenOff, len(d.Attrs))
			d.Labels = append(d.Labels, y)
		}
		d.SentOff = append(d.SentOff, len(d.Labels))
	}
	return d
}

// SwitchingPairs marks Switching's attributes 0 and 1 for pair features
// (learn.Problem.Pairs).
var SwitchingPairs = []bool{true, true, false, false, false}

// Periodic builds sents sentences of minLen to minLen+5 tokens whose
// labels only a second-order model predicts: they run through 0 0 1 1 0
// 0 1 1 … from a random phase, so the label after a 0 is 0 or 1 as often
// (a first-order model can only guess) but the label after two is fixed.
// The first two tokens carry attribute 2+y naming their label, every
// later token only the bias, attribute 4.
func Periodic(r *rand.Rand, sents, minLen int) *feature.Dataset {
	d := feature.NewDataset()
	for s := 0; s < sents; s++ {
		n := minLen + r.IntN(6)
		phase := r.IntN(4)
		for i := 0; i < n; i++ {
			y := int32((phase + i) % 4 / 2)
			a := int32(4)
			if i < 2 {
				a = 2 + y
			}
			d.Attrs = append(d.Attrs, a)
			d.TokenOff = append(d.TokenOff, len(d.Attrs))
			d.Labels = append(d.Labels, y)
		}
		d.SentOff = append(d.SentOff, len(d.Labels))
	}
	return d
}
