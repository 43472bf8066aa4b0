package lattice

import "math"

// nbest2 is NBest over a second-order lattice: list Viterbi over the pair
// states, each keeping its k best partial paths, merged from its incoming
// edges in edge order (nbestTable.merge) so that ties go as in first
// order. Like NBest it allocates its tables per call.
func nbest2(dst [][]int32, scores []float64, s *Scores, k int) int {
	o := s.Order2
	n, l, sn := s.N, s.L, len(o.first)
	tab := newNBestTable(n, sn, k)
	for _, st := range o.starts {
		b := o.second[st]
		if v := s.Start[b] + s.State[b]; !math.IsInf(v, -1) && !math.IsNaN(v) {
			tab.entries[int(st)*k] = nbestEntry{score: v, prev: -1, rank: -1}
			tab.count[st] = 1
		}
	}
	maxIn := 0
	for t := 0; t < sn; t++ {
		maxIn = max(maxIn, int(o.into[t+1]-o.into[t]))
	}
	trans, head := make([]float64, maxIn), make([]int32, maxIn)
	for i := 1; i < n; i++ {
		for t := 0; t < sn; t++ {
			lo, hi := o.into[t], o.into[t+1]
			tr, hd := trans[:hi-lo], head[:hi-lo]
			for j := range tr {
				// The state score inside the edge's: the sum each
				// candidate adds, as when they were listed and sorted.
				tr[j], hd[j] = edgeWeight(s, &o.edges[int(lo)+j], i)+s.State[i*l+int(o.edges[int(lo)+j].c)], 0
			}
			tab.merge(i, t, nodeEdges{from: o.from[lo:hi], trans: tr, head: hd})
		}
	}
	stop := make([]float64, sn)
	for st := range stop {
		stop[st] = stopScore(s, o, st)
	}
	return tab.finish(dst, scores, make([]nbestEntry, 0, k*sn), stop, o.second)
}
