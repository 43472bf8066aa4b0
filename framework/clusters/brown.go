package clusters

import (
	"context"
	"errors"
	"math"
)

// Options are the settings of a clustering.
type Options struct {
	// Clusters is C, the number of clusters (and the window of Liang's
	// algorithm); at least 1.
	Clusters int
	// Threads share the O(C²) work of a step (≤ 1: one). The result does
	// not depend on it.
	Threads int
	// Progress, if set, is called after each word is added and after each
	// merge of the hierarchy phase, with the steps done and the total.
	Progress func(done, total int)
}

// Result is a clustering: a bit string per word.
type Result struct {
	// Words and Count are the Counts' words; Paths[i] is Words[i]'s bit
	// string.
	Words []string
	Count []int64
	Paths []string
}

// brown is the state of the windowed algorithm over S = C+1 slots. Every
// matrix is S×S, row-major; only active slots hold a cluster.
type brown struct {
	counts *Counts
	s      int
	// b[i*s+j] is p(i,j): how often a word of i precedes a word of j,
	// over the tokens; p[i] is p(i).
	b, p []float64
	// lp[i] is log p(i); lpp[i*s+j] is log(p(i)+p(j)), lb[i*s+j] is
	// log b[i*s+j] (0 where b is 0): the hot loops take no logarithm of
	// their own where these do.
	lp, lpp, lb []float64
	// bt and lbt are b and lb transposed, so that freshLoss reads a
	// cluster's column as a row (contiguous memory).
	bt, lbt []float64
	// q2[i*s+j] is the AMI term of the pair, q(i,j)+q(j,i) (q(i,i) on the
	// diagonal); w[i] the sum of row i of q2 over the active slots.
	q2, w []float64
	// loss[i*s+j], i < j, is the AMI lost by merging i and j.
	loss   []float64
	active []bool
	// live lists the active slots in increasing order.
	live []int
	// slotOf[word] is the slot of the word's cluster, -1 before it is added.
	slotOf  []int32
	members [][]int32
	// Scratch rows for a merge (no allocation per step).
	qm, delta, alone []float64
	touched          []int
	isTouched        []bool
	par              *pool
}

// q is one AMI term: f log(f/(pi pj)), 0 when f is 0.
func q(f, pi, pj float64) float64 {
	if f <= 0 {
		return 0
	}
	return f * math.Log(f/(pi*pj))
}

// ql is q with the logarithms of pi and pj given: the hot loops take one
// logarithm per pair of clusters for p(i∪j) and reuse it.
func ql(f, lpi, lpj float64) float64 {
	if f <= 0 {
		return 0
	}
	return f * (math.Log(f) - lpi - lpj)
}

func newBrown(c *Counts, clusters, threads int) *brown {
	s := clusters + 1
	if len(c.Words) < s {
		s = len(c.Words)
	}
	b := &brown{
		counts: c, s: s,
		b: make([]float64, s*s), p: make([]float64, s), lp: make([]float64, s),
		lpp: make([]float64, s*s), lb: make([]float64, s*s),
		bt: make([]float64, s*s), lbt: make([]float64, s*s),
		q2: make([]float64, s*s), w: make([]float64, s),
		loss: make([]float64, s*s), active: make([]bool, s),
		slotOf: make([]int32, len(c.Words)), members: make([][]int32, s),
		qm: make([]float64, s), delta: make([]float64, s), alone: make([]float64, s), isTouched: make([]bool, s),
		par: newPool(threads),
	}
	for i := range b.slotOf {
		b.slotOf[i] = -1
	}
	return b
}

// pairQ2 is q2 of two slots from b and p (i == j: the self term).
func (b *brown) pairQ2(i, j int) float64 {
	s := b.s
	if i == j {
		return q(b.b[i*s+i], b.p[i], b.p[i])
	}
	return q(b.b[i*s+j], b.p[i], b.p[j]) + q(b.b[j*s+i], b.p[j], b.p[i])
}

// hyp is q2 between the cluster that merging i and j would make and x;
// lpij is log(p(i)+p(j)).
func (b *brown) hyp(i, j, x int, lpij float64) float64 {
	s := b.s
	f := b.sumLog(i*s+x, j*s+x) + b.sumLog(x*s+i, x*s+j)
	if f == 0 {
		return 0
	}
	return f - (b.b[i*s+x]+b.b[j*s+x]+b.b[x*s+i]+b.b[x*s+j])*(lpij+b.lp[x])
}

// sumLog is (b[u]+b[v]) log(b[u]+b[v]), from lb when one of them is 0.
func (b *brown) sumLog(u, v int) float64 {
	bu, bv := b.b[u], b.b[v]
	switch {
	case bu > 0 && bv > 0:
		return (bu + bv) * math.Log(bu+bv)
	case bu > 0:
		return bu * b.lb[u]
	case bv > 0:
		return bv * b.lb[v]
	}
	return 0
}

// sumLogOf is sumLog on values: (u+v) log(u+v), with lu = log u and
// lv = log v used when the other is 0.
func sumLogOf(u, v, lu, lv float64) float64 {
	switch {
	case u > 0 && v > 0:
		return (u + v) * math.Log(u+v)
	case u > 0:
		return u * lu
	case v > 0:
		return v * lv
	}
	return 0
}

// flog is f log f (0 for f = 0).
func flog(f float64) float64 {
	if f <= 0 {
		return 0
	}
	return f * math.Log(f)
}

// setLogs recomputes lb, lpp and lp for slot's row and column.
func (b *brown) setLogs(slot int) {
	s := b.s
	b.lp[slot] = math.Log(b.p[slot])
	for _, x := range b.live {
		for _, k := range [2]int{slot*s + x, x*s + slot} {
			b.lb[k] = 0
			if b.b[k] > 0 {
				b.lb[k] = math.Log(b.b[k])
			}
		}
		b.lbt[x*s+slot], b.lbt[slot*s+x] = b.lb[slot*s+x], b.lb[x*s+slot]
		if x != slot {
			b.lpp[slot*s+x] = math.Log(b.p[slot] + b.p[x])
			b.lpp[x*s+slot] = b.lpp[slot*s+x]
		}
	}
}

// hypl is hyp with log p(x) given too.
func (b *brown) hypl(i, j, x int, lpij, lpx float64) float64 {
	s := b.s
	return ql(b.b[i*s+x]+b.b[j*s+x], lpij, lpx) + ql(b.b[x*s+i]+b.b[x*s+j], lpx, lpij)
}

// freshLoss computes the loss of merging i and j from scratch, O(C).
func (b *brown) freshLoss(i, j int) float64 {
	s := b.s
	pij := b.p[i] + b.p[j]
	self := q(b.b[i*s+i]+b.b[i*s+j]+b.b[j*s+i]+b.b[j*s+j], pij, pij)
	l := b.w[i] + b.w[j] - b.q2[i*s+j] - self
	lpij := b.lpp[i*s+j]
	// hyp(i, j, x) for every x, on rows: b's rows i and j, bt's rows i
	// and j (b's columns), and their logarithms.
	ri, rj, ci, cj := b.b[i*s:(i+1)*s], b.b[j*s:(j+1)*s], b.bt[i*s:(i+1)*s], b.bt[j*s:(j+1)*s]
	lri, lrj, lci, lcj := b.lb[i*s:(i+1)*s], b.lb[j*s:(j+1)*s], b.lbt[i*s:(i+1)*s], b.lbt[j*s:(j+1)*s]
	for _, x := range b.live {
		if x == i || x == j {
			continue
		}
		h := sumLogOf(ri[x], rj[x], lri[x], lrj[x]) + sumLogOf(ci[x], cj[x], lci[x], lcj[x])
		if h != 0 {
			l -= h - (ri[x]+rj[x]+ci[x]+cj[x])*(lpij+b.lp[x])
		}
	}
	return l
}

// add makes word a cluster of its own in the lowest free slot.
func (b *brown) add(word int) {
	s := b.s
	slot := 0
	for b.active[slot] {
		slot++
	}
	c := b.counts
	tokens := float64(c.Tokens)
	b.p[slot] = float64(c.Count[word]) / tokens
	b.slotOf[word] = int32(slot)
	b.members[slot] = append(b.members[slot][:0], int32(word))
	for k := c.rightStart[word]; k < c.rightStart[word+1]; k++ {
		if t := b.slotOf[c.right[k]]; t >= 0 {
			b.b[slot*s+int(t)] += float64(c.rightN[k]) / tokens
			b.bt[int(t)*s+slot] = b.b[slot*s+int(t)]
		}
	}
	for k := c.leftStart[word]; k < c.leftStart[word+1]; k++ {
		if t := b.slotOf[c.left[k]]; t >= 0 && int(c.left[k]) != word {
			b.b[int(t)*s+slot] += float64(c.leftN[k]) / tokens
			b.bt[slot*s+int(t)] = b.b[int(t)*s+slot]
		}
	}
	// The pairs already there lose the terms they gain with the new
	// cluster: L(i,j) += q2(i,n) + q2(j,n) - q2(i∪j, n).
	b.activate(slot)
	b.setLogs(slot)
	b.deactivate(slot)
	b.touched = b.touched[:0]
	for _, x := range b.live {
		b.q2[x*s+slot] = b.pairQ2(x, slot)
		b.q2[slot*s+x] = b.q2[x*s+slot]
		b.w[x] += b.q2[x*s+slot]
		touched := b.b[x*s+slot] > 0 || b.b[slot*s+x] > 0
		b.isTouched[x] = touched
		if touched {
			b.touched = append(b.touched, x)
		}
	}
	b.par.each(len(b.touched), func(k int) {
		i := b.touched[k]
		for _, j := range b.live {
			if j == i || (b.isTouched[j] && j < i) {
				continue
			}
			lo, hi := min(i, j), max(i, j)
			if !b.isTouched[j] {
				// q2(j,n) = 0 and the logarithms of b cancel.
				b.loss[lo*s+hi] += (b.b[i*s+slot] + b.b[slot*s+i]) * (b.lpp[i*s+j] - b.lp[i])
				continue
			}
			b.loss[lo*s+hi] += b.q2[i*s+slot] + b.q2[j*s+slot] - b.hyp(i, j, slot, b.lpp[i*s+j])
		}
	})
	b.q2[slot*s+slot] = b.pairQ2(slot, slot)
	b.activate(slot)
	b.w[slot] = b.rowSum(slot)
	b.freshRow(slot)
}

// activate inserts slot into live, keeping it sorted.
func (b *brown) activate(slot int) {
	b.active[slot] = true
	b.live = append(b.live, 0)
	k := len(b.live) - 1
	for k > 0 && b.live[k-1] > slot {
		b.live[k] = b.live[k-1]
		k--
	}
	b.live[k] = slot
}

func (b *brown) deactivate(slot int) {
	b.active[slot] = false
	k := 0
	for b.live[k] != slot {
		k++
	}
	b.live = append(b.live[:k], b.live[k+1:]...)
}

// rowSum is w of a slot: its q2 with every active slot, itself included.
func (b *brown) rowSum(i int) float64 {
	var sum float64
	for _, x := range b.live {
		sum += b.q2[i*b.s+x]
	}
	return sum
}

// freshRow recomputes the losses of every pair with slot.
func (b *brown) freshRow(slot int) {
	s := b.s
	b.par.each(len(b.live), func(k int) {
		x := b.live[k]
		if x == slot {
			return
		}
		b.loss[min(x, slot)*s+max(x, slot)] = b.freshLoss(x, slot)
	})
}

// best returns the active pair with the least loss, the first in row
// order among equals.
func (b *brown) best() (int, int, float64) {
	s := b.s
	bi, bj, bl := -1, -1, math.Inf(1)
	for k, i := range b.live {
		row := b.loss[i*s:]
		for _, j := range b.live[k+1:] {
			if row[j] < bl {
				bi, bj, bl = i, j, row[j]
			}
		}
	}
	return bi, bj, bl
}

// merge joins active slots a < b into a; slot b becomes free.
func (b *brown) merge(a, c int) {
	s := b.s
	pm := b.p[a] + b.p[c]
	lpm, lpa, lpc := math.Log(pm), b.lp[a], b.lp[c]
	b.touched = b.touched[:0]
	for _, x := range b.live {
		if x == a || x == c {
			continue
		}
		f := b.b[x*s+a] + b.b[x*s+c]
		r := b.b[a*s+x] + b.b[c*s+x]
		b.qm[x] = q(f, b.p[x], pm) + q(r, pm, b.p[x])
		b.delta[x] = b.qm[x] - b.q2[x*s+a] - b.q2[x*s+c]
		touched := f > 0 || r > 0
		if touched {
			// With j untouched, L(i,j) changes by this alone: the
			// log(p(i)+p(j)) terms of the three clusters cancel.
			g := func(f, r, lpx float64) float64 { return flog(f) + flog(r) - (f+r)*lpx }
			b.alone[x] = b.delta[x] + g(b.b[x*s+a], b.b[a*s+x], lpa) + g(b.b[x*s+c], b.b[c*s+x], lpc) - g(f, r, lpm)
		}
		b.isTouched[x] = touched
		if touched {
			b.touched = append(b.touched, x)
		}
	}
	// An unrelated pair (i,j) changes only through its terms with a, c
	// and the merged cluster m.
	b.par.each(len(b.touched), func(k int) {
		i := b.touched[k]
		for _, j := range b.live {
			if j == i || j == a || j == c || (b.isTouched[j] && j < i) {
				continue
			}
			lo, hi := min(i, j), max(i, j)
			if !b.isTouched[j] {
				b.loss[lo*s+hi] += b.alone[i]
				continue
			}
			fm := b.b[i*s+a] + b.b[i*s+c] + b.b[j*s+a] + b.b[j*s+c]
			rm := b.b[a*s+i] + b.b[c*s+i] + b.b[a*s+j] + b.b[c*s+j]
			lpij := b.lpp[i*s+j]
			hm := ql(fm, lpij, lpm) + ql(rm, lpm, lpij)
			b.loss[lo*s+hi] += b.delta[i] + b.delta[j] + b.hypl(i, j, a, lpij, lpa) + b.hypl(i, j, c, lpij, lpc) - hm
		}
	})
	for _, x := range b.live {
		b.b[a*s+x] += b.b[c*s+x]
	}
	for _, x := range b.live {
		b.b[x*s+a] += b.b[x*s+c]
	}
	for _, x := range b.live {
		b.b[c*s+x], b.b[x*s+c] = 0, 0
	}
	for _, x := range b.live {
		b.bt[x*s+a], b.bt[a*s+x] = b.b[a*s+x], b.b[x*s+a]
		b.bt[c*s+x], b.bt[x*s+c] = 0, 0
	}
	b.p[a], b.p[c] = pm, 0
	b.deactivate(c)
	b.setLogs(a)
	for _, x := range b.live {
		if x != a {
			b.q2[a*s+x], b.q2[x*s+a] = b.qm[x], b.qm[x]
			b.w[x] += b.delta[x]
		}
	}
	b.q2[a*s+a] = b.pairQ2(a, a)
	b.w[a] = b.rowSum(a)
	for _, word := range b.members[c] {
		b.slotOf[word] = int32(a)
	}
	b.members[a] = append(b.members[a], b.members[c]...)
	b.members[c] = b.members[c][:0]
	b.freshRow(a)
}

// hook, in tests, sees the state before each merge of slots a < c.
type hook func(b *brown, a, c int)

// Cluster runs the windowed algorithm on counts.
func Cluster(ctx context.Context, counts *Counts, o Options) (*Result, error) {
	return cluster(ctx, counts, o, nil)
}

func cluster(ctx context.Context, counts *Counts, o Options, h hook) (*Result, error) {
	if o.Clusters < 1 {
		return nil, errors.New("the number of clusters must be at least 1")
	}
	if len(counts.Words) == 0 {
		return nil, errors.New("no words to cluster")
	}
	b := newBrown(counts, o.Clusters, o.Threads)
	defer b.par.stop()
	v := len(counts.Words)
	total := v + min(v, o.Clusters) - 1
	step := func(done int) error {
		if o.Progress != nil {
			o.Progress(done, total)
		}
		return ctx.Err()
	}
	mergeBest := func() (int, int) {
		i, j, _ := b.best()
		if h != nil {
			h(b, i, j)
		}
		b.merge(i, j)
		return i, j
	}
	for word := 0; word < v; word++ {
		b.add(word)
		if len(b.live) > o.Clusters {
			mergeBest()
		}
		if err := step(word + 1); err != nil {
			return nil, err
		}
	}
	paths, err := b.hierarchy(mergeBest, func(k int) error { return step(v + k) })
	if err != nil {
		return nil, err
	}
	r := &Result{Words: counts.Words, Count: counts.Count, Paths: make([]string, v)}
	for word := range r.Paths {
		r.Paths[word] = paths[b.slotOf[word]]
	}
	return r, nil
}

// hierarchy merges the active clusters down to one and returns the bit
// string of each slot's cluster as it was when the phase began.
func (b *brown) hierarchy(mergeBest func() (int, int), step func(int) error) ([]string, error) {
	// node[slot] is the tree node a slot holds; leaves are the slots.
	type pair struct{ zero, one int }
	node := make([]int, b.s)
	for i := range node {
		node[i] = i
	}
	var children []pair // children[k] is node s+k's
	slotOf := append([]int32(nil), b.slotOf...)
	for k := 1; len(b.live) > 1; k++ {
		i, j := mergeBest()
		children = append(children, pair{node[i], node[j]})
		node[i] = b.s + len(children) - 1
		if err := step(k); err != nil {
			return nil, err
		}
	}
	b.slotOf = slotOf
	paths := make([]string, b.s+len(children))
	var walk func(n int, path string)
	walk = func(n int, path string) {
		paths[n] = path
		if n >= b.s {
			ch := children[n-b.s]
			walk(ch.zero, path+"0")
			walk(ch.one, path+"1")
		}
	}
	root := b.s + len(children) - 1
	if len(children) == 0 {
		walk(b.live[0], "0")
	} else {
		walk(root, "")
	}
	return paths[:b.s], nil
}
