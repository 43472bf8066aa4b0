package lattice

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// randomTrigrams draws each possible trigram over l labels (⟨s⟩ first and
// ⟨/s⟩ last included) with probability p.
func randomTrigrams(r *rand.Rand, l int, p float64) []Trigram {
	var ts []Trigram
	for a := int32(Boundary); a < int32(l); a++ {
		for b := int32(0); b < int32(l); b++ {
			for c := int32(Boundary); c < int32(l); c++ {
				if r.Float64() < p {
					ts = append(ts, Trigram{a, b, c})
				}
			}
		}
	}
	r.Shuffle(len(ts), func(i, j int) { ts[i], ts[j] = ts[j], ts[i] })
	return ts
}

// bruteScore2 scores path the slow way: the first-order score plus a
// lookup of each trigram in the list, -Inf when an inner trigram is not
// listed or its bigrams are forbidden by c, or a one-token sentence has
// no allowed trigram starting (⟨s⟩, y0).
func bruteScore2(s *Scores, ts []Trigram, c *Constraints, path []int32) float64 {
	first := *s
	first.Order2, first.Trigram = nil, nil
	score := SequenceScore(&first, path)
	idx := map[Trigram]int{}
	for k, t := range ts {
		if allowedTrigram(t, s.L, c) {
			idx[t] = k
		}
	}
	n := len(path)
	if n == 1 {
		found := false
		for t := range idx {
			found = found || (t.A == Boundary && t.B == path[0])
		}
		if !found {
			return math.Inf(-1)
		}
	}
	at := func(i int) int32 { // y_i, Boundary outside the sentence
		if i < 0 || i >= n {
			return Boundary
		}
		return path[i]
	}
	for i := 1; i < n; i++ {
		k, ok := idx[Trigram{at(i - 2), at(i - 1), at(i)}]
		if !ok {
			return math.Inf(-1)
		}
		score += s.Trigram[k]
	}
	if k, ok := idx[Trigram{at(n - 2), at(n - 1), Boundary}]; ok {
		score += s.Trigram[k]
	}
	return score
}

type order2Case struct {
	n, l        int
	p           float64 // probability of each trigram
	scale       float64
	constrain   bool
	perPosition bool
}

func TestOrder2AgainstBruteForce(t *testing.T) {
	var cases []order2Case
	for _, l := range []int{1, 2, 3, 4} {
		for _, n := range []int{1, 2, 3, 5} {
			cases = append(cases,
				order2Case{n, l, 0.7, 1, false, false},
				order2Case{n, l, 0.5, 1, false, false},
				order2Case{n, l, 1, 1, false, true},
				order2Case{n, l, 0.8, 2, true, true},
				order2Case{n, l, 0.9, 600, false, false},
				order2Case{n, l, 0.9, 400, true, true},
			)
		}
	}
	r := rand.New(rand.NewPCG(7, 11))
	for _, tc := range cases {
		name := fmt.Sprintf("L%d-N%d-p%g-scale%g-constrained%v-perPosition%v", tc.l, tc.n, tc.p, tc.scale, tc.constrain, tc.perPosition)
		t.Run(name, func(t *testing.T) {
			for rep := 0; rep < 4; rep++ {
				s := randomScores(r, tc.n, tc.l, tc.scale, false)
				if tc.perPosition {
					addTransAt(r, s, tc.scale)
				}
				var c *Constraints
				if tc.constrain {
					c = randomConstraints(r, tc.l)
					c.Apply(s)
				}
				ts := randomTrigrams(r, tc.l, tc.p)
				o, err := NewOrder2(tc.l, ts, c)
				if err != nil {
					t.Fatal(err)
				}
				s.Order2, s.Trigram = o, make([]float64, len(ts))
				for k := range s.Trigram {
					s.Trigram[k] = tc.scale * r.NormFloat64()
				}
				checkOrder2(t, NewWorkspace(tc.l), s, ts, c)
			}
		})
	}
}

// brute2 enumerates every label sequence with its bruteScore2.
func brute2(s *Scores, ts []Trigram, c *Constraints) []scoredPath {
	all := enumerate(&Scores{N: s.N, L: s.L, State: s.State, Trans: s.Trans, Start: s.Start, Stop: s.Stop})
	for k := range all {
		all[k].score = bruteScore2(s, ts, c, all[k].path)
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].score > all[b].score })
	return all
}

func checkOrder2(t *testing.T, w *Workspace, s *Scores, ts []Trigram, c *Constraints) {
	t.Helper()
	all := brute2(s, ts, c)
	scores := make([]float64, len(all))
	for k, p := range all {
		scores[k] = p.score
		if got := SequenceScore(s, p.path); !near(got, p.score, 1e-12) {
			t.Fatalf("SequenceScore(%v) = %v, brute force %v", p.path, got, p.score)
		}
	}
	path := make([]int32, s.N)
	best := w.Viterbi(path, s)
	if !near(best, all[0].score, 1e-12) {
		t.Fatalf("Viterbi score %v, brute force %v", best, all[0].score)
	}
	if !math.IsInf(best, -1) && !near(bruteScore2(s, ts, c, path), best, 1e-12) {
		t.Fatalf("Viterbi path %v scores %v, Viterbi says %v", path, bruteScore2(s, ts, c, path), best)
	}
	checkNBest2(t, w, s, ts, c, all)
	logZ := LogSumExp(scores)
	if got := w.ForwardBackward(s); !near(got, logZ, 1e-9) {
		t.Fatalf("log Z %v, brute force %v (log space %v)", got, logZ, w.logSpace)
	}
	if math.IsInf(logZ, -1) {
		return
	}
	checkMarginals2(t, w, s, ts, all, logZ)
	checkPosterior2(t, s, all, logZ)
}

// checkPosterior2: posterior decoding of a second-order lattice returns,
// among the paths the lattice allows (finite brute-force score: seen
// trigrams, allowed bigrams), one of largest Σ log label marginal, and
// Decode scores it under s — never a path through an unseen trigram,
// which the per-token marginals alone often pick.
func checkPosterior2(t *testing.T, s *Scores, all []scoredPath, logZ float64) {
	t.Helper()
	n, l := s.N, s.L
	marg := make([]float64, n*l)
	for _, p := range all {
		for i, y := range p.path {
			marg[i*l+int(y)] += math.Exp(p.score - logZ)
		}
	}
	want := math.Inf(-1)
	for _, p := range all {
		if math.IsInf(p.score, -1) {
			continue
		}
		v := 0.0
		for i, y := range p.path {
			v += math.Log(marg[i*l+int(y)])
		}
		want = max(want, v)
	}
	d := NewDecoder(NewWorkspace(l), DecodePosterior, 0)
	path := make([]int32, n)
	got := d.Posterior(path, s)
	if !near(got, want, 1e-9) {
		t.Fatalf("posterior score %v, brute force %v", got, want)
	}
	if score := d.Decode(path, s); math.IsInf(score, -1) || !near(score, SequenceScore(s, path), 1e-12) {
		t.Fatalf("posterior path %v scores %v under the lattice (Decode says %v)", path, SequenceScore(s, path), score)
	}
}

func checkNBest2(t *testing.T, w *Workspace, s *Scores, ts []Trigram, c *Constraints, all []scoredPath) {
	t.Helper()
	const k = 5
	dst, sc := make([][]int32, k), make([]float64, k)
	found := w.NBest(dst, sc, s, k)
	finite := 0
	for _, p := range all {
		if !math.IsInf(p.score, -1) {
			finite++
		}
	}
	if found != min(k, finite) {
		t.Fatalf("NBest found %d, brute force has %d finite of which %d asked", found, finite, k)
	}
	for j := 0; j < found; j++ {
		if !near(sc[j], all[j].score, 1e-12) || !near(bruteScore2(s, ts, c, dst[j]), sc[j], 1e-12) {
			t.Fatalf("NBest %d: %v scores %v (brute %v), rank %d of brute force scores %v", j, dst[j], sc[j], bruteScore2(s, ts, c, dst[j]), j, all[j].score)
		}
	}
}

// checkMarginals2 compares label, bigram and trigram marginals and
// expected counts with the brute force's.
func checkMarginals2(t *testing.T, w *Workspace, s *Scores, ts []Trigram, all []scoredPath, logZ float64) {
	t.Helper()
	n, l := s.N, s.L
	label := make([]float64, n*l)
	pair := make([]float64, n*l*l)
	bigrams := make([]float64, l*l)
	tri := make([]float64, len(ts))
	idx := map[Trigram]int{}
	for k, tg := range ts {
		idx[tg] = k
	}
	for _, p := range all {
		pr := math.Exp(p.score - logZ)
		if pr == 0 {
			continue
		}
		at := func(i int) int32 {
			if i < 0 || i >= n {
				return Boundary
			}
			return p.path[i]
		}
		for i, y := range p.path {
			label[i*l+int(y)] += pr
			if i > 0 {
				pair[i*l*l+int(p.path[i-1])*l+int(y)] += pr
				bigrams[int(p.path[i-1])*l+int(y)] += pr
				tri[idx[Trigram{at(i - 2), at(i - 1), y}]] += pr
			}
		}
		if k, ok := idx[Trigram{at(n - 2), at(n - 1), Boundary}]; ok {
			tri[k] += pr
		}
	}
	got := make([]float64, n*l)
	w.StateMarginals(got)
	for k := range got {
		if !near(got[k], label[k], 1e-9) || !near(w.StateMarginal(k/l, k%l), label[k], 1e-9) {
			t.Fatalf("label marginal %d: %v, brute force %v", k, got[k], label[k])
		}
	}
	pm := make([]float64, l*l)
	for i := 1; i < n; i++ {
		w.PairMarginals(pm, s, i)
		for k, v := range pm {
			if want := pair[i*l*l+k]; !near(v, want, 1e-9) || !near(w.PairMarginal(s, i, k/l, k%l), want, 1e-9) {
				t.Fatalf("pair marginal at %d of %d: %v, brute force %v", i, k, v, want)
			}
		}
	}
	gb := make([]float64, l*l)
	w.AddTransMarginals(gb, s, 1)
	for k := range gb {
		if !near(gb[k], bigrams[k], 1e-9) {
			t.Fatalf("expected bigram %d: %v, brute force %v", k, gb[k], bigrams[k])
		}
	}
	gt := make([]float64, len(ts))
	w.AddTrigramMarginals(gt, s, 1)
	for k := range gt {
		if !near(gt[k], tri[k], 1e-9) {
			t.Fatalf("expected trigram %v: %v, brute force %v", ts[k], gt[k], tri[k])
		}
	}
}

func TestNewOrder2Refuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		ts   []Trigram
	}{
		{"label out of range", []Trigram{{0, 3, 1}}},
		{"boundary in the middle", []Trigram{{0, Boundary, 1}}},
		{"duplicate", []Trigram{{0, 1, 2}, {0, 1, 2}}},
		{"negative", []Trigram{{-2, 1, 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewOrder2(3, tc.ts, nil); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

// order2Bench builds a second-order lattice shaped like CoNLL-2000
// chunking: 23 labels, each followed by 6 of them, and the trigrams of
// 3,000 random walks of 20 labels over those bigrams — 161 pair states,
// 966 inner trigrams (edges) and 1,104 in all, where CoNLL-2000 has 155
// states and 846 trigrams (random trigrams would give far more states
// than a corpus does). The
// first-order lattice of the same sentences scores all 23² bigrams.
func order2Bench(n int) (*Scores, *Scores) {
	r := rand.New(rand.NewPCG(1, 2))
	const l, succ = 23, 6
	s := randomScores(r, n, l, 1, false)
	next := make([][]int32, l)
	for y := range next {
		for _, k := range r.Perm(l)[:succ] {
			next[y] = append(next[y], int32(k))
		}
	}
	seen := map[Trigram]bool{}
	var ts []Trigram
	add := func(t Trigram) {
		if !seen[t] {
			seen[t] = true
			ts = append(ts, t)
		}
	}
	for walk := 0; walk < 3000; walk++ {
		a, b := int32(Boundary), int32(r.IntN(l))
		for i := 1; i < 20; i++ {
			c := next[b][r.IntN(succ)]
			add(Trigram{a, b, c})
			a, b = b, c
		}
		add(Trigram{a, b, Boundary})
	}
	o, err := NewOrder2(l, ts, nil)
	if err != nil {
		panic(err)
	}
	s2 := *s
	s2.Order2, s2.Trigram = o, make([]float64, len(ts))
	for k := range s2.Trigram {
		s2.Trigram[k] = r.NormFloat64()
	}
	return s, &s2
}

// namedScores is a lattice a benchmark runs on, by name.
type namedScores struct {
	name string
	s    *Scores
}

// orderPair is order2Bench(n)'s lattices, "first" and "second" order,
// for the benchmarks that compare them.
func orderPair(n int) []namedScores {
	s1, s2 := order2Bench(n)
	return []namedScores{{"first", s1}, {"second", s2}}
}

func TestOrder2ZeroAllocs(t *testing.T) {
	_, s := order2Bench(30)
	w := NewWorkspace(s.L)
	path := make([]int32, s.N)
	dst := make([]float64, s.L*s.L)
	tri := make([]float64, len(s.Trigram))
	run := func() {
		w.Viterbi(path, s)
		w.ForwardBackward(s)
		w.AddTransMarginals(dst, s, 1)
		w.AddTrigramMarginals(tri, s, 1)
	}
	run()
	if a := testing.AllocsPerRun(10, run); a != 0 {
		t.Fatalf("%v allocations per run", a)
	}
}

// BenchmarkOrder2ForwardBackward compares a forward-backward with the
// gradient's expected counts over first- and second-order lattices of
// the same sentences.
func BenchmarkOrder2ForwardBackward(b *testing.B) {
	for _, c := range orderPair(25) {
		b.Run(c.name, func(b *testing.B) {
			w := NewWorkspace(c.s.L)
			dst := make([]float64, c.s.L*c.s.L)
			tri := make([]float64, len(c.s.Trigram))
			for b.Loop() {
				w.ForwardBackward(c.s)
				w.AddTransMarginals(dst, c.s, 1)
				if c.s.Order2 != nil {
					w.AddTrigramMarginals(tri, c.s, 1)
				}
			}
		})
	}
}

// TestOrder2Reuse: a Workspace reused across lattices whose trigram
// scores, structure or transitions change gives what a fresh one gives
// (the exponentiated trigrams are cached between calls).
func TestOrder2Reuse(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	w := NewWorkspace(3)
	for rep := 0; rep < 12; rep++ {
		s := randomScores(r, 4, 3, 1, false)
		ts := randomTrigrams(r, 3, 0.8)
		o, err := NewOrder2(3, ts, nil)
		if err != nil {
			t.Fatal(err)
		}
		s.Order2, s.Trigram = o, make([]float64, len(ts))
		for k := range s.Trigram {
			s.Trigram[k] = r.NormFloat64()
		}
		for _, change := range []func(){
			func() {},
			func() { s.Trigram[0] += 0.5 },
			func() { s.Trans[1] -= 0.25 },
		} {
			if len(s.Trigram) == 0 {
				break
			}
			change()
			got, want := w.ForwardBackward(s), NewWorkspace(3).ForwardBackward(s)
			if got != want {
				t.Fatalf("rep %d: log Z %v reusing the workspace, %v fresh", rep, got, want)
			}
		}
	}
}

// BenchmarkOrder2Viterbi compares Viterbi over first- and second-order
// lattices of the same sentences (the perceptron's and the tagger's
// decode).
func BenchmarkOrder2Viterbi(b *testing.B) {
	for _, c := range orderPair(25) {
		b.Run(c.name, func(b *testing.B) {
			w := NewWorkspace(c.s.L)
			path := make([]int32, c.s.N)
			for b.Loop() {
				w.Viterbi(path, c.s)
			}
		})
	}
}
