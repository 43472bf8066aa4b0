package lattice

import "math"

// nbest2 is NBest over a second-order lattice: list Viterbi over the pair
// states, each keeping its k best partial paths, candidates gathered in
// (edge, rank) order so that ties go as in first order. Like NBest it
// allocates its tables per call.
func nbest2(dst [][]int32, scores []float64, s *Scores, k int) int {
	o := s.Order2
	n, l, sn := s.N, s.L, len(o.first)
	entries := make([]nbestEntry, n*sn*k)
	count := make([]int32, n*sn)
	// At most k candidates a predecessor state, for one state at a time.
	cand := make([]nbestEntry, 0, k*sn)
	for _, st := range o.starts {
		b := o.second[st]
		if v := s.Start[b] + s.State[b]; !math.IsInf(v, -1) && !math.IsNaN(v) {
			entries[int(st)*k] = nbestEntry{score: v, prev: -1, rank: -1}
			count[st] = 1
		}
	}
	for i := 1; i < n; i++ {
		for t := 0; t < sn; t++ {
			cand = cand[:0]
			edges := o.edges[o.into[t]:o.into[t+1]]
			for j := range edges {
				g := &edges[j]
				base := ((i-1)*sn + int(g.from)) * k
				wt := edgeWeight(s, g, i) + s.State[i*l+int(g.c)]
				for r := 0; r < int(count[(i-1)*sn+int(g.from)]); r++ {
					v := entries[base+r].score + wt
					if math.IsInf(v, -1) || math.IsNaN(v) {
						continue
					}
					cand = append(cand, nbestEntry{score: v, prev: g.from, rank: int32(r)})
				}
			}
			c := selectTop(cand, k)
			copy(entries[(i*sn+t)*k:], cand[:c])
			count[i*sn+t] = int32(c)
		}
	}
	stop := make([]float64, sn)
	for st := range stop {
		stop[st] = stopScore(s, o, st)
	}
	return nbestFinish(dst, scores, cand, entries, count, stop, o.second, n, k)
}
