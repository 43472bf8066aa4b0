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
	if s.Order2 != nil {
		return w.viterbi2(dst, s)
	}
	c := w.chainOf(s)
	w.grow(n)
	delta, back := w.delta[:n*l], w.back[:n*l]
	state := s.State[:n*l]
	start, stop := s.Start[:l], s.Stop[:l]
	for y := 0; y < l; y++ {
		delta[y] = start[y] + state[y]
	}
	// The steps stay inline: as a function of six slices, called once per
	// position, the step made perceptron training slower (docs/results.md,
	// "Measurements behind design choices in the code").
	transT, preds := c.transT, c.preds
	for i := 1; i < n; i++ {
		if s.TransAt != nil {
			transT, preds = w.positionTrans(c, s.TransAt, i)
		}
		prev := delta[(i-1)*l : i*l]
		cur := delta[i*l : (i+1)*l]
		bp := back[i*l : (i+1)*l]
		st := state[i*l : (i+1)*l]
		if s.TransAt == nil && c.wide {
			viterbiStep(cur, bp, prev, c.trans, st)
			continue
		}
		// Resliced to len(cur), so that the compiler drops the bounds
		// checks on bp[y], st[y] and ps[y].
		bp, st, ps := bp[:len(cur)], st[:len(cur)], preds[:len(cur)]
		for y := range cur {
			if es := ps[y]; es != nil {
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
			// One scan, strictly greater: ties stay with the lowest p
			// (maxPlus: four lanes per instruction on amd64, branch
			// free, merged so the result is the scalar scan's).
			best, arg := maxPlus(prev, transT[y*l:(y+1)*l])
			cur[y] = best + st[y]
			bp[y] = arg
		}
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
