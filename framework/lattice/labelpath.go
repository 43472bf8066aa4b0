package lattice

import (
	"math"
	"slices"
)

// DefaultLabelPathWidth is the most state paths DecodeLabelPath
// enumerates per sentence when the Decoder's Width is not set.
const DefaultLabelPathWidth = 16

// LabelPath writes into dst the state path that best represents the
// labelling of largest probability — each labelling's probability being
// the sum over all its state paths — of a lattice over hidden states,
// States per label, and returns that path's score under s (-Inf when
// every sequence is forbidden). This is Sun & Tsujii 2009's latent-dynamic
// inference: state paths are enumerated best first (n-best Viterbi, one
// path, then two, four, … at a time), each new labelling's probability is
// computed exactly (forward-backward over its states only), and the
// search stops as soon as the best labelling found is at least as
// probable as all the labellings not yet seen put together, 1 − Σ of the
// seen ones: then no other can beat it, and the answer is exact. Most
// sentences stop at the first path (their best labelling has probability
// ≥ ½). Otherwise the search stops after Width state paths
// (DefaultLabelPathWidth when Width < 1) with the best labelling found.
// The path returned is the best state path of that labelling.
//
// Without hidden states (States < 2) a labelling is a state path and this
// is Viterbi. Unlike the other methods it allocates (n-best Viterbi's
// tables), so it is for tagging, not for inner loops.
func (d *Decoder) LabelPath(dst []int32, s *Scores) float64 {
	h := d.States
	if h < 2 {
		return d.ws.Viterbi(dst, s)
	}
	d.ws.checkL(s)
	if len(dst) != s.N {
		panic("lattice: LabelPath dst length differs from N")
	}
	if s.N == 0 {
		return 0
	}
	width := d.Width
	if width < 1 {
		width = DefaultLabelPathWidth
	}
	logZ := d.ws.ForwardBackward(s)
	if math.IsInf(logZ, -1) || math.IsNaN(logZ) {
		return math.Inf(-1)
	}
	// A labelling's probability does not depend on the pass: each is
	// computed once per call (seen, seenP), and a pass counts each of its
	// labellings once (counted).
	d.seen, d.seenP = d.seen[:0], d.seenP[:0]
	for k := 1; ; k = min(2*k, width) {
		found := d.nbest(s, k)
		d.counted = d.counted[:0]
		mass := 0.0 // Σ of the seen labellings' probabilities
		best, bestP := -1, -1.0
		for r := 0; r < found; r++ {
			labels := d.labelsOf(r, h)
			j := slices.IndexFunc(d.seen, func(q []int32) bool { return slices.Equal(q, labels) })
			if slices.Contains(d.counted, j) {
				continue
			}
			if j < 0 {
				j = len(d.seen)
				d.seen = append(d.seen, slices.Clone(labels))
				d.seenP = append(d.seenP, math.Exp(d.clampedLogZ(s, labels, h)-logZ))
			}
			d.counted = append(d.counted, j)
			p := d.seenP[j]
			mass += p
			if p > bestP {
				bestP, best = p, r
			}
			if bestP >= 1-mass {
				break // no labelling not yet seen can be more probable
			}
		}
		if best < 0 {
			return math.Inf(-1)
		}
		if bestP >= 1-mass || k == width || found < k {
			copy(dst, d.nbPaths[best])
			return SequenceScore(s, dst)
		}
	}
}

// nbest fills d.nbPaths and d.nbScores with the k best state paths of s.
func (d *Decoder) nbest(s *Scores, k int) int {
	for len(d.nbPaths) < k {
		d.nbPaths = append(d.nbPaths, nil)
	}
	for r := range d.nbPaths[:k] {
		d.nbPaths[r] = slices.Grow(d.nbPaths[r][:0], s.N)[:s.N]
	}
	d.nbScores = slices.Grow(d.nbScores[:0], k)[:k]
	return d.ws.NBest(d.nbPaths[:k], d.nbScores, s, k)
}

// labelsOf returns the labels of state path r, in d's scratch buffer.
func (d *Decoder) labelsOf(r, h int) []int32 {
	labels := slices.Grow(d.labels[:0], len(d.nbPaths[r]))[:len(d.nbPaths[r])]
	for i, st := range d.nbPaths[r] {
		labels[i] = st / int32(h)
	}
	d.labels = labels
	return labels
}

// clampedLogZ is the workspace's LabelsLogZ in the decoder's buffer.
func (d *Decoder) clampedLogZ(s *Scores, labels []int32, h int) float64 {
	d.clamped = slices.Grow(d.clamped[:0], s.N*s.L)[:s.N*s.L]
	return d.ws.LabelsLogZ(d.clamped, s, labels, h)
}

// LabelsLogZ is log Σ exp(score) over the state paths of s (a latent
// model's lattice, h states per label) whose states belong to labels:
// forward-backward, run in w, with every other state's score -Inf. The
// clamped state scores are written into clamped (length s.N·s.L), so that
// the call allocates nothing; s is not changed.
func (w *Workspace) LabelsLogZ(clamped []float64, s *Scores, labels []int32, h int) float64 {
	l := s.L
	cl := *s
	cl.State = clamped[:s.N*l]
	inf := math.Inf(-1)
	for i, y := range labels {
		row, src := cl.State[i*l:(i+1)*l], s.State[i*l:(i+1)*l]
		for st := range row {
			row[st] = inf
		}
		lo := int(y) * h
		copy(row[lo:lo+h], src[lo:lo+h])
	}
	return w.ForwardBackward(&cl)
}
