package lattice

import "math"

// The algorithms over a second-order lattice (Scores.Order2): the
// first-order ones run over the pair states, each step a sweep of the
// structure's edges. The weight of edge (a, b) → (b, c) into position i
// is the trigram's score plus the label bigram's transition into i
// (Trans, plus TransAt when set), and its target adds State[i][c]; so
// Viterbi, the forward-backward and n-best read the same Scores fields as
// their first-order forms, and per-position transitions (pair features)
// need nothing of their own. The scaled forward-backward multiplies the
// exponentiated trigram scores by the exponentiated transitions the
// first-order pass prepares (prepareEdges, and per position expBlock), so
// the exps per position are the L state scores, as in first order.

// work2 holds a Workspace's second-order buffers, grown to the longest
// sentence and the largest structure seen.
type work2 struct {
	order        *Order2 // of the last forwardBackward2
	states       int
	delta, alpha []float64 // N*S; alpha and beta in log space after the fallback
	beta         []float64
	back         []int32
	expState     []float64 // N*L
	sums         []float64 // N+1
	expTri       []float64 // per trigram
	edgeExp      []float64 // per edge: expTri times the shared transition's exp
	fac          []float64 // per edge: one position's factors (factors)
	edgeW        []float64 // per edge: Viterbi's trigram plus transition scores
	triExp       []float64 // per trigram: the inner expected counts of the last scaled pass
	stopExp      []float64 // per state: exp of the closing score, shifted
	tmp, acc     []float64 // S each
	triShift     float64
	triSpread    float64
	haveBlocks   bool // per-position blocks in Workspace.expAt
	// The trigram exponentials are cached (prepareTrigrams): valid for
	// triOrder's structure, the trigram scores cachedTri and the
	// Workspace's exponentiated transitions of version triEdges.
	cachedTri []float64
	triOrder  *Order2
	triEdges  uint64
	triValid  bool
}

func (w *Workspace) grow2(n int, o *Order2) *work2 {
	if w.o2 == nil {
		w.o2 = &work2{}
	}
	x := w.o2
	sn := len(o.first)
	x.states = sn
	if need := n * sn; cap(x.delta) < need {
		x.delta = make([]float64, 2*need)
		x.alpha = make([]float64, 2*need)
		x.beta = make([]float64, 2*need)
		x.back = make([]int32, 2*need)
	}
	if need := n * w.l; cap(x.expState) < need {
		x.expState = make([]float64, 2*need)
		x.sums = make([]float64, 2*n+1)
	}
	if cap(x.tmp) < sn {
		x.tmp = make([]float64, sn)
		x.acc = make([]float64, sn)
		x.stopExp = make([]float64, sn)
	}
	if cap(x.expTri) < len(o.trigrams) {
		x.expTri = make([]float64, len(o.trigrams))
		x.triExp = make([]float64, len(o.trigrams))
	}
	if cap(x.edgeExp) < len(o.edges) {
		x.edgeExp = make([]float64, len(o.edges))
		x.fac = make([]float64, len(o.edges))
		x.edgeW = make([]float64, len(o.edges))
	}
	return x
}

// edgeWeight returns the log weight of edge e into position i.
func edgeWeight(s *Scores, e *edge2, i int) float64 {
	v := s.Trigram[e.tri] + s.Trans[e.bc]
	if s.TransAt != nil {
		v += s.TransAt[(i-1)*s.L*s.L+int(e.bc)]
	}
	return v
}

// stopScore returns the log score of state st closing the sentence.
func stopScore(s *Scores, o *Order2, st int) float64 {
	v := s.Stop[o.second[st]]
	if k := o.stopTri[st]; k >= 0 {
		v += s.Trigram[k]
	}
	return v
}

// viterbi2 is Viterbi over a second-order lattice: ties go to the lowest
// state (pairs ordered by their first label, then their second), at the
// end and then at each predecessor.
func (w *Workspace) viterbi2(dst []int32, s *Scores) float64 {
	o := s.Order2
	n, l := s.N, s.L
	x := w.grow2(n, o)
	sn := x.states
	delta, back := x.delta[:n*sn], x.back[:n*sn]
	inf := math.Inf(-1)
	if sn == 0 {
		clear(dst)
		return inf
	}
	startScores2(delta[:sn], s)
	// Each edge's trigram plus transition score, once per sentence; with
	// TransAt each position adds its term (edgeWeight's sum, in its order).
	ew := x.edgeW[:len(o.edges)]
	for k := range ew {
		ew[k] = s.Trigram[o.tri[k]] + s.Trans[o.edges[k].bc]
	}
	for i := 1; i < n; i++ {
		prev, cur := delta[(i-1)*sn:i*sn], delta[i*sn:(i+1)*sn]
		bp := back[i*sn : (i+1)*sn]
		st := s.State[i*l : (i+1)*l]
		wi := ew
		if s.TransAt != nil {
			wi = x.fac[:len(ew)] // free outside the forward-backward
			at := s.TransAt[(i-1)*l*l : i*l*l]
			for k, v := range ew {
				wi[k] = v + at[o.edges[k].bc]
			}
		}
		for t := range cur {
			best, arg := inf, int32(0)
			lo, hi := o.into[t], o.into[t+1]
			from, ws := o.from[lo:hi], wi[lo:hi]
			ws = ws[:len(from)]
			for k, p := range from {
				if v := prev[p] + ws[k]; v > best {
					best, arg = v, p
				}
			}
			if hi > lo {
				best += st[o.edges[lo].c]
			}
			cur[t], bp[t] = best, arg
		}
	}
	best, arg := inf, int32(0)
	for st, v := range delta[(n-1)*sn : n*sn] {
		if v := v + stopScore(s, o, st); v > best {
			best, arg = v, int32(st)
		}
	}
	for i := n - 1; i >= 0; i-- {
		dst[i] = o.second[arg]
		arg = back[i*sn+int(arg)]
	}
	return best
}

// forwardBackward2 is ForwardBackward over a second-order lattice.
func (w *Workspace) forwardBackward2(s *Scores) float64 {
	w.grow2(s.N, s.Order2).order = s.Order2
	if len(s.Order2.first) == 0 {
		w.logSpace, w.logZ = true, math.Inf(-1)
		return w.logZ
	}
	if w.scaled2(s) {
		return w.logZ
	}
	w.logSpace = true
	w.logForwardBackward2(s)
	return w.logZ
}

// prepare2 exponentiates the trigram scores and the transitions (shared,
// or per position with TransAt) and returns the shifts taken out of the
// edges and the bound on their spread; ok is false when a per-position
// block is not finite.
func (w *Workspace) prepare2(s *Scores) (logZ, edgeSpread float64, ok bool) {
	x := w.o2
	w.prepareEdges(s)
	w.prepareTrigrams(s)
	n := s.N
	logZ = w.startShift + w.stopShift + float64(n-1)*x.triShift
	transSpread := w.transSpread
	x.haveBlocks = s.TransAt != nil
	if x.haveBlocks {
		var sp float64
		if logZ, sp, ok = w.expBlocks(s, logZ); !ok {
			return 0, 0, false
		}
		transSpread = max(transSpread, sp)
	} else {
		logZ += float64(n-1) * w.transShift
	}
	logZ += x.triShift // the closing factors' (prepareTrigrams)
	edgeSpread = transSpread + x.triSpread + math.Max(spread(s.Start), spread(s.Stop))
	return logZ, edgeSpread, true
}

// prepareTrigrams exponentiates the trigram scores, the shared edge
// factors and the closing factors, unless the last call did so for the
// same structure, trigram scores and exponentiated transitions (every
// sentence of a training pass shares them: comparing T floats is far
// cheaper than T exps).
func (w *Workspace) prepareTrigrams(s *Scores) {
	o, x := s.Order2, w.o2
	if x.triValid && x.triOrder == o && x.triEdges == w.edgesVersion && equal(x.cachedTri, s.Trigram) {
		return
	}
	x.cachedTri = append(x.cachedTri[:0], s.Trigram...)
	x.triOrder, x.triEdges, x.triValid = o, w.edgesVersion, true
	x.triShift = maxFinite(s.Trigram)
	x.triSpread = 0
	if lo, hi := finiteRange(s.Trigram); lo <= hi {
		x.triSpread = max(hi, 0) - min(lo, 0) // a closing pair without a trigram scores 0
	}
	expShifted(x.expTri[:len(s.Trigram)], s.Trigram, x.triShift)
	ee := x.edgeExp[:len(o.edges)]
	for k := range ee {
		g := &o.edges[k]
		ee[k] = x.expTri[g.tri] * w.expTrans[g.bp]
	}
	// The closing factor of each state: exp(Stop[b] − stopShift) times its
	// closing trigram's, shifted by triShift like the inner ones.
	f := math.Exp(-x.triShift)
	for st := range x.stopExp[:len(o.first)] {
		v := w.expStop[o.second[st]] * f
		if k := o.stopTri[st]; k >= 0 {
			v = w.expStop[o.second[st]] * x.expTri[k]
		}
		x.stopExp[st] = v
	}
}

// factors returns the exponentiated weights of the edges into position
// i: the shared ones, or with per-position transitions position i's,
// computed into fac.
func (x *work2) factors(w *Workspace, i int) []float64 {
	edges := x.order.edges
	if !x.haveBlocks {
		return x.edgeExp[:len(edges)]
	}
	blk, fac := w.block(i), x.fac[:len(edges)]
	for k := range fac {
		g := &edges[k]
		fac[k] = x.expTri[g.tri] * blk[g.bp]
	}
	return fac
}

// scaled2 runs the scaled pass; false means the log-space pass must run.
func (w *Workspace) scaled2(s *Scores) bool {
	o, x := s.Order2, w.o2
	n, l, sn := s.N, s.L, x.states
	logZ, edgeSpread, ok := w.prepare2(s)
	if !ok {
		return false
	}
	es := x.expState[:n*l]
	if logZ, ok = expStates(es, s, logZ, edgeSpread); !ok {
		return false
	}
	alpha, sums := x.alpha[:n*sn], x.sums[:n+1]
	clear(alpha[:sn])
	for _, st := range o.starts {
		b := o.second[st]
		alpha[st] = w.expStart[b] * es[b]
	}
	for i := 0; i < n; i++ {
		cur := alpha[i*sn : (i+1)*sn]
		if i > 0 {
			prev, fac, e := alpha[(i-1)*sn:i*sn], x.factors(w, i), es[i*l:(i+1)*l]
			for t := range cur {
				lo, hi := o.into[t], o.into[t+1]
				from, f := o.from[lo:hi], fac[lo:hi]
				f = f[:len(from)]
				v := 0.0
				for k, p := range from {
					v += prev[p] * f[k]
				}
				if len(from) > 0 {
					v *= e[o.edges[lo].c]
				}
				cur[t] = v
			}
		}
		sum := 0.0
		for _, v := range cur {
			sum += v
		}
		if !(sum > 0) || math.IsInf(sum, 1) {
			return false
		}
		sums[i] = sum
		scaleRow(cur, 1/sum)
		logZ += math.Log(sum)
	}
	sum := 0.0
	for st, a := range alpha[(n-1)*sn : n*sn] {
		sum += a * x.stopExp[st]
	}
	if !(sum > 0) || math.IsInf(sum, 1) {
		return false
	}
	sums[n] = sum
	w.logZ = logZ + math.Log(sum)
	w.backward2(s, sum)
	return true
}

// backward2 is the scaled backward pass, by the forward pass's sums.
//
// The same sweep adds up the inner trigrams' expected counts (triExp,
// which AddTrigramMarginals reads): edge k into position i+1 is
// α[i][from]·factor·q[to]/sums[i+1], and factor·q[to] is the backward
// step's own term, so the CRF's gradient needs no sweep of its own.
func (w *Workspace) backward2(s *Scores, stopSum float64) {
	o, x := s.Order2, w.o2
	n, l, sn := s.N, s.L, x.states
	beta, es := x.beta[:n*sn], x.expState[:n*l]
	last := beta[(n-1)*sn : n*sn]
	for st := range last {
		last[st] = x.stopExp[st] / stopSum
	}
	triExp := x.triExp[:len(o.trigrams)]
	clear(triExp)
	for i := n - 2; i >= 0; i-- {
		cur, next := beta[i*sn:(i+1)*sn], beta[(i+1)*sn:(i+2)*sn]
		fac, e := x.factors(w, i+1), es[(i+1)*l:(i+2)*l]
		q := x.tmp[:sn] // e[c]·next[t] for each target t = (·, c)
		for t := range q {
			q[t] = e[o.second[t]] * next[t]
		}
		inv := 1 / x.sums[i+1]
		a, alpha := x.acc[:sn], x.alpha[i*sn:(i+1)*sn]
		for st := range a {
			a[st] = alpha[st] * inv
		}
		clear(cur)
		from, to, tri := o.from[:len(fac)], o.to[:len(fac)], o.tri[:len(fac)]
		for k, f := range fac {
			p := from[k]
			v := f * q[to[k]]
			cur[p] += v
			triExp[tri[k]] += a[p] * v
		}
		scaleRow(cur, inv)
	}
}

// logForwardBackward2 is the always-finite pass: alpha and beta hold
// log-potentials.
func (w *Workspace) logForwardBackward2(s *Scores) {
	o, x := s.Order2, w.o2
	n, l, sn := s.N, s.L, x.states
	alpha, beta := x.alpha[:n*sn], x.beta[:n*sn]
	inf := math.Inf(-1)
	startScores2(alpha[:sn], s)
	for i := 1; i < n; i++ {
		prev, cur := alpha[(i-1)*sn:i*sn], alpha[i*sn:(i+1)*sn]
		for t := range cur {
			edges := o.edges[o.into[t]:o.into[t+1]]
			tmp := x.tmp[:len(edges)]
			for k := range edges {
				tmp[k] = prev[edges[k].from] + edgeWeight(s, &edges[k], i)
			}
			cur[t] = inf
			if len(edges) > 0 {
				cur[t] = LogSumExp(tmp) + s.State[i*l+int(edges[0].c)]
			}
		}
	}
	last := beta[(n-1)*sn : n*sn]
	tmp := x.tmp[:sn]
	for st := range last {
		last[st] = stopScore(s, o, st)
		tmp[st] = alpha[(n-1)*sn+st] + last[st]
	}
	w.logZ = LogSumExp(tmp)
	for i := n - 2; i >= 0; i-- {
		w.logBackwardStep2(s, i)
	}
}

// logBackwardStep2 computes log beta at position i from i+1: for each
// state a log-sum-exp over its outgoing edges, in two sweeps (the
// maximum, then the sum) since edges are grouped by target.
func (w *Workspace) logBackwardStep2(s *Scores, i int) {
	o, x := s.Order2, w.o2
	l, sn := s.L, x.states
	cur, next := x.beta[i*sn:(i+1)*sn], x.beta[(i+1)*sn:(i+2)*sn]
	mx, acc := x.tmp[:sn], x.acc[:sn]
	inf := math.Inf(-1)
	for st := range mx {
		mx[st], acc[st] = inf, 0
	}
	for k := range o.edges {
		g := &o.edges[k]
		if v := edgeWeight(s, g, i+1) + s.State[(i+1)*l+int(g.c)] + next[g.to]; v > mx[g.from] {
			mx[g.from] = v
		}
	}
	for k := range o.edges {
		g := &o.edges[k]
		if m := mx[g.from]; !math.IsInf(m, 0) {
			acc[g.from] += math.Exp(edgeWeight(s, g, i+1) + s.State[(i+1)*l+int(g.c)] + next[g.to] - m)
		}
	}
	for st := range cur {
		cur[st] = mx[st]
		if !math.IsInf(mx[st], 0) {
			cur[st] = mx[st] + math.Log(acc[st])
		}
	}
}

// stateMarginal2 returns P(state st at position i).
func (w *Workspace) stateMarginal2(i, st int) float64 {
	x := w.o2
	k := i*x.states + st
	if w.logSpace {
		if math.IsInf(w.logZ, -1) {
			return 0
		}
		return math.Exp(x.alpha[k] + x.beta[k] - w.logZ)
	}
	return x.alpha[k] * x.beta[k]
}

// edgeMarginal2 returns P(edge g into position i) after the log-space
// pass.
func (w *Workspace) edgeMarginal2(s *Scores, i int, g *edge2) float64 {
	x := w.o2
	sn, l := x.states, s.L
	a, b := x.alpha[(i-1)*sn+int(g.from)], x.beta[i*sn+int(g.to)]
	return math.Exp(a + edgeWeight(s, g, i) + s.State[i*l+int(g.c)] + b - w.logZ)
}

// AddTrigramMarginals adds scale times the expected count of every
// trigram of s.Order2 (Σi P(trigram at i), closing trigrams included) to
// dst (one entry per trigram) — the trigram part of a CRF gradient. It
// needs the Scores of the last ForwardBackward.
func (w *Workspace) AddTrigramMarginals(dst []float64, s *Scores, scale float64) {
	o := s.Order2
	if o == nil || len(dst) != len(o.trigrams) {
		panic("lattice: AddTrigramMarginals needs a second-order Scores and a dst per trigram")
	}
	if w.n == 0 || (w.logSpace && math.IsInf(w.logZ, -1)) {
		return
	}
	if w.logSpace {
		for i := 1; i < w.n; i++ {
			for k := range o.edges {
				dst[o.edges[k].tri] += scale * w.edgeMarginal2(s, i, &o.edges[k])
			}
		}
	} else {
		w.addTrigramScaled(dst, s, scale)
	}
	for st, k := range o.stopTri {
		if k >= 0 {
			dst[k] += scale * w.stateMarginal2(w.n-1, st)
		}
	}
}

// addTrigramScaled adds scale times the inner trigrams' expected counts
// that the scaled backward pass added up (backward2).
func (w *Workspace) addTrigramScaled(dst []float64, s *Scores, scale float64) {
	for k, v := range w.o2.triExp[:len(s.Order2.trigrams)] {
		dst[k] += scale * v
	}
}

// labelMarginal2 returns P(y_i = y): the sum of its pair states'.
func (w *Workspace) labelMarginal2(i, y int) float64 {
	o, sum := w.o2.order, 0.0
	for st, b := range o.second {
		if int(b) == y {
			sum += w.stateMarginal2(i, st)
		}
	}
	return sum
}

// labelMarginals2 writes P(y_i = y) for every position into dst (N*L).
func (w *Workspace) labelMarginals2(dst []float64) {
	x := w.o2
	o, l, sn := x.order, w.l, x.states
	clear(dst)
	for i := 0; i < w.n; i++ {
		row := dst[i*l : (i+1)*l]
		if w.logSpace {
			for st, b := range o.second {
				row[b] += w.stateMarginal2(i, st)
			}
			continue
		}
		a, be := x.alpha[i*sn:(i+1)*sn], x.beta[i*sn:(i+1)*sn]
		a, be = a[:len(o.second)], be[:len(o.second)]
		for st, b := range o.second {
			row[b] += a[st] * be[st]
		}
	}
}

// pairMarginals2 writes P(y_(i-1) = p, y_i = c) into dst (L*L): the
// marginal of the pair state (p, c) at i.
func (w *Workspace) pairMarginals2(dst []float64, s *Scores, i int) {
	clear(dst)
	for st, bg := range s.Order2.bigram {
		if bg >= 0 {
			dst[bg] = w.stateMarginal2(i, st)
		}
	}
}

// addBigramMarginals2 adds scale times Σi P(y_(i-1) = p, y_i = c) to dst.
func (w *Workspace) addBigramMarginals2(dst []float64, s *Scores, scale float64) {
	x := w.o2
	sn, bigram := x.states, s.Order2.bigram
	for i := 1; i < w.n; i++ {
		if w.logSpace {
			for st, bg := range bigram {
				if bg >= 0 {
					dst[bg] += scale * w.stateMarginal2(i, st)
				}
			}
			continue
		}
		a, be := x.alpha[i*sn:(i+1)*sn], x.beta[i*sn:(i+1)*sn]
		a, be = a[:len(bigram)], be[:len(bigram)]
		for st, bg := range bigram {
			if bg >= 0 {
				dst[bg] += scale * (a[st] * be[st])
			}
		}
	}
}

// startScores2 sets dst (one entry per state of s.Order2) to the log score
// of a path's first position: Start + State of the state's label for the
// states that open a sentence (⟨s⟩, b), -Inf for every other.
func startScores2(dst []float64, s *Scores) {
	o := s.Order2
	for k := range dst {
		dst[k] = math.Inf(-1)
	}
	for _, st := range o.starts {
		b := o.second[st]
		dst[st] = s.Start[b] + s.State[b]
	}
}
