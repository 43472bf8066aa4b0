package lattice

import "math"

type nbestEntry struct {
	score float64
	prev  int32 // label at i-1
	rank  int32 // rank of the entry of prev at i-1
}

// NBest finds the k best label sequences of s exactly (list Viterbi: each
// lattice node keeps its k best partial paths). It writes them, best first,
// into dst[0..] and their scores into scores, and returns how many it found:
// fewer than k when the lattice has fewer sequences with a finite score.
// dst needs k rows; each row is resized to N. Ties are broken by label
// index, so the order is deterministic.
func (w *Workspace) NBest(dst [][]int32, scores []float64, s *Scores, k int) int {
	w.checkL(s)
	if k <= 0 || len(dst) < k || len(scores) < k {
		panic("lattice: NBest needs k > 0 and room for k paths and scores")
	}
	n, l := s.N, s.L
	if n == 0 {
		dst[0] = dst[0][:0]
		scores[0] = 0
		return 1
	}
	if s.Order2 != nil {
		return nbest2(dst, scores, s, k)
	}
	tab := newNBestTable(n, l, k)
	for y := 0; y < l; y++ {
		v := s.Start[y] + s.State[y]
		if !math.IsInf(v, -1) && !math.IsNaN(v) {
			tab.entries[y*k] = nbestEntry{score: v, prev: -1, rank: -1}
			tab.count[y] = 1
		}
	}
	trans, head := make([]float64, l), make([]int32, l)
	for i := 1; i < n; i++ {
		for y := 0; y < l; y++ {
			for p := 0; p < l; p++ {
				trans[p], head[p] = s.trans(i, p, y), 0
			}
			tab.merge(i, y, nodeEdges{trans: trans, head: head, st: s.State[i*l+y]})
		}
	}
	return tab.finish(dst, scores, make([]nbestEntry, 0, l*k), s.Stop, nil)
}

// nbestTable holds every node's k best partial paths in an n-best search
// over n positions of ns states each.
type nbestTable struct {
	// entries[(i*ns+st)*k+r] is the r-th best partial path ending in
	// state st at position i; count[i*ns+st] of them are valid.
	entries []nbestEntry
	count   []int32
	n, ns   int
	k       int
}

func newNBestTable(n, ns, k int) nbestTable {
	return nbestTable{entries: make([]nbestEntry, n*ns*k), count: make([]int32, n*ns), n: n, ns: ns, k: k}
}

// nodeEdges are the edges into one node, for nbestTable.merge.
type nodeEdges struct {
	// Edge j comes from state from[j] at the previous position (from
	// nil: from state j) and adds trans[j] to its paths' scores.
	from  []int32
	trans []float64
	// head[j] is the next rank of edge j to merge (zero on entry).
	head []int32
	st   float64 // added to every edge's scores (the node's state score)
}

// finish closes the search: it adds each state's stop score (len(stop)
// is ns) to its last-position entries, keeps the k best, and writes their
// paths, each state mapped to its label by label (nil: the state is the
// label), into dst and their scores into scores. cand is scratch. It
// returns how many it found.
func (t *nbestTable) finish(dst [][]int32, scores []float64, cand []nbestEntry, stop []float64, label []int32) int {
	entries, count, n, ns, k := t.entries, t.count, t.n, t.ns, t.k
	cand = cand[:0]
	for st := 0; st < ns; st++ {
		base := ((n-1)*ns + st) * k
		for r := 0; r < int(count[(n-1)*ns+st]); r++ {
			v := entries[base+r].score + stop[st]
			if math.IsInf(v, -1) || math.IsNaN(v) {
				continue
			}
			cand = append(cand, nbestEntry{score: v, prev: int32(st), rank: int32(r)})
		}
	}
	found := selectTop(cand, k)
	for j := 0; j < found; j++ {
		path := dst[j]
		if cap(path) < n {
			path = make([]int32, n)
		}
		path = path[:n]
		st, r := cand[j].prev, cand[j].rank
		for i := n - 1; i >= 0; i-- {
			path[i] = st
			if label != nil {
				path[i] = label[st]
			}
			e := entries[(i*ns+int(st))*k+int(r)]
			st, r = e.prev, e.rank
		}
		dst[j] = path
		scores[j] = cand[j].score
	}
	return found
}

// merge fills node (i, node) with the k best extensions of position
// i-1's partial paths (count[p] of them per state p, best first) along
// the node's incoming edges in: entry r of edge j's state scores its
// score + in.trans[j] + in.st. Each edge's list stays in order after the
// addition (rounding is monotone), so the best are a k-way merge,
// O(k·edges) instead of sorting all the candidates; ties go to the lowest
// edge, then the lowest rank — the order of selectTop over the
// candidates listed by (edge, rank), so the paths are the same.
// Non-finite scores (-Inf, NaN) are never kept.
func (t *nbestTable) merge(i, node int, in nodeEdges) {
	ns, k := t.ns, t.k
	prev := t.entries[(i-1)*ns*k : i*ns*k]
	count := t.count[(i-1)*ns : i*ns]
	out := t.entries[(i*ns+node)*k : (i*ns+node+1)*k]
	from, trans, head, st := in.from, in.trans, in.head, in.st
	found := 0
	for found < k {
		best, bestV := -1, 0.0
		for j := range trans {
			p := j
			if from != nil {
				p = int(from[j])
			}
			for head[j] < count[p] {
				v := prev[p*k+int(head[j])].score + trans[j] + st
				if !math.IsInf(v, -1) && !math.IsNaN(v) {
					if best < 0 || v > bestV {
						best, bestV = j, v
					}
					break
				}
				head[j]++ // never kept: skip it
			}
		}
		if best < 0 {
			break
		}
		p := best
		if from != nil {
			p = int(from[best])
		}
		out[found] = nbestEntry{score: bestV, prev: int32(p), rank: head[best]}
		head[best]++
		found++
	}
	t.count[i*ns+node] = int32(found)
}

// selectTop moves the k best candidates, in order, to the front of c and
// returns how many there are. Candidates arrive in (prev, rank) order, so a
// stable comparison on the score alone breaks ties by label index.
func selectTop(c []nbestEntry, k int) int {
	if k > len(c) {
		k = len(c)
	}
	for j := 0; j < k; j++ {
		best := j
		for m := j + 1; m < len(c); m++ {
			if c[m].score > c[best].score {
				best = m
			}
		}
		if best != j {
			// Shift rather than swap to keep the remaining candidates in
			// their original order (deterministic ties).
			e := c[best]
			copy(c[j+1:best+1], c[j:best])
			c[j] = e
		}
	}
	return k
}
