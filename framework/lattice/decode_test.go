package lattice

import (
	"math"
	"math/rand/v2"
	"testing"
)

// prefixScore is the score of the partial path p under s: start, states
// and transitions of its positions, and Stop when it is complete.
func prefixScore(s *Scores, p []int32) float64 {
	if len(p) == 0 {
		return 0
	}
	v := s.Start[p[0]] + s.State[int(p[0])]
	for i := 1; i < len(p); i++ {
		v += s.trans(i, int(p[i-1]), int(p[i])) + s.State[i*s.L+int(p[i])]
	}
	if len(p) == s.N {
		v += s.Stop[p[len(p)-1]]
	}
	return v
}

// bruteBeam is beam search written out over explicit partial paths: each
// label of the position is extended from the kept path whose extension
// scores best (ties to the lowest previous label), and the width best
// labels are kept (ties to the lowest label). Width 1 is the greedy
// construction. It returns nil when every partial path is forbidden.
func bruteBeam(s *Scores, width int) []int32 {
	if s.N == 0 {
		return []int32{}
	}
	var beams [][]int32 // kept partial paths, in increasing last label
	for i := 0; i < s.N; i++ {
		type cand struct {
			path  []int32
			score float64
		}
		var cands []cand
		for y := 0; y < s.L; y++ {
			var best []int32
			bestScore := math.Inf(-1)
			froms := beams
			if i == 0 {
				froms = [][]int32{nil}
			}
			for _, b := range froms {
				p := append(append([]int32(nil), b...), int32(y))
				if v := prefixScore(s, p); v > bestScore {
					best, bestScore = p, v
				}
			}
			if best != nil {
				cands = append(cands, cand{best, bestScore})
			}
		}
		// Stable selection of the width best, ties to the lowest label.
		var kept []cand
		for len(kept) < width {
			k := -1
			for j, c := range cands {
				if c.path != nil && (k < 0 || c.score > cands[k].score) {
					k = j
				}
			}
			if k < 0 {
				break
			}
			kept = append(kept, cands[k])
			cands[k].path = nil
		}
		beams = beams[:0]
		for y := 0; y < s.L; y++ { // back to label order
			for _, c := range kept {
				if int(c.path[i]) == y {
					beams = append(beams, c.path)
				}
			}
		}
		if len(beams) == 0 {
			return nil
		}
	}
	var best []int32
	bestScore := math.Inf(-1)
	for _, b := range beams {
		if v := prefixScore(s, b); v > bestScore {
			best, bestScore = b, v
		}
	}
	return best
}

// bruteGreedy is the greedy construction from its definition: at each
// position, the label whose extension of the path so far scores best.
func bruteGreedy(s *Scores) []int32 {
	var p []int32
	for i := 0; i < s.N; i++ {
		best, bestScore := int32(-1), math.Inf(-1)
		for y := 0; y < s.L; y++ {
			if v := prefixScore(s, append(p, int32(y))); v > bestScore {
				best, bestScore = int32(y), v
			}
		}
		if best < 0 {
			return nil
		}
		p = append(p, best)
	}
	if p == nil {
		p = []int32{}
	}
	return p
}

// bruteMarginals computes P(y_i = y) by enumeration.
func bruteMarginals(s *Scores) []float64 {
	all := enumerate(s)
	scores := make([]float64, len(all))
	for k, p := range all {
		scores[k] = p.score
	}
	logZ := LogSumExp(scores)
	m := make([]float64, s.N*s.L)
	if math.IsInf(logZ, -1) {
		return m
	}
	for _, p := range all {
		for i, y := range p.path {
			m[i*s.L+int(y)] += math.Exp(p.score - logZ)
		}
	}
	return m
}

// allowedPath reports whether no start, transition or stop of p is -Inf
// in s.
func allowedPath(s *Scores, p []int32) bool {
	if len(p) == 0 {
		return true
	}
	if math.IsInf(s.Start[p[0]], -1) || math.IsInf(s.Stop[p[len(p)-1]], -1) {
		return false
	}
	for i := 1; i < len(p); i++ {
		if math.IsInf(s.trans(i, int(p[i-1]), int(p[i])), -1) {
			return false
		}
	}
	return true
}

// brutePosterior is the allowed path of largest Σ log marginal (ties to
// the first in enumeration order that is strictly best, compared from
// the last position like Viterbi's rule), and that sum.
func brutePosterior(s *Scores) ([]int32, float64) {
	m := bruteMarginals(s)
	var best []int32
	found, bestScore := false, math.Inf(-1)
	for _, p := range enumerate(s) {
		if !allowedPath(s, p.path) {
			continue
		}
		v := 0.0
		for i, y := range p.path {
			v += math.Log(m[i*s.L+int(y)])
		}
		if !found || v > bestScore {
			found, best, bestScore = true, p.path, v
		}
	}
	return best, bestScore
}

var decodeCases = []struct {
	name                 string
	ties, sparse, perPos bool
}{
	{"dense", false, false, false},
	{"sparse", false, true, false},
	{"ties-dense", true, false, false},
	{"ties-sparse", true, true, false},
	{"per-position", false, true, true},
	{"ties-per-position", true, true, true},
}

func decodeScores(r *rand.Rand, n, l int, ties, sparse, perPos bool) *Scores {
	if ties {
		return tieScores(r, n, l, sparse, perPos)
	}
	s := randomScores(r, n, l, 1, false)
	if sparse {
		for _, x := range [][]float64{s.Trans, s.Start, s.Stop} {
			for k := range x {
				if r.IntN(4) == 0 {
					x[k] = math.Inf(-1)
				}
			}
		}
	}
	if perPos {
		addTransAt(r, s, 1)
	}
	return s
}

func equalBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// TestBeamAgainstBruteForce: greedy equals the greedy construction, beam
// equals beam search over explicit paths at every width, width 1 equals
// greedy, and a width of at least L equals Viterbi bit for bit.
func TestBeamAgainstBruteForce(t *testing.T) {
	for _, c := range decodeCases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, uint64(len(c.name))))
			for trial := 0; trial < 400; trial++ {
				l, n := 1+r.IntN(5), r.IntN(6)
				s := decodeScores(r, n, l, c.ties, c.sparse, c.perPos)
				checkBeam(t, s)
			}
		})
	}
}

func checkBeam(t *testing.T, s *Scores) {
	t.Helper()
	d := NewDecoder(NewWorkspace(s.L), DecodeGreedy, 0)
	got := make([]int32, s.N)
	score := d.Greedy(got, s)
	want := bruteGreedy(s)
	if want == nil {
		if !math.IsInf(score, -1) {
			t.Fatalf("greedy found %v (%v) where the construction dead-ends", got, score)
		}
	} else if !equalPath(got, want) || !near(score, SequenceScore(s, want), 1e-12) {
		t.Fatalf("greedy %v (%v), construction %v (%v)", got, score, want, SequenceScore(s, want))
	}
	for width := 1; width <= s.L+1; width++ {
		bs := d.Beam(got, s, width)
		want := bruteBeam(s, width)
		if want == nil {
			if !math.IsInf(bs, -1) {
				t.Fatalf("beam %d found %v (%v) where every partial path dies", width, got, bs)
			}
			continue
		}
		if !equalPath(got, want) || !near(bs, SequenceScore(s, want), 1e-12) {
			t.Fatalf("beam %d: %v (%v), explicit beam search %v", width, got, bs, want)
		}
		if width == 1 && (!equalPath(got, bruteGreedy(s)) || !equalBits(bs, score)) {
			t.Fatalf("beam 1 %v (%v) differs from greedy %v (%v)", got, bs, bruteGreedy(s), score)
		}
	}
	vit := make([]int32, s.N)
	vs := NewWorkspace(s.L).Viterbi(vit, s)
	for _, width := range []int{s.L, s.L + 3} {
		bs := d.Beam(got, s, width)
		if !equalBits(bs, vs) || (!math.IsInf(vs, -1) && !equalPath(got, vit)) {
			t.Fatalf("beam %d (L = %d): %v (%v), Viterbi %v (%v)", width, s.L, got, bs, vit, vs)
		}
	}
}

// TestPosteriorAgainstBruteForce: without forbidden entries, the
// per-token argmax of the enumerated marginals; with them, the allowed
// path of largest summed log marginal, which is never a forbidden one.
func TestPosteriorAgainstBruteForce(t *testing.T) {
	for _, c := range decodeCases[:2] {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(9, uint64(len(c.name))))
			for trial := 0; trial < 300; trial++ {
				l, n := 1+r.IntN(4), r.IntN(6)
				s := decodeScores(r, n, l, false, c.sparse, false)
				if trial%3 == 0 {
					addTransAt(r, s, 1)
				}
				checkPosterior(t, s)
			}
		})
	}
}

// TestPosteriorForbiddenOnlyInTransAt: a bigram forbidden at one
// position by TransAt alone (Trans, Start and Stop all finite) is never
// in the posterior path, and the path is the brute-force best allowed
// one. The marginals alone would often pick it: the state marginals of
// both ends stay positive.
func TestPosteriorForbiddenOnlyInTransAt(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	d := NewDecoder(NewWorkspace(4), DecodePosterior, 0)
	for trial := 0; trial < 300; trial++ {
		l, n := 1+r.IntN(4), 2+r.IntN(4)
		s := decodeScores(r, n, l, false, false, true)
		for k := range s.TransAt {
			if r.IntN(3) == 0 {
				s.TransAt[k] = math.Inf(-1)
			}
		}
		checkPosterior(t, s)
		if l == 4 {
			// A reused decoder: the mask of an earlier, longer sentence
			// must not leak into this one.
			got := make([]int32, n)
			_, wantScore := brutePosterior(s)
			if score := d.Posterior(got, s); !math.IsInf(wantScore, -1) && (!allowedPath(s, got) || !near(score, wantScore, 1e-9)) {
				t.Fatalf("reused decoder: %v (%v), brute force best %v", got, score, wantScore)
			}
		}
	}
}

// TestPosteriorStates: with States = k, the posterior path's labels (its
// states / k) maximize the product of the label marginals, each the sum of
// its states' marginals by enumeration, among the allowed label paths;
// unconstrained, each token's label is its argmax and its state the
// label's most probable state (not the first, where the sums tie).
func TestPosteriorStates(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for trial := 0; trial < 300; trial++ {
		k := 2 + r.IntN(2)
		l, n := k*(1+r.IntN(3)), 1+r.IntN(4)
		s := decodeScores(r, n, l, false, trial%2 == 0, false)
		d := NewDecoder(NewWorkspace(l), DecodePosterior, 0)
		d.States = k
		got := make([]int32, n)
		score := d.Posterior(got, s)
		m := bruteMarginals(s)
		labels := l / k
		lm := make([]float64, n*labels)
		for i := 0; i < n; i++ {
			for y := 0; y < l; y++ {
				lm[i*labels+y/k] += m[i*l+y]
			}
		}
		if !hasForbidden(s) {
			for i := range got {
				row := lm[i*labels : (i+1)*labels]
				if row[got[i]/int32(k)] < row[argmax(row)]*(1-1e-9) {
					t.Fatalf("position %d: label %d (marginal %v), argmax %d (%v)", i, got[i]/int32(k), row[got[i]/int32(k)], argmax(row), row[argmax(row)])
				}
				first := int(got[i]) - int(got[i])%k
				states := m[i*l+first : i*l+first+k]
				if want := first + argmax(states); int(got[i]) != want {
					t.Fatalf("position %d: state %d of label %d, its most probable state is %d (marginals %v)", i, got[i], first/k, want, states)
				}
			}
			continue
		}
		if math.IsInf(score, -1) {
			continue
		}
		if !allowedPath(s, got) {
			t.Fatalf("posterior path %v is forbidden", got)
		}
		want := 0.0
		for i, y := range got {
			want += math.Log(lm[i*labels+int(y)/k])
		}
		if !near(score, want, 1e-9) {
			t.Fatalf("score %v, sum of the path's log label marginals %v", score, want)
		}
	}
}

func checkPosterior(t *testing.T, s *Scores) {
	t.Helper()
	d := NewDecoder(NewWorkspace(s.L), DecodePosterior, 0)
	got := make([]int32, s.N)
	score := d.Posterior(got, s)
	want, wantScore := brutePosterior(s)
	if math.IsInf(wantScore, -1) {
		if !math.IsInf(score, -1) {
			t.Fatalf("posterior %v (%v) where every path is forbidden", got, score)
		}
		return
	}
	if !allowedPath(s, got) {
		t.Fatalf("posterior path %v is forbidden", got)
	}
	if !near(score, wantScore, 1e-9) {
		t.Fatalf("posterior %v (%v), brute force %v (%v)", got, score, want, wantScore)
	}
	if !equalPath(got, want) {
		// Equal up to rounding: a different path of the same sum.
		t.Logf("posterior %v and brute force %v tie at %v", got, want, score)
	}
	if !hasForbidden(s) {
		m := bruteMarginals(s)
		for i := range got {
			row := m[i*s.L : (i+1)*s.L]
			if row[got[i]] < row[argmax(row)]*(1-1e-9) {
				t.Fatalf("position %d: label %d (marginal %v), argmax %d (%v)", i, got[i], row[got[i]], argmax(row), row[argmax(row)])
			}
		}
	}
}

func hasForbidden(s *Scores) bool {
	for _, x := range [][]float64{s.Trans, s.Start, s.Stop, s.TransAt} {
		for _, v := range x {
			if math.IsInf(v, -1) {
				return true
			}
		}
	}
	return false
}

func argmax(x []float64) int {
	k := 0
	for j, v := range x {
		if v > x[k] {
			k = j
		}
	}
	return k
}

// TestDecodeConstrained: every method, through Decode, returns a path the
// constraints allow whenever one exists — dead ends of greedy and narrow
// beams fall back to Viterbi — and Viterbi through Decode is Viterbi.
func TestDecodeConstrained(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	for trial := 0; trial < 500; trial++ {
		l, n := 2+r.IntN(4), 1+r.IntN(7)
		s := randomScores(r, n, l, 1, false)
		NewChain(s.Trans, s.Start, s.Stop, randomConstraints(r, l)).Attach(s)
		ws := NewWorkspace(l)
		vit := make([]int32, n)
		vs := ws.Viterbi(vit, s)
		for m := DecodeViterbi; m <= DecodeLabelPath; m++ {
			d := NewDecoder(ws, m, 2)
			if m == DecodeLabelPath && l%2 == 0 {
				d.States = 2 // the labels as hidden states, two per label
			}
			got := make([]int32, n)
			score := d.Decode(got, s)
			if math.IsInf(vs, -1) {
				if !math.IsInf(score, -1) {
					t.Fatalf("%v: score %v where every path is forbidden", m, score)
				}
				continue
			}
			if !allowedPath(s, got) || !near(score, SequenceScore(s, got), 1e-12) || score > vs+1e-9*math.Max(1, math.Abs(vs)) {
				t.Fatalf("%v: %v (%v), allowed %v, Viterbi %v (%v)", m, got, score, allowedPath(s, got), vit, vs)
			}
			if m == DecodeViterbi && !equalPath(got, vit) {
				t.Fatalf("Decode with Viterbi %v, Viterbi %v", got, vit)
			}
		}
	}
}

func TestParseMethod(t *testing.T) {
	for k, name := range MethodNames {
		if m, ok := ParseMethod(name); !ok || m != Method(k) || m.String() != name {
			t.Fatalf("ParseMethod(%q) = %v, %v", name, m, ok)
		}
	}
	if _, ok := ParseMethod("gredy"); ok {
		t.Fatal("ParseMethod accepted a misspelling")
	}
}

// TestDecodeZeroAllocs: after warm-up no method allocates (but
// DecodeLabelPath, whose n-best search does).
func TestDecodeZeroAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	c := &Constraints{Trans: make([]bool, 22*22), Start: make([]bool, 22), Stop: make([]bool, 22)}
	for _, x := range [][]bool{c.Trans, c.Start, c.Stop} {
		for k := range x {
			x[k] = r.IntN(4) > 0
		}
	}
	for _, kind := range []string{"free", "constrained", "per-position"} {
		constrained := kind != "free"
		s := randomScores(r, 40, 22, 1, false)
		if constrained {
			NewChain(s.Trans, s.Start, s.Stop, c).Attach(s)
		}
		if kind == "per-position" {
			addTransAt(r, s, 1)
		}
		for m := DecodeViterbi; m <= DecodePosterior; m++ {
			d := NewDecoder(NewWorkspace(22), m, 4)
			path := make([]int32, 40)
			d.Decode(path, s)
			if allocs := testing.AllocsPerRun(20, func() { d.Decode(path, s) }); allocs != 0 {
				t.Fatalf("%v (%s) allocates %v times per sentence", m, kind, allocs)
			}
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	s := randomScores(r, 24, 22, 1, false)
	for _, m := range []struct {
		m     Method
		width int
	}{{DecodeViterbi, 0}, {DecodeGreedy, 0}, {DecodeBeam, 4}, {DecodePosterior, 0}} {
		b.Run(m.m.String(), func(b *testing.B) {
			d := NewDecoder(NewWorkspace(22), m.m, m.width)
			path := make([]int32, 24)
			b.ReportAllocs()
			for b.Loop() {
				d.Decode(path, s)
			}
		})
	}
}

// FuzzDecoders runs the brute-force checks of greedy, beam and posterior
// decoding on fuzzed small lattices.
func FuzzDecoders(f *testing.F) {
	f.Add(uint64(1), uint8(3), uint8(4), uint8(0))
	f.Add(uint64(2), uint8(4), uint8(5), uint8(7))
	f.Fuzz(func(t *testing.T, seed uint64, nl, nn, kind uint8) {
		l, n := 1+int(nl%5), int(nn%6)
		r := rand.New(rand.NewPCG(seed, 2))
		c := decodeCases[int(kind)%len(decodeCases)]
		checkBeam(t, decodeScores(r, n, l, c.ties, c.sparse, c.perPos))
		if l <= 4 {
			checkPosterior(t, decodeScores(r, n, l, false, c.sparse, c.perPos))
		}
	})
}
