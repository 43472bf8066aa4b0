package linear

import "fmt"

// Continue returns the model to train further from init, a model trained
// before, on the structure m: its attribute and label IDs are init's with
// new ones appended (a mapper fitted from init's, see feature.FitOptions
// Base). The structure is the union of both, so no weight of init is
// lost and the new data's features are there too; init's weights are
// copied in (its transition, start and stop weights only when m has
// transitions) and every other weight is zero. m itself is not changed.
func Continue(init, m *Model) (*Model, error) {
	if init.PairOff != nil || m.PairOff != nil {
		return nil, fmt.Errorf("continuing a model with bigram templates (labels = \"bigram\") is not supported")
	}
	if init.SecondOrder() || m.SecondOrder() {
		return nil, fmt.Errorf("continuing a second-order model (transition order = 2) is not supported")
	}
	if init.NumAttrs() > m.NumAttrs() || init.NumLabels > m.NumLabels {
		return nil, fmt.Errorf("the model to continue has %d attributes and %d labels, more than the %d and %d of the data it continues on",
			init.NumAttrs(), init.NumLabels, m.NumAttrs(), m.NumLabels)
	}
	na, l, l0 := m.NumAttrs(), m.NumLabels, init.NumLabels
	off := make([]int32, na+1)
	lab := make([]int32, 0, m.NumFeatures()+init.NumFeatures())
	var from []int // index in init.W of each new feature, -1 for none
	for a := 0; a < na; a++ {
		cur := m.FeatLabel[m.FeatOff[a]:m.FeatOff[a+1]]
		var old []int32
		oldLo := 0
		if a < init.NumAttrs() {
			oldLo = int(init.FeatOff[a])
			old = init.FeatLabel[init.FeatOff[a]:init.FeatOff[a+1]]
		}
		// Merge two sorted label lists.
		i, j := 0, 0
		for i < len(cur) || j < len(old) {
			switch {
			case j == len(old) || (i < len(cur) && cur[i] < old[j]):
				lab, from = append(lab, cur[i]), append(from, -1)
				i++
			case i == len(cur) || old[j] < cur[i]:
				lab, from = append(lab, old[j]), append(from, oldLo+j)
				j++
			default:
				lab, from = append(lab, cur[i]), append(from, oldLo+j)
				i++
				j++
			}
		}
		off[a+1] = int32(len(lab))
	}
	out := New(l, off, lab, m.Transitions)
	out.Local = m.Local
	for f, k := range from {
		if k >= 0 {
			out.W[f] = init.W[k]
		}
	}
	if !m.Transitions {
		// A per-token classifier (maxent) continuing a chain model keeps
		// its transition weights at zero, as it was trained.
		return out, nil
	}
	trans, start, stop := out.Trans(), out.Start(), out.Stop()
	t0, s0, e0 := init.Trans(), init.Start(), init.Stop()
	for p := 0; p < l0; p++ {
		copy(trans[p*l:p*l+l0], t0[p*l0:p*l0+l0])
	}
	copy(start, s0)
	copy(stop, e0)
	return out, nil
}
