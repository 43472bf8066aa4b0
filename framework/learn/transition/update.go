// This file holds the updates: the feature difference Φ(gold) − Φ(pred)
// of two prefixes (delta), the beam perceptron's early and max-violation
// updates, and greedy training on roll-ins.

package transition

import "slices"

// delta accumulates a feature difference before it is applied: acc[f] is
// the sum for weight f, seen whether f is in feats, feats the distinct
// weights in the order first met.
type delta struct {
	acc   []float64
	seen  []bool
	feats []int32
}

func (d *delta) init(n int) { d.acc, d.seen = make([]float64, n), make([]bool, n) }

func (d *delta) reset() { d.feats = d.feats[:0] }

func (d *delta) add(f int, v float64) {
	if !d.seen[f] {
		d.seen[f] = true
		d.feats = append(d.feats, int32(f))
	}
	d.acc[f] += v
}

// apply adds the difference to r's weights (in the order met) and clears
// it; it reports whether a weight changed.
func (d *delta) apply(r *run) (changed bool) {
	for _, f := range d.feats {
		if v := d.acc[f]; v != 0 {
			r.add(int(f), v)
			changed = true
		}
		d.acc[f], d.seen[f] = 0, false
	}
	d.feats = d.feats[:0]
	return changed
}

// features says which of a position's features position adds: all of
// them, or only the history features (the rest cancel between two
// sequences that agree on the label and its predecessor).
type features int

const (
	allFeatures features = iota
	historyOnly
)

// position adds sign times the features of label y at position i after
// the labels prefix[:i] of the sentence whose first token is tok0: its
// state features, the transition into it (start at 0), the stop feature
// if i is the sentence's last position, and its history features (only
// these with historyOnly).
func (r *run) position(tok0 int, prefix []int32, i int, y int32, sign float64, which features) {
	d := r.p.Train
	tok := tok0 + i
	if which == allFeatures {
		for k := d.TokenOff[tok]; k < d.TokenOff[tok+1]; k++ {
			if f := r.m.Feature(d.Attrs[k], y); f >= 0 {
				r.delta.add(f, sign*d.Value(k))
			}
		}
		if r.p.Transitions {
			l := r.nl
			if i == 0 {
				r.delta.add(r.nf+l*l+int(y), sign)
			} else {
				r.delta.add(r.nf+int(prefix[i-1])*l+int(y), sign)
			}
			if i == r.sc.N-1 {
				r.delta.add(r.nf+l*l+l+int(y), sign)
			}
		}
	}
	if r.lay.H() > 0 {
		r.act = r.lay.Active(r.act[:0], prefix, i, &r.in.Context)
		for _, h := range r.act {
			r.delta.add(r.hBase+int(h)*r.nl+int(y), sign)
		}
	}
}

// prefixes adds Φ(gold[:j+1]) − Φ(pred[:j+1]) to the delta (the stop
// feature only when j is the last position).
func (r *run) prefixes(tok0 int, gold, pred []int32, j int) {
	for i := 0; i <= j; i++ {
		which := allFeatures
		if gold[i] == pred[i] && (i == 0 || gold[i-1] == pred[i-1]) {
			which = historyOnly
		}
		r.position(tok0, gold, i, gold[i], 1, which)
		r.position(tok0, pred, i, pred[i], -1, which)
	}
}

// beam trains on one sentence with beam search and the configured
// update: early stops at the first position where the gold prefix falls
// out of the beam; max-violation searches to the end and updates at the
// position where the best prefix's score exceeds the gold prefix's by
// most. Neither updates when the search's best sequence is gold.
func (r *run) beam(tok0 int, gold []int32) {
	n := len(gold)
	r.srch.Begin(&r.in)
	goldScore, worstAt, worstV := 0.0, -1, 0.0
	for i := 0; i < n; i++ {
		r.srch.Advance(&r.in)
		r.srch.Local(r.cand, &r.in, gold, i)
		goldScore += r.cand[gold[i]]
		best, bestScore := r.srch.Item(0)
		switch r.update {
		case Early:
			if r.srch.Find(gold[:i+1]) < 0 {
				r.prefixes(tok0, gold, best, i)
				return
			}
		case MaxViolation:
			if v := bestScore - goldScore; !slices.Equal(best, gold[:i+1]) && (worstAt < 0 || v > worstV) {
				worstAt, worstV = i, v
				r.worst = append(r.worst[:0], best...)
			}
		}
	}
	best, _ := r.srch.Item(0)
	if slices.Equal(best, gold) {
		return
	}
	if r.update == Early {
		r.prefixes(tok0, gold, best, n-1)
		return
	}
	r.prefixes(tok0, gold, r.worst, worstAt)
}

// greedy trains on one sentence by greedy search on a roll-in: at each
// position the model's label is predicted after the labels rolled in so
// far, and where it is not the dynamic oracle's label (gold, unless the
// scheme forbids gold after that history: oracle), the update is toward
// the oracle's label against it given that same history; the label
// rolled in next is the oracle's with probability beta, else the
// prediction. It returns the labels rolled in.
func (r *run) greedy(tok0 int, gold []int32, beta float64) []int32 {
	r.rolled = r.rolled[:0]
	for i := range gold {
		r.srch.Local(r.cand, &r.in, r.rolled, i)
		pred := argmax(r.cand)
		want := r.oracle(r.rolled, gold, i)
		if pred != want {
			r.position(tok0, r.rolled, i, want, 1, allFeatures)
			r.position(tok0, r.rolled, i, pred, -1, allFeatures)
		}
		next := want
		if beta < 1 && (beta <= 0 || r.draws.Float64() >= beta) {
			next = pred
		}
		r.rolled = append(r.rolled, next)
	}
	return r.rolled
}

// argmax is the first label of the highest score.
func argmax(v []float64) int32 {
	best := 0
	for y := 1; y < len(v); y++ {
		if v[y] > v[best] {
			best = y
		}
	}
	return int32(best)
}
