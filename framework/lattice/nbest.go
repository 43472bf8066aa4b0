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
	for i := 1; i < n; i++ {
		for y := 0; y < l; y++ {
			cand = cand[:0]
			st := s.State[i*l+y]
			for p := 0; p < l; p++ {
				base := ((i-1)*l + p) * k
				t := s.trans(i, p, y)
				for r := 0; r < int(count[(i-1)*l+p]); r++ {
					v := entries[base+r].score + t + st
					if math.IsInf(v, -1) || math.IsNaN(v) {
						continue
					}
					cand = append(cand, nbestEntry{score: v, prev: int32(p), rank: int32(r)})
				}
			}
			c := selectTop(cand, k)
			copy(entries[(i*l+y)*k:], cand[:c])
			count[i*l+y] = int32(c)
		}
	}
	cand = cand[:0]
	for y := 0; y < l; y++ {
		base := ((n-1)*l + y) * k
		for r := 0; r < int(count[(n-1)*l+y]); r++ {
			v := entries[base+r].score + s.Stop[y]
			if math.IsInf(v, -1) || math.IsNaN(v) {
				continue
			}
			cand = append(cand, nbestEntry{score: v, prev: int32(y), rank: int32(r)})
		}
	}
	found := selectTop(cand, k)
	for j := 0; j < found; j++ {
		path := dst[j]
		if cap(path) < n {
			path = make([]int32, n)
		}
		path = path[:n]
		y, r := cand[j].prev, cand[j].rank
		for i := n - 1; i >= 0; i-- {
			path[i] = y
			e := entries[(i*l+int(y))*k+int(r)]
			y, r = e.prev, e.rank
		}
		dst[j] = path
		scores[j] = cand[j].score
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
