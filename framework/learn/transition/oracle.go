// This file holds greedy training's dynamic oracle: the label to update
// toward, and to roll in when following gold, after a history that may
// already be wrong.

package transition

import (
	"math"

	"github.com/trellis-nlp/trellis/framework/scheme"
)

// labelTypes returns each label's type (what follows its span prefix, or
// the label itself: B-NP and I-NP are NP, O is O) as a small integer.
func labelTypes(labels []string) []int32 {
	ids := map[string]int32{}
	out := make([]int32, len(labels))
	for y, lab := range labels {
		t := lab
		if _, typ := scheme.Split(lab); typ != "" {
			t = typ
		}
		id, ok := ids[t]
		if !ok {
			id = int32(len(ids))
			ids[t] = id
		}
		out[y] = id
	}
	return out
}

// oracle is the dynamic oracle's label at position i of a sentence whose
// gold labels are gold, after the rolled-in history prefix[:i], for a
// per-token (Hamming) loss: gold[i] when the scheme allows it after
// prefix[i-1]. Otherwise (I-NP after a predicted O under IOB2) every
// allowed label costs one error here, and the best are those after which
// the rest of gold is still allowed (gold[i+1], or the sentence's end);
// among them the first of gold[i]'s type (B-NP), else the first.
func (r *run) oracle(prefix, gold []int32, i int) int32 {
	if r.allowed(prefix, i, gold[i]) {
		return gold[i]
	}
	best := int32(-1)
	for y := int32(0); int(y) < r.nl; y++ {
		if !r.allowed(prefix, i, y) || !r.reaches(y, gold, i) {
			continue
		}
		if r.types != nil && r.types[y] == r.types[gold[i]] {
			return y
		}
		if best < 0 {
			best = y
		}
	}
	if best < 0 {
		return gold[i] // nothing better is allowed: the update is gold's
	}
	return best
}

// allowed reports whether label y may follow prefix[:i] (the start at 0).
func (r *run) allowed(prefix []int32, i int, y int32) bool {
	if i == 0 {
		return !math.IsInf(r.sc.Start[y], -1)
	}
	return !math.IsInf(r.sc.Trans[int(prefix[i-1])*r.nl+int(y)], -1)
}

// reaches reports whether gold[i+1] (or the sentence's end) may follow y.
func (r *run) reaches(y int32, gold []int32, i int) bool {
	if i+1 < len(gold) {
		return !math.IsInf(r.sc.Trans[int(y)*r.nl+int(gold[i+1])], -1)
	}
	return !math.IsInf(r.sc.Stop[y], -1)
}
