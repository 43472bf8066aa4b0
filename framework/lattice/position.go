package lattice

import "math"

// The scaled forward-backward over per-position transitions (Scores.TransAt):
// the pass of scaled, with position i's transitions exponentiated into a
// block of their own, exp(Trans + TransAt_i − shift_i), instead of the one
// exp(Trans) shared by the sentence. The blocks are kept for the backward
// step and the pair marginals.
//
// Input-conditioned transitions are sparse — a position's attributes score
// few of the L² bigrams — so an entry whose TransAt term is 0 is the
// shared exp(Trans − transShift) times exp(transShift − shift_i), one
// multiply instead of an exp; only the entries a feature touched, and
// a locally normalized model's (which touches all), pay for an exp. With
// Scores.TransAtExp (exp(TransAt) from the caller, products of
// exponentiated weights) no entry does.

// scaledAt runs the scaled pass with per-position transitions; false
// means it underflowed or overflowed and the log-space pass must run.
func (w *Workspace) scaledAt(s *Scores) bool {
	w.prepareEdges(s)
	logZ, transSpread, ok := w.expBlocks(s, w.startShift+w.stopShift)
	if !ok {
		return false
	}
	edgeSpread := transSpread + math.Max(spread(s.Start), spread(s.Stop))
	return w.scaledPass(s, logZ, edgeSpread, true)
}

// expBlocks exponentiates the transitions into every position i ≥ 1 into
// a block of its own (expBlock), and returns logZ plus their shifts and
// the largest spread of a position's transitions; false when one over- or
// underflowed. Shared by the scaled passes of both orders.
func (w *Workspace) expBlocks(s *Scores, logZ float64) (float64, float64, bool) {
	n, l, lp := s.N, s.L, w.lp
	if need := max(n-1, 0) * l * lp; cap(w.expAt) < need {
		w.expAt = make([]float64, need, 2*need)
	}
	w.expAt = w.expAt[:max(n-1, 0)*l*lp]
	transSpread := 0.0
	for i := 1; i < n; i++ {
		shift, sp, ok := w.expBlock(s, i)
		if !ok {
			return 0, 0, false
		}
		logZ += shift
		transSpread = max(transSpread, sp)
	}
	return logZ, transSpread, true
}

// block returns the exponentiated transitions into position i (L rows of
// stride lp) of the last scaledAt.
func (w *Workspace) block(i int) []float64 {
	sz := w.l * w.lp
	return w.expAt[(i-1)*sz : i*sz]
}

// expBlock writes exp(Trans + TransAt_i − shift) into position i's block
// and returns shift and a bound on the spread of the finite transitions
// into i; ok is false when TransAt_i is not finite. shift is transShift
// plus TransAt_i's largest entry, an upper bound of every transition into
// i, so no entry overflows, and the spread bound (Trans's plus
// TransAt_i's) keeps them from underflowing (maxSpread).
func (w *Workspace) expBlock(s *Scores, i int) (shift, sp float64, ok bool) {
	l, lp := w.l, w.lp
	at := s.TransAt[(i-1)*l*l : i*l*l]
	lo, hi := at[0], at[0]
	for _, v := range at {
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	if d := hi - lo; d-d != 0 { // ±Inf or NaN
		return 0, 0, false
	}
	shift = w.transShift + hi
	f := math.Exp(-hi)
	blk := w.block(i)
	if s.TransAtExp != nil && hi < 700 { // exp(hi) and every entry of the block finite
		e := s.TransAtExp[(i-1)*l*l : i*l*l]
		for p := 0; p < l; p++ {
			row, et, ep := blk[p*lp:(p+1)*lp], w.expTrans[p*lp:(p+1)*lp], e[p*l:(p+1)*l]
			et = et[:len(row)]
			ep = ep[:l]
			for c := range ep {
				row[c] = et[c] * f * ep[c]
			}
		}
		return shift, w.transSpread + hi - lo, true
	}
	for p := 0; p < l; p++ {
		row, et := blk[p*lp:(p+1)*lp], w.expTrans[p*lp:(p+1)*lp]
		et = et[:len(row)]
		for c, v := range et {
			row[c] = v * f // the padding stays 0
		}
		a, tr := at[p*l:(p+1)*l], s.Trans[p*l:(p+1)*l]
		tr = tr[:len(a)]
		for c, v := range a {
			if v != 0 {
				row[c] = math.Exp(tr[c] + v - shift)
			}
		}
	}
	return shift, w.transSpread + hi - lo, true
}

// addPerPositionMarginals adds scale times Σi P(y_(i-1)=p, y_i=c) to dst
// (L*L) after a scaled pass over per-position transitions: per position,
// α[i-1] ⊗ (e[i]·β[i]/sums[i]) times that position's block.
func (w *Workspace) addPerPositionMarginals(dst []float64, scale float64) {
	l, lp := w.l, w.lp
	q := w.tmp[:l]
	for i := 1; i < w.n; i++ {
		b, e := w.beta[i*l:(i+1)*l], w.expState[i*l:(i+1)*l]
		f := scale / w.sums[i]
		for c := range q {
			q[c] = e[c] * b[c] * f
		}
		blk := w.block(i)
		for p := 0; p < l; p++ {
			a := w.alpha[(i-1)*l+p]
			if a == 0 {
				continue
			}
			d, tr := dst[p*l:(p+1)*l], blk[p*lp:p*lp+l]
			tr = tr[:len(d)]
			for c := range d {
				d[c] += a * tr[c] * q[c]
			}
		}
	}
}

// PairMarginals writes P(y_(i-1) = p, y_i = c) for every bigram into dst
// (L*L, [p*L+c]), for 1 <= i < N, from the last ForwardBackward, which
// must have run on s.
func (w *Workspace) PairMarginals(dst []float64, s *Scores, i int) {
	l := w.l
	if len(dst) != l*l {
		panic("lattice: PairMarginals dst length differs from L*L")
	}
	if w.second {
		w.pairMarginals2(dst, s, i)
		return
	}
	if w.logSpace {
		for p := 0; p < l; p++ {
			for c := 0; c < l; c++ {
				dst[p*l+c] = w.PairMarginal(s, i, p, c)
			}
		}
		return
	}
	t := w.expTrans
	if w.perPosition {
		t = w.block(i)
	}
	f := 1 / w.sums[i]
	q := w.tmp[:l]
	b, e := w.beta[i*l:(i+1)*l], w.expState[i*l:(i+1)*l]
	for c := range q {
		q[c] = e[c] * b[c] * f
	}
	for p := 0; p < l; p++ {
		a := w.alpha[(i-1)*l+p]
		d, tr := dst[p*l:(p+1)*l], t[p*w.lp:p*w.lp+l]
		for c := range d {
			d[c] = a * tr[c] * q[c]
		}
	}
}
