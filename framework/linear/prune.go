// prune.go rebuilds a model without some of its attributes and without its
// zero-weight features (Pruned); framework/prune decides which attributes
// can go without changing a score.

package linear

import "slices"

// Live reports whether attribute a has a state or pair feature whose
// weight is not zero.
func (m *Model) Live(a int) bool {
	for _, v := range m.W[m.FeatOff[a]:m.FeatOff[a+1]] {
		if v != 0 {
			return true
		}
	}
	return m.livePairs(a)
}

// livePairs reports whether attribute a has a pair feature whose weight is
// not zero.
func (m *Model) livePairs(a int) bool {
	if m.PairOff == nil {
		return false
	}
	pw := m.Pairs()
	for _, v := range pw[m.PairOff[a]:m.PairOff[a+1]] {
		if v != 0 {
			return true
		}
	}
	return false
}

// AnyLivePair reports whether some pair feature has a weight that is not
// zero (false without pair features).
func (m *Model) AnyLivePair() bool {
	for _, v := range m.Pairs() {
		if v != 0 {
			return true
		}
	}
	return false
}

// Pruned returns m with only the attributes a for which keep[a] is true
// (renumbered in order), each with only its state features whose weight
// is not zero. Their pair features lose their zero weights too, unless
// none of m's pair weights is non-zero: then they all stay, since a model
// without pair features has no per-position transitions at all. The
// transition, start, stop and trigram weights are m's.
//
// A sum over the features of a token starts at +0, and adding ±0 to it
// changes no bit, so on the attributes it keeps the pruned model scores
// every label and bigram exactly as m does.
func (m *Model) Pruned(keep []bool) *Model {
	var off, lab, pairOff, pairKey []int32
	var w, pw []float64
	off = append(off, 0)
	if m.PairOff != nil {
		pairOff = append(pairOff, 0)
	}
	wholePairs := !m.AnyLivePair()
	mp := m.Pairs()
	for a := range m.NumAttrs() {
		if !keep[a] {
			continue
		}
		for f := m.FeatOff[a]; f < m.FeatOff[a+1]; f++ {
			if m.W[f] != 0 {
				lab, w = append(lab, m.FeatLabel[f]), append(w, m.W[f])
			}
		}
		off = append(off, int32(len(lab)))
		if pairOff == nil {
			continue
		}
		for k := m.PairOff[a]; k < m.PairOff[a+1]; k++ {
			if wholePairs || mp[k] != 0 {
				pairKey, pw = append(pairKey, m.PairKey[k]), append(pw, mp[k])
			}
		}
		pairOff = append(pairOff, int32(len(pairKey)))
	}
	return &Model{NumLabels: m.NumLabels, FeatOff: off, FeatLabel: lab, PairOff: pairOff, PairKey: pairKey,
		W: slices.Concat(w, m.W[m.NumFeatures():m.PairBase()], pw), Transitions: m.Transitions, Local: m.Local,
		HiddenStates: m.HiddenStates, Trigrams: m.Trigrams}
}
