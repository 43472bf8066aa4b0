// state.go holds a Solve's working state: the multipliers, the groups'
// solutions, the lattices' original state scores and the best iterate.

package dual

import (
	"math"
	"slices"
)

// state is one Solve's. Occurrences are the groups' sites, flattened in
// group order; every per-occurrence slice is indexed by occurrence.
type state struct {
	p    *Problem
	cost float64
	t    int // NumTypes
	// occ [o] is occurrence o's site; groupEnd [g] is one past group g's
	// last occurrence.
	occ      []Site
	groupEnd []int
	// u is an [O][T] matrix whose element [o][t] is the multiplier added
	// to the scores of occurrence o's states of type t.
	u []float64
	// a [o] is the type the sentences' labelling gives occurrence o's
	// site; b [o] the type the group problem gives it (v in doc.go).
	a, b []int32
	// best and arg [o] are the largest −u[o][t] and its first t (Soft).
	best []float64
	arg  []int32
	// bySent lists each sentence's occurrences: sentence k's are
	// sentOcc[sentStart[k]:sentStart[k+1]].
	sentStart []int
	sentOcc   []int32
	// lam is a [K][len(Limits)][2] array whose element [k][j][0] is the
	// multiplier of limit j's Max in sentence k, [k][j][1] of its Min;
	// count [k][j] is sentence k's spans of limit j under its path.
	lam   []float64
	count []int
	// score [k] is sentence k's best path's score under the multipliers.
	score []float64
	dirty []bool
	// base holds the adjusted sentences' State entries as given; baseAt
	// [k] is where sentence k's begin (−1: never adjusted).
	base   []float64
	baseAt []int
	// groupVal is the groups' share of the dual at the last evaluate.
	groupVal float64
	// bestPaths is the best feasible iterate's paths, back to back, and
	// bestPrimal its objective (−Inf: none kept).
	bestPaths  []int32
	bestPrimal float64
	kept       bool
}

// reset sizes the state for p, multipliers at zero.
func (st *state) reset(p *Problem, cost float64) {
	k := len(p.Lattices)
	st.p, st.cost, st.t = p, cost, p.NumTypes
	st.occ, st.groupEnd = st.occ[:0], st.groupEnd[:0]
	for _, g := range p.Groups {
		st.occ = append(st.occ, g...)
		st.groupEnd = append(st.groupEnd, len(st.occ))
	}
	o := len(st.occ)
	st.u = zeroed(st.u, o*st.t)
	st.a, st.b, st.arg = grow(st.a, o), grow(st.b, o), grow(st.arg, o)
	st.best = zeroed(st.best, o)
	st.sentStart = slices.Grow(st.sentStart[:0], k+1)[:k+1]
	clear(st.sentStart)
	for _, s := range st.occ {
		st.sentStart[s.Sentence+1]++
	}
	for i := 1; i <= k; i++ {
		st.sentStart[i] += st.sentStart[i-1]
	}
	st.sentOcc = grow(st.sentOcc, o)
	fill := st.baseAt // borrowed as the fill counters until saveBase
	fill = append(fill[:0], st.sentStart[:k]...)
	for i, s := range st.occ {
		st.sentOcc[fill[s.Sentence]] = int32(i)
		fill[s.Sentence]++
	}
	st.baseAt = fill
	st.lam = zeroed(st.lam, k*len(p.Limits)*2)
	st.count = zeroedInts(st.count, k*len(p.Limits))
	st.score = zeroed(st.score, k)
	st.dirty = slices.Grow(st.dirty[:0], k)[:k]
	clear(st.dirty)
	st.bestPrimal, st.kept = math.Inf(-1), false
}

// saveBase copies the State of every sentence the multipliers can reach:
// all of them with limits, else those with occurrences.
func (st *state) saveBase() {
	st.base = st.base[:0]
	for k, lat := range st.p.Lattices {
		st.baseAt[k] = -1
		if len(st.p.Limits) > 0 || st.sentStart[k+1] > st.sentStart[k] {
			st.baseAt[k] = len(st.base)
			st.base = append(st.base, lat.State[:lat.N*lat.L]...)
		}
	}
}

// restoreBase puts the saved State entries back.
func (st *state) restoreBase() {
	for k, lat := range st.p.Lattices {
		if at := st.baseAt[k]; at >= 0 {
			copy(lat.State, st.base[at:at+lat.N*lat.L])
		}
	}
}

// apply sets sentence k's State to its saved entries plus the multipliers.
func (st *state) apply(k int) {
	lat := st.p.Lattices[k]
	l, at := lat.L, st.baseAt[k]
	copy(lat.State, st.base[at:at+lat.N*l])
	for _, o := range st.sentOcc[st.sentStart[k]:st.sentStart[k+1]] {
		row := lat.State[st.occ[o].Position*l:][:l]
		u := st.u[int(o)*st.t:][:st.t]
		for s := range row {
			row[s] += u[st.p.Types[s]]
		}
	}
	for j, lim := range st.p.Limits {
		w := st.lam[(k*len(st.p.Limits)+j)*2+1] - st.lam[(k*len(st.p.Limits)+j)*2]
		if w == 0 {
			continue
		}
		for i := range lat.N {
			for s, yes := range lim.Starts {
				if yes {
					lat.State[i*l+s] += w
				}
			}
		}
	}
}

// evaluate reads the sentences' paths (a, count), solves the groups (b)
// and returns the dual objective at the current multipliers.
func (st *state) evaluate(paths [][]int32) float64 {
	for o, s := range st.occ {
		st.a[o] = st.p.Types[paths[s.Sentence][s.Position]]
	}
	dual := 0.0
	for k, path := range paths[:len(st.p.Lattices)] {
		dual += st.score[k]
		for j, lim := range st.p.Limits {
			n := 0
			for _, y := range path {
				if lim.Starts[y] {
					n++
				}
			}
			st.count[k*len(st.p.Limits)+j] = n
			lam := st.lam[(k*len(st.p.Limits)+j)*2:][:2]
			if lim.Max >= 0 {
				dual += lam[0] * float64(lim.Max)
			}
			dual -= lam[1] * float64(lim.Min)
		}
	}
	st.groupVal = 0
	start := 0
	for _, end := range st.groupEnd {
		st.groupVal += st.solveGroup(start, end)
		start = end
	}
	return dual + st.groupVal
}

// solveGroup picks the type z of the group of occurrences [start, end)
// and each occurrence's type b, maximizing Σ_o −c·[b_o ≠ z] − u[o][b_o],
// and returns that maximum. Ties go to the lowest type.
func (st *state) solveGroup(start, end int) float64 {
	soft := !math.IsInf(st.cost, 1)
	if soft {
		for o := start; o < end; o++ {
			u := st.u[o*st.t:][:st.t]
			st.best[o], st.arg[o] = -u[0], 0
			for t := 1; t < st.t; t++ {
				if -u[t] > st.best[o] {
					st.best[o], st.arg[o] = -u[t], int32(t)
				}
			}
		}
	}
	// Among equal maxima, prefer what the paths already say: the type most
	// of the group's sites have, and each site's own type. Any maximizer
	// gives a subgradient; these certify sooner.
	z, zVal, zAgree := 0, math.Inf(-1), -1
	for t := range st.t {
		v, agree := 0.0, 0
		for o := start; o < end; o++ {
			own := -st.u[o*st.t+t]
			if soft {
				own = max(own, st.best[o]-st.cost)
			}
			v += own
			if int(st.a[o]) == t {
				agree++
			}
		}
		if v > zVal || (v == zVal && agree > zAgree) {
			z, zVal, zAgree = t, v, agree
		}
	}
	for o := start; o < end; o++ {
		st.b[o] = int32(z)
		if !soft {
			continue
		}
		u := st.u[o*st.t:][:st.t]
		top := max(-u[z], st.best[o]-st.cost)
		switch {
		case -u[st.a[o]]-st.cost*b2f(int(st.a[o]) != z) == top:
			st.b[o] = st.a[o]
		case -u[z] < top:
			st.b[o] = st.arg[o]
		}
	}
	return zVal
}

// certified reports whether the paths satisfy every relaxed constraint
// with complementary slackness, which makes them the joint optimum.
func (st *state) certified() bool {
	for o := range st.occ {
		if st.a[o] != st.b[o] {
			return false
		}
	}
	for i, n := range st.count {
		lim := st.p.Limits[i%len(st.p.Limits)]
		lam := st.lam[i*2:][:2]
		if !lim.holds(n) || (lam[0] > 0 && n != lim.Max) || (lam[1] > 0 && n != lim.Min) {
			return false
		}
	}
	return true
}

func (l Limit) holds(n int) bool { return n >= l.Min && (l.Max < 0 || n <= l.Max) }

// step moves the multipliers by alpha along the subgradient and marks the
// sentences whose multipliers moved.
func (st *state) step(alpha float64) {
	for o, s := range st.occ {
		if st.a[o] != st.b[o] {
			st.u[o*st.t+int(st.a[o])] -= alpha
			st.u[o*st.t+int(st.b[o])] += alpha
			st.dirty[s.Sentence] = true
		}
	}
	for i, n := range st.count {
		lim := st.p.Limits[i%len(st.p.Limits)]
		lam := st.lam[i*2:][:2]
		old := [2]float64{lam[0], lam[1]}
		if lim.Max >= 0 {
			lam[0] = max(0, lam[0]+alpha*float64(n-lim.Max))
		}
		lam[1] = max(0, lam[1]+alpha*float64(lim.Min-n))
		if lam[0] != old[0] || lam[1] != old[1] {
			st.dirty[i/len(st.p.Limits)] = true
		}
	}
}

// keepIfBest keeps the paths when they satisfy the hard constraints and
// score higher under the primal objective than every iterate kept.
func (st *state) keepIfBest(paths [][]int32) {
	primal := 0.0
	for k := range st.p.Lattices {
		primal += st.score[k] - st.adjustment(k)
	}
	for i, n := range st.count {
		if !st.p.Limits[i%len(st.p.Limits)].holds(n) {
			return
		}
	}
	start := 0
	for _, end := range st.groupEnd {
		if d := st.disagreements(start, end); d > 0 {
			if math.IsInf(st.cost, 1) {
				return
			}
			primal -= st.cost * float64(d)
		}
		start = end
	}
	if st.kept && primal <= st.bestPrimal {
		return
	}
	st.bestPaths = st.bestPaths[:0]
	for k := range st.p.Lattices {
		st.bestPaths = append(st.bestPaths, paths[k]...)
	}
	st.bestPrimal, st.kept = primal, true
}

// adjustment is what the multipliers add to sentence k's path's score.
func (st *state) adjustment(k int) float64 {
	adj := 0.0
	for _, o := range st.sentOcc[st.sentStart[k]:st.sentStart[k+1]] {
		adj += st.u[int(o)*st.t+int(st.a[o])]
	}
	for j := range st.p.Limits {
		i := k*len(st.p.Limits) + j
		adj += (st.lam[i*2+1] - st.lam[i*2]) * float64(st.count[i])
	}
	return adj
}

// disagreements is the number of sites of the group of occurrences
// [start, end) outside its most frequent type under the paths.
func (st *state) disagreements(start, end int) int {
	most := 0
	for t := range st.t {
		n := 0
		for o := start; o < end; o++ {
			if int(st.a[o]) == t {
				n++
			}
		}
		most = max(most, n)
	}
	return end - start - most
}

// bestInto writes the kept iterate into paths (the last one stays when
// none was kept).
func (st *state) bestInto(paths [][]int32) {
	if !st.kept {
		return
	}
	at := 0
	for k := range st.p.Lattices {
		at += copy(paths[k], st.bestPaths[at:at+len(paths[k])])
	}
}

// b2f is 1 for true, 0 for false.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func grow(s []int32, n int) []int32 { return slices.Grow(s[:0], n)[:n] }

func zeroed(s []float64, n int) []float64 {
	s = slices.Grow(s[:0], n)[:n]
	clear(s)
	return s
}

func zeroedInts(s []int, n int) []int {
	s = slices.Grow(s[:0], n)[:n]
	clear(s)
	return s
}
