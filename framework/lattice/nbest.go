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
	// entries[(i*l+y)*k + r]; count[i*l+y] valid entries.
	entries := make([]nbestEntry, n*l*k)
	count := make([]int32, n*l)
	cand := make([]nbestEntry, 0, l*k)
	for y := 0; y < l; y++ {
		v := s.Start[y] + s.State[y]
		if !math.IsInf(v, -1) && !math.IsNaN(v) {
			entries[y*k] = nbestEntry{score: v, prev: -1, rank: -1}
			count[y] = 1
		}
	}
	trans, head := make([]float64, l), make([]int32, l)
	for i := 1; i < n; i++ {
		prev := entries[(i-1)*l*k : i*l*k]
		for y := 0; y < l; y++ {
			st := s.State[i*l+y]
			for p := 0; p < l; p++ {
				trans[p], head[p] = s.trans(i, p, y), 0
			}
			out := entries[(i*l+y)*k : (i*l+y+1)*k]
			count[i*l+y] = int32(mergeTop(out, prev, count[(i-1)*l:i*l], nil, trans, head, st, k))
		}
	}
	return nbestFinish(dst, scores, cand, entries, count, s.Stop, nil, n, k)
}

// nbestFinish closes the n-best search over n positions of len(stop)
// states each, entries and count holding every state's k best partial
// paths: it adds each state's stop score to its last-position entries,
// keeps the k best, and writes their paths, each state mapped to its
// label by label (nil: the state is the label), into dst and their scores
// into scores. cand is scratch. It returns how many it found.
func nbestFinish(dst [][]int32, scores []float64, cand, entries []nbestEntry, count []int32, stop []float64, label []int32, n, k int) int {
	ns := len(stop)
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

// mergeTop writes into out the k best extensions into one node of the
// previous position's partial paths, prev[p*k+r] (count[p] of them per
// node p, best first), along the node's incoming edges: edge j comes from
// node from[j] (from nil: edge j from node j), and entry r of its node
// scores prev[p*k+r].score + trans[j] + st. Each edge's list stays in
// order after the addition (rounding is monotone), so the best are a
// k-way merge, O(k·edges) instead of sorting all the candidates; ties go
// to the lowest edge, then the lowest rank — the order of selectTop over
// the candidates listed by (edge, rank), so the paths are the same.
// head[j] is the next rank of edge j (zero on entry). Non-finite scores
// (-Inf, NaN) are never kept. It returns how many it wrote.
func mergeTop(out, prev []nbestEntry, count, from []int32, trans []float64, head []int32, st float64, k int) int {
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
	return found
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
