package lattice

import (
	"math"
	"slices"
)

// Chain is the sentence-independent half of a lattice — the transition,
// start and stop scores, constraints applied — prepared once for the
// Viterbi kernel instead of once per sentence: the transitions transposed
// (the column into a label is contiguous) and, for each label, the list of
// its predecessors whose transition is not -Inf.
//
// Those lists are what make constrained decoding cheap: in IOB2, I-X can
// only follow B-X or I-X, so the kernel visits 2 predecessors instead of
// L.
//
// A Chain owns copies of its scores. Attach points a Scores at them; after
// that they change only through SetTrans, SetStart and SetStop, which keep
// the prepared forms in step. The kernel only reads a Chain, so goroutines
// decoding with their own Workspace may share one.
type Chain struct {
	l                  int
	trans, start, stop []float64
	allow              *Constraints // nil: nothing forbidden
	// transT[cur*L+prev] is trans[prev*L+cur].
	transT []float64
	// preds[cur] lists the predecessors of cur whose transition is not
	// -Inf, in increasing prev: a -Inf transition can never win the max,
	// so skipping it changes nothing. It is nil when no transition into
	// cur is -Inf; the kernel then scans transT[cur*L:] instead. The
	// lists share one array, edges.
	preds [][]edge
	edges []edge
	// wide is whether Viterbi takes a position in one step over every
	// label and predecessor (viterbiStep, on a processor with AVX-512)
	// rather than label by label over the lists: it does L·⌈L/8⌉ vector
	// steps whatever the constraints, so it is chosen unless the lists
	// are short enough to cost less (wideCost).
	wide bool
	// order2 and trigram, when set (SetOrder2), make the lattices the
	// chain is attached to second order.
	order2  *Order2
	trigram []float64
}

// edge is one allowed transition prev → cur, stored with its score so
// that the kernel reads both in one cache line.
type edge struct {
	p int32
	w float64
}

// NewChain returns a chain over copies of trans (L*L, [prev*L+cur]),
// start and stop (L each) with the entries c forbids (nil: none) set to
// -Inf; they stay -Inf whatever the Set methods are given. It allocates; build it once per model or weight vector, not per
// sentence.
func NewChain(trans, start, stop []float64, c *Constraints) *Chain {
	l := len(start)
	if l == 0 || len(trans) != l*l || len(stop) != l {
		panic("lattice: NewChain shapes do not match")
	}
	ch := newChain(l)
	copy(ch.trans, trans)
	ch.start = append([]float64(nil), start...)
	ch.stop = append([]float64(nil), stop...)
	if c != nil {
		c.Apply(&Scores{L: l, Trans: ch.trans, Start: ch.start, Stop: ch.stop})
		// Kept, copied, for the Set methods to refuse forbidden entries.
		ch.allow = &Constraints{Trans: slices.Clone(c.Trans), Start: slices.Clone(c.Start), Stop: slices.Clone(c.Stop)}
	}
	ch.prepare()
	return ch
}

// newChain allocates the transition buffers of a chain over l labels
// (start and stop stay nil: the Workspace's own chain needs none).
func newChain(l int) *Chain {
	return &Chain{
		l:      l,
		trans:  make([]float64, l*l),
		transT: make([]float64, l*l),
		preds:  make([][]edge, l),
		edges:  make([]edge, 0, l*l),
	}
}

// prepare derives transT and the predecessor lists from trans.
func (c *Chain) prepare() {
	l := c.l
	c.edges = c.edges[:0]
	for cur := 0; cur < l; cur++ {
		first := len(c.edges)
		for prev := 0; prev < l; prev++ {
			w := c.trans[prev*l+cur]
			c.transT[cur*l+prev] = w
			if !math.IsInf(w, -1) {
				c.edges = append(c.edges, edge{int32(prev), w})
			}
		}
		c.preds[cur] = nil
		if n := len(c.edges) - first; n < l {
			// Never nil, even when empty: nil means "scan them all".
			c.preds[cur] = c.edges[first:len(c.edges):len(c.edges)]
		}
	}
	c.wide = hasAVX512 && wideCost(l) <= c.scanCost()
}

// wideCost is the work of viterbiStep at one position, in vector steps:
// every predecessor for each block of eight labels.
func wideCost(l int) int { return l * ((l + 7) / 8) }

// scanCost is the work of the label-by-label scan at one position, in the
// same units: a vector step per four predecessors and about six for the
// call and the lanes' merge where a label has no list, and about two per
// listed predecessor (a scalar step and its unpredictable branch) and two
// per list. The weights are rough; both ways give the same bits.
func (c *Chain) scanCost() int {
	cost := 0
	for _, es := range c.preds {
		if es == nil {
			cost += (c.l+3)/4 + 6
			continue
		}
		cost += 2*len(es) + 2
	}
	return cost
}

// Attach makes s use the chain: its Trans, Start and Stop become the
// chain's scores and Viterbi uses the prepared forms.
func (c *Chain) Attach(s *Scores) {
	s.Trans, s.Start, s.Stop, s.Chain = c.trans, c.start, c.stop, c
	s.Order2, s.Trigram = c.order2, c.trigram
}

// SetOrder2 makes the chain second order: o's structure with the trigram
// scores in trigram (one per o.Trigrams()), which the chain reads in
// place — a caller that changes them (an online learner's weights) needs
// no call to see the change.
func (c *Chain) SetOrder2(o *Order2, trigram []float64) {
	if o != nil && (o.l != c.l || len(trigram) != len(o.trigrams)) {
		panic("lattice: SetOrder2 shapes do not match the chain")
	}
	c.order2, c.trigram = o, trigram
}

// SetTrans sets the score of the bigram prev → cur to v, unless the
// chain's constraints forbid it (it then stays -Inf).
func (c *Chain) SetTrans(prev, cur int, v float64) {
	l := c.l
	k := prev*l + cur
	if c.allow != nil && !c.allow.Trans[k] {
		return
	}
	old := c.trans[k]
	c.trans[k] = v
	if math.IsInf(old, -1) != math.IsInf(v, -1) {
		// prev enters or leaves cur's predecessor list.
		c.prepare()
		return
	}
	c.transT[cur*l+prev] = v
	es := c.preds[cur]
	for j := range es {
		if int(es[j].p) == prev {
			es[j].w = v
			return
		}
	}
}

// SetStart sets the score of y opening a sentence, unless the
// constraints forbid it.
func (c *Chain) SetStart(y int, v float64) {
	if c.allow == nil || c.allow.Start[y] {
		c.start[y] = v
	}
}

// SetStop sets the score of y closing a sentence, unless the constraints
// forbid it.
func (c *Chain) SetStop(y int, v float64) {
	if c.allow == nil || c.allow.Stop[y] {
		c.stop[y] = v
	}
}
