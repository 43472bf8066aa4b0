package linear

import (
	"fmt"
	"slices"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
)

// A second-order model (Trigrams set) scores, besides a first-order
// model's weights, one weight per label trigram (y[i-2], y[i-1], y[i]) it
// saw in training, ⟨s⟩ and ⟨/s⟩ included (lattice.Boundary); its
// lattices are second order (lattice.Scores.Order2) over exactly those
// trigrams. The trigram weights sit after the stop weights, before the
// pair features:
//
//	[ F | L*L | L | L | trigrams (T) | pair features (P) ]
//
// so the structure's dense weights (transitions, start, stop, trigrams)
// are one contiguous range, and a model without trigrams (T = 0) is
// laid out as before.

// WithTrigrams returns m restructured as a second-order model over the
// label trigrams of data's gold sequences, sorted, with zero weights for
// them; the other weights are m's. A model without transitions cannot be
// second order.
func WithTrigrams(m *Model, data *feature.Dataset) (*Model, error) {
	if !m.Transitions {
		return nil, fmt.Errorf("linear: a second-order model needs transitions")
	}
	seen := map[lattice.Trigram]bool{}
	for s := 0; s < data.NumSentences(); s++ {
		lo, hi := data.Sentence(s)
		if slices.ContainsFunc(data.Labels[lo:hi], func(y int32) bool { return y < 0 }) {
			continue // a sentence without gold labels has no trigrams
		}
		path := data.Labels[lo:hi]
		for i := 1; i <= len(path); i++ {
			seen[lattice.TrigramAt(path, i)] = true
		}
	}
	ts := make([]lattice.Trigram, 0, len(seen))
	for t := range seen {
		ts = append(ts, t)
	}
	return WithTrigramList(m, ts)
}

// WithTrigramList returns m restructured as a second-order model over the
// label trigrams ts (any order; they are sorted, and must be distinct),
// with zero weights for them; the other weights are m's. A learner that
// gives every trigram a score (the tnt learner's interpolated
// probabilities) lists them all (AllTrigrams).
func WithTrigramList(m *Model, ts []lattice.Trigram) (*Model, error) {
	if !m.Transitions {
		return nil, fmt.Errorf("linear: a second-order model needs transitions")
	}
	ts = slices.Clone(ts)
	slices.SortFunc(ts, compareTrigrams)
	tb := m.TrigramBase()
	out := &Model{NumLabels: m.NumLabels, FeatOff: m.FeatOff, FeatLabel: m.FeatLabel, PairOff: m.PairOff, PairKey: m.PairKey,
		W: slices.Concat(m.W[:tb], make([]float64, len(ts)), m.W[tb:]), Transitions: true, Trigrams: ts}
	if err := out.setOrder2(); err != nil {
		return nil, err
	}
	return out, nil
}

// AllTrigrams returns every trigram over l labels, sorted: (a, b, c) for
// a in ⟨s⟩ and the labels, b a label, c a label or ⟨/s⟩ — (l+1)·l·(l+1)
// of them, so that a second-order lattice over them allows every label
// sequence.
func AllTrigrams(l int) []lattice.Trigram {
	ts := make([]lattice.Trigram, 0, (l+1)*l*(l+1))
	for a := int32(lattice.Boundary); a < int32(l); a++ {
		for b := int32(0); b < int32(l); b++ {
			for c := int32(lattice.Boundary); c < int32(l); c++ {
				ts = append(ts, lattice.Trigram{A: a, B: b, C: c})
			}
		}
	}
	return ts
}

func compareTrigrams(x, y lattice.Trigram) int {
	if x.A != y.A {
		return int(x.A - y.A)
	}
	if x.B != y.B {
		return int(x.B - y.B)
	}
	return int(x.C - y.C)
}

// setOrder2 builds the lattice structure of m's trigrams (unconstrained:
// a decoder's constraints are -Inf transitions, which forbid the same
// edges).
func (m *Model) setOrder2() error {
	if m.Trigrams == nil {
		m.order2.Store(nil)
		return nil
	}
	o, err := lattice.NewOrder2(m.NumLabels, m.Trigrams, nil)
	if err != nil {
		return err
	}
	m.order2.Store(o)
	return nil
}

// Order2 returns the lattice structure of a second-order model, nil for a
// first-order one.
func (m *Model) Order2() *lattice.Order2 {
	if m.Trigrams == nil {
		return nil
	}
	if o := m.order2.Load(); o != nil {
		return o
	}
	if err := m.setOrder2(); err != nil {
		panic(fmt.Sprintf("linear: %v (a model must be validated first)", err))
	}
	return m.order2.Load()
}

// SecondOrder reports whether m scores label trigrams.
func (m *Model) SecondOrder() bool { return m.Trigrams != nil }

// NumTrigrams returns the number of trigram weights T.
func (m *Model) NumTrigrams() int { return len(m.Trigrams) }

// TrigramBase returns the index in W of the first trigram weight, F+L*L+2L.
func (m *Model) TrigramBase() int {
	return len(m.FeatLabel) + m.NumLabels*m.NumLabels + 2*m.NumLabels
}

// TrigramWeights returns the T trigram weights in w, a vector laid out as
// W.
func (m *Model) TrigramWeights(w []float64) []float64 {
	tb := m.TrigramBase()
	return w[tb : tb+len(m.Trigrams)]
}

// Trigram returns the index in W of the weight of trigram t, or -1.
func (m *Model) Trigram(t lattice.Trigram) int {
	k, ok := slices.BinarySearchFunc(m.Trigrams, t, compareTrigrams)
	if !ok {
		return -1
	}
	return m.TrigramBase() + k
}

// validateTrigrams checks a second-order model: sorted trigrams the
// lattice accepts, transitions, neither local normalization nor hidden
// states (their objectives have no trigrams).
func (m *Model) validateTrigrams() error {
	if m.Trigrams == nil {
		return nil
	}
	switch {
	case !m.Transitions:
		return fmt.Errorf("linear: a second-order model without transitions")
	case m.Local:
		return fmt.Errorf("linear: a locally normalized model cannot be second order")
	case m.HiddenStates > 1:
		return fmt.Errorf("linear: a latent model (hidden states) cannot be second order")
	}
	for k := 1; k < len(m.Trigrams); k++ {
		if compareTrigrams(m.Trigrams[k-1], m.Trigrams[k]) >= 0 {
			return fmt.Errorf("linear: trigrams out of order at %d", k)
		}
	}
	return m.setOrder2()
}

// Chain returns the decoding chain of m's weights in w (a vector laid out
// as W) under c (nil: none), c constraining m's states: the transition,
// start and stop weights copied and prepared, and for a second-order
// model its structure and trigram weights, read from w in place.
func (m *Model) Chain(w []float64, c *lattice.Constraints) *lattice.Chain {
	f, l := len(m.FeatLabel), m.NumLabels
	ch := lattice.NewChain(w[f:f+l*l], w[f+l*l:f+l*l+l], w[f+l*l+l:f+l*l+2*l], m.StateConstraints(c))
	if m.SecondOrder() {
		ch.SetOrder2(m.Order2(), m.TrigramWeights(w))
	}
	return ch
}

// AddTrigrams adds scale to g[f] for the weight f of every trigram of the
// label sequence path (closing trigram included) that m has; g is laid
// out as W. It is Φ's trigram part, for gold counts and online updates.
func (m *Model) AddTrigrams(g []float64, path []int32, scale float64) {
	if !m.SecondOrder() {
		return
	}
	for i := 1; i <= len(path); i++ {
		if f := m.Trigram(lattice.TrigramAt(path, i)); f >= 0 {
			g[f] += scale
		}
	}
}
