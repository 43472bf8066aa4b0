package lattice

import "math"

// Viterbi writes the best label sequence of s into dst (length s.N) and
// returns its score. Ties go to the lowest label index — the last
// position's label first, then each predecessor in turn as the path is
// traced back — so decoding is deterministic. When every sequence is
// forbidden the score is -Inf.
//
// This is the one Viterbi kernel: the tagger, the perceptron's training
// decode and dev scoring all come here. With s.Chain set it reads the
// chain's prepared transitions; without, it prepares s.Trans itself and
// keeps the result while s.Trans stays the same, at the cost of comparing
// L*L scores per call. With s.TransAt set each position's transitions are
// the chain's plus that position's terms; the inner loop is the same.
func (w *Workspace) Viterbi(dst []int32, s *Scores) float64 {
	w.checkL(s)
	n, l := s.N, s.L
	if len(dst) != n {
		panic("lattice: Viterbi dst length differs from N")
	}
	if n == 0 {
		return 0
	}
	c := w.chainOf(s)
	w.grow(n)
	delta, back := w.delta[:n*l], w.back[:n*l]
	state := s.State[:n*l]
	start, stop := s.Start[:l], s.Stop[:l]
	for y := 0; y < l; y++ {
		delta[y] = start[y] + state[y]
	}
	transT, preds := c.transT, c.preds
	for i := 1; i < n; i++ {
		if s.TransAt != nil {
			transT, preds = w.positionTrans(c, s.TransAt, i)
		}
		viterbiStep(delta[i*l:(i+1)*l], back[i*l:(i+1)*l], delta[(i-1)*l:i*l], state[i*l:(i+1)*l], transT, preds)
	}
	last := delta[(n-1)*l : n*l]
	best, arg := math.Inf(-1), int32(0)
	for y, v := range last {
		if v := v + stop[y]; v > best {
			best, arg = v, int32(y)
		}
	}
	dst[n-1] = arg
	for i := n - 1; i > 0; i-- {
		dst[i-1] = back[i*l+int(dst[i])]
	}
	return best
}

// viterbiStep computes one position of the Viterbi table: cur[y] is the
// best score of a path ending in y (prev being the previous position's
// row, st this position's state scores) and bp[y] its predecessor.
// transT is [cur*L+prev]; preds[y], unless nil, lists y's predecessors
// whose transition is not -Inf, with the same scores.
func viterbiStep(cur []float64, bp []int32, prev, st, transT []float64, preds [][]edge) {
	l := len(prev)
	bp, st, preds = bp[:len(cur)], st[:len(cur)], preds[:len(cur)]
	for y := range cur {
		if es := preds[y]; es != nil {
			// prev[p] + -Inf is -Inf (or NaN), which is never > best:
			// skipping those p changes nothing.
			best, arg := math.Inf(-1), int32(0)
			for _, e := range es {
				if v := prev[e.p] + e.w; v > best {
					best, arg = v, e.p
				}
			}
			cur[y] = best + st[y]
			bp[y] = arg
			continue
		}
		tr := transT[y*l : (y+1)*l]
		tr = tr[:len(prev)]
		// Four independent running maxima, over p mod 4, then merged:
		// the same maximum, ties to the lowest p (so the same result as
		// one scan), with a quarter of the dependency chain.
		ninf := math.Inf(-1)
		b0, b1, b2, b3 := ninf, ninf, ninf, ninf
		a0, a1, a2, a3 := 0, 0, 0, 0
		p := 0
		for ; p+3 < len(prev); p += 4 {
			if v := prev[p] + tr[p]; v > b0 {
				b0, a0 = v, p
			}
			if v := prev[p+1] + tr[p+1]; v > b1 {
				b1, a1 = v, p+1
			}
			if v := prev[p+2] + tr[p+2]; v > b2 {
				b2, a2 = v, p+2
			}
			if v := prev[p+3] + tr[p+3]; v > b3 {
				b3, a3 = v, p+3
			}
		}
		for ; p < len(prev); p++ {
			if v := prev[p] + tr[p]; v > b0 {
				b0, a0 = v, p
			}
		}
		b0, a0 = better(b0, a0, b1, a1)
		b2, a2 = better(b2, a2, b3, a3)
		b0, a0 = better(b0, a0, b2, a2)
		cur[y] = b0 + st[y]
		bp[y] = int32(a0)
	}
}

// better merges two running maxima of the Viterbi scan: the larger, or on
// a tie the one with the lower index. A maximum still at -Inf was never
// set (its index means nothing), and loses to any set one.
func better(b0 float64, a0 int, b1 float64, a1 int) (float64, int) {
	if b1 > b0 || (b1 == b0 && b1 > math.Inf(-1) && a1 < a0) {
		return b1, a1
	}
	return b0, a0
}

// chainOf returns the prepared transitions of s: its own Chain, or the
// Workspace's, prepared from s.Trans unless it already was.
func (w *Workspace) chainOf(s *Scores) *Chain {
	if c := s.Chain; c != nil {
		if &c.trans[0] != &s.Trans[0] {
			panic("lattice: Scores.Trans is not its Chain's; use Chain.Attach")
		}
		return c
	}
	if w.chain == nil {
		w.chain = newChain(w.l)
	} else if w.chainValid && equal(w.chain.trans, s.Trans) {
		return w.chain
	}
	copy(w.chain.trans, s.Trans)
	w.chain.prepare()
	w.chainValid = true
	return w.chain
}

// positionTrans returns the transitions into position i (1 <= i < N)
// under per-position terms at: the chain's plus at's block for i, in the
// chain's layout. The predecessor lists keep their shape: a transition
// that is -Inf in the chain stays -Inf (or NaN) whatever is added, so it
// still can never win.
func (w *Workspace) positionTrans(c *Chain, at []float64, i int) ([]float64, [][]edge) {
	l := w.l
	if w.posT == nil {
		w.posT = make([]float64, l*l)
		w.posPreds = make([][]edge, l)
		w.posEdges = make([]edge, l*l)
	}
	a := at[(i-1)*l*l : i*l*l]
	k := 0
	for cur := 0; cur < l; cur++ {
		for prev := 0; prev < l; prev++ {
			w.posT[cur*l+prev] = c.transT[cur*l+prev] + a[prev*l+cur]
		}
		w.posPreds[cur] = nil
		if es := c.preds[cur]; es != nil {
			pos := w.posEdges[k : k+len(es) : k+len(es)]
			for j, e := range es {
				pos[j] = edge{e.p, e.w + a[int(e.p)*l+cur]}
			}
			w.posPreds[cur] = pos
			k += len(es)
		}
	}
	return w.posT, w.posPreds
}
