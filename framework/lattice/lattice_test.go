package lattice

import (
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

// randomScores draws a lattice; scale stretches the scores so that the
// scaled forward pass must underflow and fall back; forbid sets some
// entries to -Inf as constraints do.
func randomScores(r *rand.Rand, n, l int, scale float64, forbid bool) *Scores {
	s := &Scores{N: n, L: l, State: make([]float64, n*l), Trans: make([]float64, l*l), Start: make([]float64, l), Stop: make([]float64, l)}
	fill := func(x []float64) {
		for k := range x {
			x[k] = scale * r.NormFloat64()
			if forbid && r.IntN(5) == 0 {
				x[k] = math.Inf(-1)
			}
		}
	}
	fill(s.State)
	fill(s.Trans)
	fill(s.Start)
	fill(s.Stop)
	return s
}

type scoredPath struct {
	path  []int32
	score float64
}

// enumerate lists every label sequence with its score, best first.
func enumerate(s *Scores) []scoredPath {
	var all []scoredPath
	path := make([]int32, s.N)
	var rec func(i int)
	rec = func(i int) {
		if i == s.N {
			all = append(all, scoredPath{append([]int32(nil), path...), SequenceScore(s, path)})
			return
		}
		for y := 0; y < s.L; y++ {
			path[i] = int32(y)
			rec(i + 1)
		}
	}
	rec(0)
	sort.SliceStable(all, func(a, b int) bool { return all[a].score > all[b].score })
	return all
}

func near(a, b, tol float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// addTransAt gives s per-position transition terms of the given scale.
func addTransAt(r *rand.Rand, s *Scores, scale float64) {
	s.TransAt = make([]float64, max(s.N-1, 0)*s.L*s.L)
	for k := range s.TransAt {
		s.TransAt[k] = scale * r.NormFloat64()
	}
}

var cases = []struct {
	name        string
	scale       float64
	forbid      bool
	perPosition bool // per-position transitions (Scores.TransAt)
}{
	{"unit", 1, false, false},
	{"forbidden", 2, true, false},
	{"huge", 400, false, false},
	{"huge-forbidden", 1000, true, false},
	{"tiny", 1e-6, false, false},
	{"per-position", 1, false, true},
	{"per-position-forbidden", 2, true, true},
	{"per-position-huge", 400, false, true},
	{"per-position-sparse", 1, false, true},
	{"per-position-sparse-forbidden", 3, true, true},
}

func TestAgainstBruteForce(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(len(c.name))))
			ws := map[int]*Workspace{}
			for trial := 0; trial < 300; trial++ {
				l := 1 + r.IntN(4)
				n := r.IntN(6)
				s := randomScores(r, n, l, c.scale, c.forbid)
				if c.perPosition {
					addTransAt(r, s, c.scale)
					if strings.HasSuffix(c.name, "sparse") || strings.Contains(c.name, "sparse-") {
						// Input-conditioned transitions touch few bigrams:
						// most entries 0, the scaled pass's multiply path.
						for k := range s.TransAt {
							if r.IntN(3) > 0 {
								s.TransAt[k] = 0
							}
						}
					}
				}
				w := ws[l]
				if w == nil {
					w = NewWorkspace(l)
					ws[l] = w
				}
				checkLattice(t, w, s)
			}
		})
	}
}

func checkLattice(t *testing.T, w *Workspace, s *Scores) {
	t.Helper()
	all := enumerate(s)
	n, l := s.N, s.L
	scores := make([]float64, len(all))
	for k, p := range all {
		scores[k] = p.score
	}
	logZ := LogSumExp(scores)

	path := make([]int32, n)
	best := w.Viterbi(path, s)
	if !near(best, all[0].score, 1e-9) {
		t.Fatalf("N=%d L=%d: Viterbi score %v, brute force %v", n, l, best, all[0].score)
	}
	if !math.IsInf(best, -1) && !near(SequenceScore(s, path), best, 1e-9) {
		t.Fatalf("Viterbi path scores %v, reported %v", SequenceScore(s, path), best)
	}

	got := w.ForwardBackward(s)
	if !near(got, logZ, 1e-9) {
		t.Fatalf("N=%d L=%d: log Z %v, brute force %v", n, l, got, logZ)
	}
	// Marginals.
	state := make([]float64, n*l)
	pair := make([]float64, n*l*l)
	trans := make([]float64, l*l)
	if !math.IsInf(logZ, -1) {
		for _, p := range all {
			pr := math.Exp(p.score - logZ)
			for i, y := range p.path {
				state[i*l+int(y)] += pr
				if i > 0 {
					pair[(i*l+int(p.path[i-1]))*l+int(y)] += pr
					trans[int(p.path[i-1])*l+int(y)] += pr
				}
			}
		}
	}
	gotState := make([]float64, n*l)
	w.StateMarginals(gotState)
	for k := range state {
		if math.Abs(gotState[k]-state[k]) > 1e-9 {
			t.Fatalf("N=%d L=%d: state marginal %d = %v, brute force %v", n, l, k, gotState[k], state[k])
		}
		if m := w.StateMarginal(k/l, k%l); math.Abs(m-state[k]) > 1e-9 {
			t.Fatalf("StateMarginal(%d,%d) = %v, brute force %v", k/l, k%l, m, state[k])
		}
	}
	for i := 1; i < n; i++ {
		for p := 0; p < l; p++ {
			for c := 0; c < l; c++ {
				if m := w.PairMarginal(s, i, p, c); math.Abs(m-pair[(i*l+p)*l+c]) > 1e-9 {
					t.Fatalf("PairMarginal(%d,%d,%d) = %v, brute force %v", i, p, c, m, pair[(i*l+p)*l+c])
				}
			}
		}
	}
	block := make([]float64, l*l)
	for i := 1; i < n; i++ {
		w.PairMarginals(block, s, i)
		for k, m := range block {
			if math.Abs(m-pair[i*l*l+k]) > 1e-9 {
				t.Fatalf("PairMarginals(%d)[%d] = %v, brute force %v", i, k, m, pair[i*l*l+k])
			}
		}
	}
	gotTrans := make([]float64, l*l)
	w.AddTransMarginals(gotTrans, s, 2)
	for k := range trans {
		if math.Abs(gotTrans[k]-2*trans[k]) > 1e-8 {
			t.Fatalf("AddTransMarginals[%d] = %v, brute force %v", k, gotTrans[k], 2*trans[k])
		}
	}

	// N-best: the k best finite scores, in order.
	finite := 0
	for _, p := range all {
		if !math.IsInf(p.score, -1) {
			finite++
		}
	}
	if n == 0 {
		finite = 1
	}
	for _, k := range []int{1, 3, 7} {
		dst := make([][]int32, k)
		sc := make([]float64, k)
		found := w.NBest(dst, sc, s, k)
		if want := min(k, finite); found != want {
			t.Fatalf("N=%d L=%d: NBest(%d) found %d, want %d", n, l, k, found, want)
		}
		for j := 0; j < found; j++ {
			if !near(sc[j], all[j].score, 1e-9) {
				t.Fatalf("NBest(%d)[%d] score %v, brute force %v", k, j, sc[j], all[j].score)
			}
			if !near(SequenceScore(s, dst[j]), sc[j], 1e-9) {
				t.Fatalf("NBest path %v scores %v, reported %v", dst[j], SequenceScore(s, dst[j]), sc[j])
			}
			for m := 0; m < j; m++ {
				if equalPath(dst[m], dst[j]) {
					t.Fatalf("NBest returned path %v twice", dst[j])
				}
			}
		}
	}
}

func equalPath(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestConstrained checks that decoding under constraints finds the best
// sequence among the allowed ones, for Viterbi and n-best.
func TestConstrained(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for trial := 0; trial < 200; trial++ {
		l := 2 + r.IntN(3)
		n := 1 + r.IntN(5)
		s := randomScores(r, n, l, 1, false)
		c := &Constraints{Trans: make([]bool, l*l), Start: make([]bool, l), Stop: make([]bool, l)}
		for k := range c.Trans {
			c.Trans[k] = r.IntN(3) > 0
		}
		for y := 0; y < l; y++ {
			c.Start[y] = r.IntN(3) > 0
			c.Stop[y] = r.IntN(3) > 0
		}
		allowed := func(p []int32) bool {
			if !c.Start[p[0]] || !c.Stop[p[len(p)-1]] {
				return false
			}
			for i := 1; i < len(p); i++ {
				if !c.Trans[int(p[i-1])*l+int(p[i])] {
					return false
				}
			}
			return true
		}
		var want []scoredPath
		for _, p := range enumerate(s) {
			if allowed(p.path) {
				want = append(want, p)
			}
		}
		cs := *s
		cs.Trans = append([]float64(nil), s.Trans...)
		cs.Start = append([]float64(nil), s.Start...)
		cs.Stop = append([]float64(nil), s.Stop...)
		c.Apply(&cs)
		w := NewWorkspace(l)
		path := make([]int32, n)
		score := w.Viterbi(path, &cs)
		if len(want) == 0 {
			if !math.IsInf(score, -1) {
				t.Fatalf("no allowed sequence, Viterbi scored %v", score)
			}
			if z := w.ForwardBackward(&cs); !math.IsInf(z, -1) {
				t.Fatalf("no allowed sequence, log Z %v", z)
			}
			continue
		}
		if !allowed(path) || !near(score, want[0].score, 1e-12) {
			t.Fatalf("constrained Viterbi %v (%v), want %v (%v)", path, score, want[0].path, want[0].score)
		}
		k := 4
		dst, sc := make([][]int32, k), make([]float64, k)
		found := w.NBest(dst, sc, &cs, k)
		if found != min(k, len(want)) {
			t.Fatalf("constrained NBest found %d, want %d", found, min(k, len(want)))
		}
		for j := 0; j < found; j++ {
			if !allowed(dst[j]) || !near(sc[j], want[j].score, 1e-12) {
				t.Fatalf("constrained NBest[%d] = %v (%v), want score %v", j, dst[j], sc[j], want[j].score)
			}
		}
		check := make([]float64, n*l)
		w.ForwardBackward(&cs)
		w.StateMarginals(check)
		for i := 0; i < n; i++ {
			for y := 0; y < l; y++ {
				if check[i*l+y] > 0 && i == 0 && !c.Start[y] {
					t.Fatalf("forbidden start label %d has marginal %v", y, check[i*l+y])
				}
			}
		}
	}
}

// TestZeroAllocs: after warm-up the hot paths must not allocate.
func TestZeroAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	s := randomScores(r, 40, 22, 1, false)
	w := NewWorkspace(22)
	path := make([]int32, 40)
	marg := make([]float64, 40*22)
	trans := make([]float64, 22*22)
	w.ForwardBackward(s)
	allocs := testing.AllocsPerRun(50, func() {
		w.Viterbi(path, s)
		w.ForwardBackward(s)
		w.StateMarginals(marg)
		w.AddTransMarginals(trans, s, 1)
	})
	if allocs != 0 {
		t.Fatalf("lattice hot path allocates %v times per run", allocs)
	}
}

// TestReusedTransitions guards the exp cache: changing the transition
// weights between calls must change the result.
func TestReusedTransitions(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	s := randomScores(r, 4, 3, 1, false)
	w := NewWorkspace(3)
	w.ForwardBackward(s)
	s.Trans[4] += 1.5
	got := w.ForwardBackward(s)
	fresh := NewWorkspace(3).ForwardBackward(s)
	if got != fresh {
		t.Fatalf("log Z after a transition change %v, fresh workspace %v", got, fresh)
	}
}

func BenchmarkViterbi(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	s := randomScores(r, 24, 22, 1, false)
	w := NewWorkspace(22)
	path := make([]int32, 24)
	b.ReportAllocs()
	for b.Loop() {
		w.Viterbi(path, s)
	}
}

func BenchmarkForwardBackward(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	s := randomScores(r, 24, 22, 1, false)
	w := NewWorkspace(22)
	marg := make([]float64, 24*22)
	trans := make([]float64, 22*22)
	b.ReportAllocs()
	for b.Loop() {
		w.ForwardBackward(s)
		w.StateMarginals(marg)
		w.AddTransMarginals(trans, s, 1)
	}
}

func FuzzForwardBackward(f *testing.F) {
	f.Add(uint64(1), uint8(3), uint8(4), 1.0)
	f.Add(uint64(2), uint8(2), uint8(1), 5000.0)
	f.Fuzz(func(t *testing.T, seed uint64, nl, nn uint8, scale float64) {
		// Beyond ~1e4 the scores' own rounding (an ulp of 1e300 is 1e284)
		// makes any marginal meaningless, brute force included.
		if math.IsNaN(scale) || math.Abs(scale) > 1e4 {
			return
		}
		l, n := 1+int(nl%4), int(nn%6)
		r := rand.New(rand.NewPCG(seed, 1))
		s := randomScores(r, n, l, scale, seed%2 == 0)
		w := NewWorkspace(l)
		checkLattice(t, w, s)
		// The same lattice through a prepared Chain decodes to the same
		// bits; one seed in four also gets per-position transitions.
		cs := *s
		NewChain(s.Trans, s.Start, s.Stop, nil).Attach(&cs)
		p1, p2 := make([]int32, n), make([]int32, n)
		if v1, v2 := w.Viterbi(p1, s), w.Viterbi(p2, &cs); math.Float64bits(v1) != math.Float64bits(v2) || !equalPath(p1, p2) {
			t.Fatalf("with a Chain %v (%v), without %v (%v)", p2, v2, p1, v1)
		}
		if seed%4 == 1 {
			addTransAt(r, s, scale)
			checkLattice(t, w, s)
		}
	})
}

// TestScaledPerPosition checks that moderate per-position transitions take
// the scaled pass (not the log-space fallback) and agree with the
// log-space pass.
func TestScaledPerPosition(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 50; trial++ {
		l, n := 2+r.IntN(6), 2+r.IntN(20)
		s := randomScores(r, n, l, 1, false)
		addTransAt(r, s, 1)
		w := NewWorkspace(l)
		got := w.ForwardBackward(s)
		if w.logSpace {
			t.Fatalf("trial %d: per-position transitions took the log-space pass", trial)
		}
		ref := NewWorkspace(l)
		ref.grow(n)
		ref.n = n
		ref.logSpace = true
		ref.logForwardBackward(s)
		if !near(got, ref.logZ, 1e-9) {
			t.Fatalf("trial %d: scaled log Z %v, log-space %v", trial, got, ref.logZ)
		}
	}
}
