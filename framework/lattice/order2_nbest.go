package lattice

import "math"

// nbest2 is NBest over a second-order lattice: list Viterbi over the pair
// states, each keeping its k best partial paths, merged from its incoming
// edges in edge order (mergeTop) so that ties go as in first order. Like
// NBest it allocates its tables per call.
func nbest2(dst [][]int32, scores []float64, s *Scores, k int) int {
	o := s.Order2
	n, l, sn := s.N, s.L, len(o.first)
	entries := make([]nbestEntry, n*sn*k)
	count := make([]int32, n*sn)
	for _, st := range o.starts {
		b := o.second[st]
		if v := s.Start[b] + s.State[b]; !math.IsInf(v, -1) && !math.IsNaN(v) {
			entries[int(st)*k] = nbestEntry{score: v, prev: -1, rank: -1}
			count[st] = 1
		}
	}
	maxIn := 0
	for t := 0; t < sn; t++ {
		maxIn = max(maxIn, int(o.into[t+1]-o.into[t]))
	}
	trans, head := make([]float64, maxIn), make([]int32, maxIn)
	for i := 1; i < n; i++ {
		prev, prevCount := entries[(i-1)*sn*k:i*sn*k], count[(i-1)*sn:i*sn]
		for t := 0; t < sn; t++ {
			lo, hi := o.into[t], o.into[t+1]
			tr, hd := trans[:hi-lo], head[:hi-lo]
			for j := range tr {
				// The state score inside the edge's: the sum each
				// candidate adds, as when they were listed and sorted.
				tr[j], hd[j] = edgeWeight(s, &o.edges[int(lo)+j], i)+s.State[i*l+int(o.edges[int(lo)+j].c)], 0
			}
			out := entries[(i*sn+t)*k : (i*sn+t+1)*k]
			count[i*sn+t] = int32(mergeTop(out, prev, prevCount, o.from[lo:hi], tr, hd, 0, k))
		}
	}
	stop := make([]float64, sn)
	for st := range stop {
		stop[st] = stopScore(s, o, st)
	}
	return nbestFinish(dst, scores, make([]nbestEntry, 0, k*sn), entries, count, stop, o.second, n, k)
}
