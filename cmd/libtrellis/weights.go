package main

import (
	"encoding/json"

	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/trellis"
)

// weights is what trellis_weights returns: a model's parameters in the
// shape of CRFsuite's model dump, which sklearn-crfsuite's introspection
// attributes (attributes_, state_features_, transition_features_, size_)
// read. As CRFsuite keeps only features with a non-zero weight in its
// model file, so do these: Attributes are the attributes with at least one
// non-zero state feature (in the model's order), and State lists the
// non-zero state features as parallel arrays (an index into Attributes,
// one into States, the weight), compact in JSON.
type weights struct {
	// Size is the model file's size in bytes.
	Size int `json:"size"`
	// States are the lattice's states: the labels, or for a latent model
	// its hidden states ("B-NP#1").
	States     []string `json:"states"`
	Attributes []string `json:"attributes"`
	State      struct {
		Attr   []int     `json:"attr"`
		Label  []int     `json:"label"`
		Weight []float64 `json:"weight"`
	} `json:"state"`
	// Transitions[p][c] is the weight of state c after state p (every
	// pair, zeros included); Start and Stop weight the first and last
	// state. All three are empty for a model without transitions.
	Transitions [][]float64 `json:"transitions"`
	Start       []float64   `json:"start"`
	Stop        []float64   `json:"stop"`
}

// modelWeights reads m's parameters from its model file's bytes (the
// trellis package does not expose them).
func modelWeights(m *trellis.Model) ([]byte, error) {
	b, err := m.Bytes()
	if err != nil {
		return nil, err
	}
	file, err := model.Decode(b)
	if err != nil {
		return nil, err
	}
	return json.Marshal(weightsOf(file, len(b)))
}

func weightsOf(file *model.Model, size int) *weights {
	lm := file.Linear
	w := &weights{Size: size, Attributes: []string{}, Transitions: [][]float64{}, Start: []float64{}, Stop: []float64{}}
	w.State.Attr, w.State.Label, w.State.Weight = []int{}, []int{}, []float64{}
	for s := 0; s < lm.NumLabels; s++ {
		w.States = append(w.States, file.StateName(s))
	}
	// The attributes standing for a template's unseen values are
	// trellis's own, not the caller's.
	unknown := map[int]bool{}
	for _, a := range file.UnknownAttrs {
		unknown[int(a)] = true
	}
	for a := 0; a < lm.NumAttrs(); a++ {
		if unknown[a] {
			continue
		}
		idx := -1
		for f := lm.FeatOff[a]; f < lm.FeatOff[a+1]; f++ {
			if lm.W[f] == 0 {
				continue
			}
			if idx < 0 {
				idx = len(w.Attributes)
				w.Attributes = append(w.Attributes, file.Attrs[a])
			}
			w.State.Attr = append(w.State.Attr, idx)
			w.State.Label = append(w.State.Label, int(lm.FeatLabel[f]))
			w.State.Weight = append(w.State.Weight, lm.W[f])
		}
	}
	if lm.Transitions {
		n, tr := lm.NumLabels, lm.Trans()
		for p := 0; p < n; p++ {
			w.Transitions = append(w.Transitions, tr[p*n:(p+1)*n])
		}
		w.Start, w.Stop = lm.Start(), lm.Stop()
	}
	return w
}
