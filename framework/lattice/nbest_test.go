package lattice

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// nbestBySorting is NBest as it was before the k-way merge
// (nbestTable.merge): every candidate into a node listed by (label, rank)
// and the k best selected. It is the reference the merge must match path
// for path, ties included.
func nbestBySorting(s *Scores, k int) ([][]int32, []float64) {
	n, l := s.N, s.L
	entries := make([]nbestEntry, n*l*k)
	count := make([]int32, n*l)
	var cand []nbestEntry
	for y := 0; y < l; y++ {
		if v := s.Start[y] + s.State[y]; !math.IsInf(v, -1) && !math.IsNaN(v) {
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
					if v := entries[base+r].score + t + st; !math.IsInf(v, -1) && !math.IsNaN(v) {
						cand = append(cand, nbestEntry{score: v, prev: int32(p), rank: int32(r)})
					}
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
			if v := entries[base+r].score + s.Stop[y]; !math.IsInf(v, -1) && !math.IsNaN(v) {
				cand = append(cand, nbestEntry{score: v, prev: int32(y), rank: int32(r)})
			}
		}
	}
	found := selectTop(cand, k)
	paths, scores := make([][]int32, found), make([]float64, found)
	for j := range found {
		paths[j] = make([]int32, n)
		y, r := cand[j].prev, cand[j].rank
		for i := n - 1; i >= 0; i-- {
			paths[j][i] = y
			e := entries[(i*l+int(y))*k+int(r)]
			y, r = e.prev, e.rank
		}
		scores[j] = cand[j].score
	}
	return paths, scores
}

// TestNBestMergeMatchesSorting: the k-way merge finds the same paths in
// the same order with the same score bits as selecting from every
// candidate, on lattices full of ties, with forbidden transitions and
// per-position transitions.
func TestNBestMergeMatchesSorting(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	for trial := 0; trial < 400; trial++ {
		l, n := 1+r.IntN(5), 1+r.IntN(6)
		var s *Scores
		if trial%2 == 0 {
			s = tieScores(r, n, l, trial%4 == 0, trial%3 == 0)
		} else {
			s = randomScores(r, n, l, 1, true)
		}
		for _, k := range []int{1, 2, 5, 16} {
			wantPaths, wantScores := nbestBySorting(s, k)
			dst, scores := make([][]int32, k), make([]float64, k)
			found := NewWorkspace(l).NBest(dst, scores, s, k)
			if found != len(wantPaths) {
				t.Fatalf("trial %d k=%d: found %d, by sorting %d", trial, k, found, len(wantPaths))
			}
			for j := range found {
				if !equalPath(dst[j], wantPaths[j]) || math.Float64bits(scores[j]) != math.Float64bits(wantScores[j]) {
					t.Fatalf("trial %d k=%d rank %d: %v (%v), by sorting %v (%v)", trial, k, j, dst[j], scores[j], wantPaths[j], wantScores[j])
				}
			}
		}
	}
}

// BenchmarkNBest times the k-best search over first- and second-order
// lattices of the same sentences (a reranker's first pass, labelpath).
func BenchmarkNBest(b *testing.B) {
	for _, c := range orderPair(25) {
		for _, k := range []int{2, 10} {
			b.Run(fmt.Sprintf("%s/k=%d", c.name, k), func(b *testing.B) {
				w := NewWorkspace(c.s.L)
				dst, scores := make([][]int32, k), make([]float64, k)
				b.ReportAllocs()
				for b.Loop() {
					w.NBest(dst, scores, c.s, k)
				}
			})
		}
	}
}
