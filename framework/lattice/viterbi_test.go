package lattice

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// coarse draws scores from {-1, -0.5, 0, 0.5, 1}: sums of a few of them
// are exact, so equal-scoring paths tie exactly and the tie rule is what
// decides.
func coarse(r *rand.Rand) float64 { return float64(r.IntN(5)-2) / 2 }

// tieScores draws a lattice of coarse scores. With sparse, about a third
// of the transitions are -Inf (the kernel's predecessor lists); without,
// none are (its full scan). With per-position terms, TransAt is set.
func tieScores(r *rand.Rand, n, l int, sparse, perPosition bool) *Scores {
	s := &Scores{N: n, L: l, State: make([]float64, n*l), Trans: make([]float64, l*l), Start: make([]float64, l), Stop: make([]float64, l)}
	for _, x := range [][]float64{s.State, s.Trans, s.Start, s.Stop} {
		for k := range x {
			x[k] = coarse(r)
		}
	}
	if sparse {
		for k := range s.Trans {
			if r.IntN(3) == 0 {
				s.Trans[k] = math.Inf(-1)
			}
		}
	}
	if perPosition {
		s.TransAt = make([]float64, max(n-1, 0)*l*l)
		for k := range s.TransAt {
			s.TransAt[k] = coarse(r)
		}
	}
	return s
}

// randomConstraints forbids about a third of everything.
func randomConstraints(r *rand.Rand, l int) *Constraints {
	c := &Constraints{Trans: make([]bool, l*l), Start: make([]bool, l), Stop: make([]bool, l)}
	for _, x := range [][]bool{c.Trans, c.Start, c.Stop} {
		for k := range x {
			x[k] = r.IntN(3) > 0
		}
	}
	return c
}

// bruteBest is the best path of s by enumeration and the tie rule the
// kernel promises: among the best-scoring paths, the lowest label at the
// last position, then at the one before, and so on back.
func bruteBest(s *Scores) ([]int32, float64) {
	var best []int32
	bestScore := math.Inf(-1)
	for _, p := range enumerate(s) {
		if p.score < bestScore || math.IsInf(p.score, -1) {
			continue
		}
		if p.score > bestScore || lowerFromEnd(p.path, best) {
			best, bestScore = p.path, p.score
		}
	}
	return best, bestScore
}

func lowerFromEnd(a, b []int32) bool {
	for i := len(a) - 1; i >= 0; i-- {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// TestViterbiBruteForce checks the kernel against every path of small
// lattices: dense transitions (the full scan) and sparse ones (the
// predecessor lists), with and without constraints, with and without
// per-position transitions, through a Chain and through the Workspace's
// own preparation. Scores are coarse, so ties are common and must go to
// the lowest label.
func TestViterbiBruteForce(t *testing.T) {
	for _, c := range []struct {
		name                           string
		sparse, constrained, perPosTxn bool
	}{
		{"dense", false, false, false},
		{"sparse", true, false, false},
		{"dense-constrained", false, true, false},
		{"sparse-constrained", true, true, false},
		{"dense-per-position", false, false, true},
		{"sparse-constrained-per-position", true, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(11, uint64(len(c.name))))
			for trial := 0; trial < 400; trial++ {
				// Up to 9 labels; short sentences keep enumeration
				// small.
				l := 1 + r.IntN(9)
				n := r.IntN(5)
				if l > 6 {
					n = min(n, 3)
				}
				s := tieScores(r, n, l, c.sparse, c.perPosTxn)
				var cons *Constraints
				if c.constrained {
					cons = randomConstraints(r, l)
				}
				chain := NewChain(s.Trans, s.Start, s.Stop, cons)
				chain.Attach(s)
				want, wantScore := bruteBest(s)
				ws := NewWorkspace(l)
				path := make([]int32, n)
				score := ws.Viterbi(path, s)
				if score != wantScore {
					t.Fatalf("trial %d N=%d L=%d: score %v, brute force %v", trial, n, l, score, wantScore)
				}
				if want != nil && !slices.Equal(path, want) {
					t.Fatalf("trial %d N=%d L=%d: path %v, brute force %v (score %v)", trial, n, l, path, want, score)
				}
				// Without the Chain, the Workspace prepares the same
				// transitions itself.
				plain := *s
				plain.Chain = nil
				plainPath := make([]int32, n)
				if got := ws.Viterbi(plainPath, &plain); math.Float64bits(got) != math.Float64bits(score) || !slices.Equal(plainPath, path) {
					t.Fatalf("trial %d: without the Chain %v (%v), with it %v (%v)", trial, plainPath, got, path, score)
				}
			}
		})
	}
}

// plainViterbi is the textbook Viterbi — one scan over every predecessor,
// no prepared transitions — that the kernel must match to the bit.
func plainViterbi(dst []int32, s *Scores) float64 {
	n, l := s.N, s.L
	if n == 0 {
		return 0
	}
	delta := make([]float64, n*l)
	back := make([]int32, n*l)
	for y := 0; y < l; y++ {
		delta[y] = s.Start[y] + s.State[y]
	}
	for i := 1; i < n; i++ {
		for y := 0; y < l; y++ {
			best, arg := math.Inf(-1), int32(0)
			for p := 0; p < l; p++ {
				if v := delta[(i-1)*l+p] + s.trans(i, p, y); v > best {
					best, arg = v, int32(p)
				}
			}
			delta[i*l+y] = best + s.State[i*l+y]
			back[i*l+y] = arg
		}
	}
	best, arg := math.Inf(-1), int32(0)
	for y := 0; y < l; y++ {
		if v := delta[(n-1)*l+y] + s.Stop[y]; v > best {
			best, arg = v, int32(y)
		}
	}
	dst[n-1] = arg
	for i := n - 1; i > 0; i-- {
		dst[i-1] = back[i*l+int(dst[i])]
	}
	return best
}

// TestViterbiMatchesPlain compares the kernel with plainViterbi bit for
// bit on lattices too large to enumerate (up to 24 labels), including
// ones where every path is forbidden.
func TestViterbiMatchesPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 500; trial++ {
		l, n := 1+r.IntN(24), r.IntN(12)
		s := tieScores(r, n, l, trial%3 != 0, trial%5 == 0)
		if trial%2 == 0 {
			for k := range s.State {
				s.State[k] = 3 * r.NormFloat64()
			}
		}
		var cons *Constraints
		if trial%4 == 1 {
			cons = randomConstraints(r, l)
		}
		NewChain(s.Trans, s.Start, s.Stop, cons).Attach(s)
		want := make([]int32, n)
		wantScore := plainViterbi(want, s)
		path := make([]int32, n)
		score := NewWorkspace(l).Viterbi(path, s)
		if math.Float64bits(score) != math.Float64bits(wantScore) || !slices.Equal(path, want) {
			t.Fatalf("trial %d N=%d L=%d: %v (%v), plain Viterbi %v (%v)", trial, n, l, path, score, want, wantScore)
		}
	}
}

// TestChainSet: a chain changed entry by entry — scores moving to and
// from -Inf, forbidden entries written to — decodes as a chain built
// afresh from the same numbers, and forbidden entries stay -Inf.
func TestChainSet(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 200; trial++ {
		l, n := 1+r.IntN(10), 1+r.IntN(8)
		s := tieScores(r, n, l, true, false)
		var cons *Constraints
		if trial%2 == 0 {
			cons = randomConstraints(r, l)
		}
		c := NewChain(s.Trans, s.Start, s.Stop, cons)
		trans, start, stop := slices.Clone(s.Trans), slices.Clone(s.Start), slices.Clone(s.Stop)
		for k := 0; k < 3*l; k++ {
			v := coarse(r)
			if r.IntN(4) == 0 {
				v = math.Inf(-1)
			}
			prev, cur, y := r.IntN(l), r.IntN(l), r.IntN(l)
			switch r.IntN(3) {
			case 0:
				c.SetTrans(prev, cur, v)
				trans[prev*l+cur] = v
			case 1:
				c.SetStart(y, v)
				start[y] = v
			default:
				c.SetStop(y, v)
				stop[y] = v
			}
		}
		got, want := *s, *s
		c.Attach(&got)
		NewChain(trans, start, stop, cons).Attach(&want)
		if !slices.Equal(got.Trans, want.Trans) || !slices.Equal(got.Start, want.Start) || !slices.Equal(got.Stop, want.Stop) {
			t.Fatalf("trial %d: chain scores differ from a fresh chain's", trial)
		}
		p1, p2 := make([]int32, n), make([]int32, n)
		s1, s2 := NewWorkspace(l).Viterbi(p1, &got), NewWorkspace(l).Viterbi(p2, &want)
		if math.Float64bits(s1) != math.Float64bits(s2) || !slices.Equal(p1, p2) {
			t.Fatalf("trial %d: updated chain decodes %v (%v), fresh chain %v (%v)", trial, p1, s1, p2, s2)
		}
	}
}

// TestChainMisuse: a Scores whose Trans is not its Chain's is refused
// rather than decoded with the wrong transitions, and so is applying
// constraints under a chain.
func TestChainMisuse(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	s := tieScores(r, 3, 4, false, false)
	NewChain(s.Trans, s.Start, s.Stop, nil).Attach(s)
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"foreign Trans", func() {
			bad := *s
			bad.Trans = slices.Clone(s.Trans)
			NewWorkspace(4).Viterbi(make([]int32, 3), &bad)
		}},
		{"Apply under a chain", func() {
			randomConstraints(r, 4).Apply(s)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			c.f()
		})
	}
}

// TestViterbiZeroAllocs: with a chain, and with per-position transitions,
// decoding allocates nothing after warm-up.
func TestViterbiZeroAllocs(t *testing.T) {
	for _, perPos := range []bool{false, true} {
		t.Run(fmt.Sprintf("per-position=%v", perPos), func(t *testing.T) {
			s := tieScores(rand.New(rand.NewPCG(3, 3)), 40, 22, true, perPos)
			NewChain(s.Trans, s.Start, s.Stop, nil).Attach(s)
			w := NewWorkspace(22)
			path := make([]int32, 40)
			if allocs := testing.AllocsPerRun(50, func() { w.Viterbi(path, s) }); allocs != 0 {
				t.Fatalf("Viterbi allocates %v times per run", allocs)
			}
		})
	}
}

// BenchmarkViterbiConstrained decodes 24-token lattices over 22 labels
// with IOB-like constraints (half the labels reachable only from two
// others), through a prepared Chain as the tagger does.
func BenchmarkViterbiConstrained(b *testing.B) {
	const l, n = 22, 24
	// The numbers of the tagger's former decoder benchmark, drawn in its
	// order (one attribute's dense state weights first), so results
	// compare across the move.
	rng := rand.New(rand.NewPCG(3, 4))
	unused, trans, start, stop := make([]float64, l), make([]float64, l*l), make([]float64, l), make([]float64, l)
	for _, x := range [][]float64{unused, trans, start, stop} {
		for k := range x {
			x[k] = rng.NormFloat64()
		}
	}
	for y := 12; y < l; y++ {
		for p := 0; p < l; p++ {
			if p != y && p != y-10 {
				trans[p*l+y] = math.Inf(-1)
			}
		}
	}
	s := &Scores{N: n, L: l, State: make([]float64, n*l)}
	for i := range s.State {
		s.State[i] = 3 * rng.NormFloat64()
	}
	NewChain(trans, start, stop, nil).Attach(s)
	w := NewWorkspace(l)
	path := make([]int32, n)
	b.ReportAllocs()
	for b.Loop() {
		w.Viterbi(path, s)
	}
}
