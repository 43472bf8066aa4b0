package linear

import (
	"fmt"

	"github.com/trellis-nlp/trellis/framework/lattice"
)

// A latent model (Sun et al. 2008's latent-dynamic CRF) splits each label
// into HiddenStates sub-states: its weights, lattices and decoders run
// over the L·k states exactly as a plain model's run over labels, and a
// decoded state path becomes a label path through LabelOf. Every reader of
// a model's paths or marginals maps states to labels with the helpers
// below; for a plain model they are the identity.

// States is the number of hidden states per label: HiddenStates, or 1 for
// a plain model.
func (m *Model) States() int { return max(m.HiddenStates, 1) }

// NumOutputLabels is the number of labels the model's paths map to.
func (m *Model) NumOutputLabels() int { return m.NumLabels / m.States() }

// LabelOf returns the label of state s.
func (m *Model) LabelOf(s int32) int32 { return s / int32(m.States()) }

// ToLabels replaces each state of path by its label, in place.
func (m *Model) ToLabels(path []int32) {
	k := int32(m.States())
	if k == 1 {
		return
	}
	for i, s := range path {
		path[i] = s / k
	}
}

// SumStates adds the state marginals of each row of src (N × NumLabels)
// into dst (N × NumOutputLabels), overwriting it: P(y_i = y) is the sum of
// the probabilities of y's states.
func (m *Model) SumStates(dst, src []float64) {
	k := m.States()
	for j := range dst {
		sum := 0.0
		for _, p := range src[j*k : (j+1)*k] {
			sum += p
		}
		dst[j] = sum
	}
}

// StateConstraints returns c, which constrains labels, over the model's
// states: a state inherits its label's allowed bigrams, first and last
// positions. For a plain model (or nil c) it returns c itself.
func (m *Model) StateConstraints(c *lattice.Constraints) *lattice.Constraints {
	k := m.States()
	if c == nil || k == 1 {
		return c
	}
	l := len(c.Start)
	s := l * k
	out := &lattice.Constraints{Trans: make([]bool, s*s), Start: make([]bool, s), Stop: make([]bool, s)}
	for p := 0; p < s; p++ {
		out.Start[p], out.Stop[p] = c.Start[p/k], c.Stop[p/k]
		for q := 0; q < s; q++ {
			out.Trans[p*s+q] = c.Trans[(p/k)*l+q/k]
		}
	}
	return out
}

// validateStates checks that the states divide evenly among the labels.
func (m *Model) validateStates() error {
	if m.HiddenStates < 0 || m.HiddenStates == 1 {
		return fmt.Errorf("linear: %d hidden states per label (a latent model has 2 or more, a plain one 0)", m.HiddenStates)
	}
	if m.NumLabels%m.States() != 0 {
		return fmt.Errorf("linear: %d states do not divide into labels of %d hidden states", m.NumLabels, m.HiddenStates)
	}
	return nil
}
