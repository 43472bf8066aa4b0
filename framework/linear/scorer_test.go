package linear

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
)

// randomModel draws a dense model or a sparse one (each attribute-label
// pair present with probability 1/3), with coarse weights — multiples of
// 1/2 in [-1, 1] — so that sums are exact and paths tie.
func randomModel(r *rand.Rand, numAttrs, l int, dense bool) *Model {
	var m *Model
	if dense {
		m = NewDense(numAttrs, l, true)
	} else {
		off := make([]int32, numAttrs+1)
		var lab []int32
		for a := 0; a < numAttrs; a++ {
			for y := 0; y < l; y++ {
				if r.IntN(3) == 0 {
					lab = append(lab, int32(y))
				}
			}
			off[a+1] = int32(len(lab))
		}
		m = New(l, off, lab, true)
	}
	for i := range m.W {
		m.W[i] = float64(r.IntN(5)-2) / 2
	}
	return m
}

// randomSentences draws nsent sentences of up to maxLen tokens with up to
// four attributes each; with values, attribute values are multiples of
// 1/4 (exact products with the coarse weights).
func randomSentences(r *rand.Rand, numAttrs, nsent, maxLen int, values bool) *feature.Dataset {
	d := feature.NewDataset()
	if values {
		d.Values = []float64{}
	}
	for s := 0; s < nsent; s++ {
		for i := r.IntN(maxLen + 1); i > 0; i-- {
			for k := r.IntN(5); k > 0; k-- {
				d.Attrs = append(d.Attrs, int32(r.IntN(numAttrs)))
				if values {
					d.Values = append(d.Values, float64(r.IntN(9))/4)
				}
			}
			d.TokenOff = append(d.TokenOff, len(d.Attrs))
			d.Labels = append(d.Labels, -1)
		}
		d.SentOff = append(d.SentOff, len(d.Labels))
	}
	return d
}

// randomConstraints forbids about a third of the bigrams, starts and stops.
func randomConstraints(r *rand.Rand, l int) *lattice.Constraints {
	c := &lattice.Constraints{Trans: make([]bool, l*l), Start: make([]bool, l), Stop: make([]bool, l)}
	for _, x := range [][]bool{c.Trans, c.Start, c.Stop} {
		for k := range x {
			x[k] = r.IntN(3) > 0
		}
	}
	return c
}

// TestScorerLayouts: the dense, packed and in-place layouts give the same
// bits, before and after weights change (through Set for the packed
// copy, by writing the vector for the others), with unit and real
// attribute values.
func TestScorerLayouts(t *testing.T) {
	for _, c := range []struct {
		name          string
		dense, values bool
	}{
		{"dense", true, false}, {"dense-values", true, true},
		{"sparse", false, false}, {"sparse-values", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(len(c.name))))
			for trial := 0; trial < 100; trial++ {
				l, numAttrs := 1+r.IntN(24), 1+r.IntN(30)
				m := randomModel(r, numAttrs, l, c.dense)
				for i := range m.W {
					m.W[i] = r.NormFloat64() // real weights: rounding must agree too
				}
				d := randomSentences(r, numAttrs, 4, 8, c.values)
				for k := range d.Values {
					d.Values[k] = r.NormFloat64()
				}
				sc := m.NewScorer(m.W)
				// A sparse draw can happen to be dense (one label, say).
				if (sc.dense != nil) != m.dense() || (c.dense && sc.dense == nil) {
					t.Fatalf("trial %d: dense model %v, dense layout %v", trial, m.dense(), sc.dense != nil)
				}
				in := m.InPlaceScorer(m.W)
				if (in.dense != nil) != m.dense() {
					t.Fatalf("trial %d: dense model %v, in-place dense layout %v", trial, m.dense(), in.dense != nil)
				}
				check := func(when string) {
					want := make([]float64, d.NumTokens()*l)
					m.StateScores(want, m.W, d, 0, d.NumTokens())
					for _, s := range []*Scorer{sc, in} {
						got := make([]float64, d.NumTokens()*l)
						s.StateScores(got, d, 0, d.NumTokens())
						for k := range got {
							if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
								t.Fatalf("trial %d %s: score %d = %v, Model.StateScores %v", trial, when, k, got[k], want[k])
							}
						}
					}
				}
				check("as built")
				for k := 0; k < 10 && m.NumFeatures() > 0; k++ {
					f := r.IntN(m.NumFeatures())
					m.W[f] += r.NormFloat64()
					sc.Set(f, m.W[f])
				}
				check("after Set")
			}
		})
	}
}

// TestStateScoresDefinition: the packed layout against the definition.
func TestStateScoresDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	d := randomData(r, true)
	m := NewObserved(d, 6, 3, true)
	for i := range m.W {
		m.W[i] = r.NormFloat64()
	}
	got := make([]float64, d.NumTokens()*3)
	m.NewScorer(m.W).StateScores(got, d, 0, d.NumTokens())
	for tok := 0; tok < d.NumTokens(); tok++ {
		for y := int32(0); y < 3; y++ {
			want := 0.0
			for k := d.TokenOff[tok]; k < d.TokenOff[tok+1]; k++ {
				if f := m.Feature(d.Attrs[k], y); f >= 0 {
					want += d.Value(k) * m.W[f]
				}
			}
			if diff := got[tok*3+int(y)] - want; math.Abs(diff) > 1e-12 {
				t.Fatalf("token %d label %d: %v, want %v", tok, y, got[tok*3+int(y)], want)
			}
		}
	}
}

// bestByEnumeration returns the best path of s over all L^N paths, ties
// to the lowest label at the last position, then the one before, and so
// on back (the rule lattice's Viterbi promises), and its score.
func bestByEnumeration(s *lattice.Scores) ([]int32, float64) {
	path := make([]int32, s.N)
	var best []int32
	bestScore := math.Inf(-1)
	var rec func(i int)
	rec = func(i int) {
		if i == s.N {
			v := lattice.SequenceScore(s, path)
			if math.IsInf(v, -1) || v < bestScore {
				return
			}
			if v > bestScore || lowerFromEnd(path, best) {
				best, bestScore = slices.Clone(path), v
			}
			return
		}
		for y := 0; y < s.L; y++ {
			path[i] = int32(y)
			rec(i + 1)
		}
	}
	rec(0)
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

// TestDecodeBruteForce decodes sentences the way the tagger, the
// perceptron and dev scoring do — a Scorer's state scores, a Chain with
// the constraints, lattice's Viterbi kernel — and checks each against
// every path: dense and sparse models, with and without constraints and
// attribute values. Weights are coarse, so ties are common and must go
// to the lowest label. It also checks the plain route (Model.Lattice,
// constraints applied to copies, no Chain) gives the same bits.
func TestDecodeBruteForce(t *testing.T) {
	for _, dense := range []bool{true, false} {
		for _, constrained := range []bool{false, true} {
			for _, values := range []bool{false, true} {
				name := fmt.Sprintf("dense=%v/constrained=%v/values=%v", dense, constrained, values)
				t.Run(name, func(t *testing.T) {
					r := rand.New(rand.NewPCG(7, uint64(len(name))))
					for trial := 0; trial < 60; trial++ {
						checkDecode(t, r, 1+r.IntN(7), dense, constrained, values)
					}
				})
			}
		}
	}
}

func checkDecode(t *testing.T, r *rand.Rand, l int, dense, constrained, values bool) {
	t.Helper()
	numAttrs := 1 + r.IntN(12)
	m := randomModel(r, numAttrs, l, dense)
	maxLen := 4
	if l > 5 {
		maxLen = 3
	}
	d := randomSentences(r, numAttrs, 3, maxLen, values)
	var cons *lattice.Constraints
	if constrained {
		cons = randomConstraints(r, l)
	}
	chain := lattice.NewChain(m.Trans(), m.Start(), m.Stop(), cons)
	var sc, plain lattice.Scores
	chain.Attach(&sc)
	scorer := m.NewScorer(m.W)
	ws := lattice.NewWorkspace(l)
	for s := 0; s < d.NumSentences(); s++ {
		scorer.Lattice(&sc, d, s)
		want, wantScore := bestByEnumeration(&sc)
		path := make([]int32, sc.N)
		score := ws.Viterbi(path, &sc)
		if score != wantScore || (want != nil && !slices.Equal(path, want)) {
			t.Fatalf("L=%d N=%d: %v (%v), brute force %v (%v)", l, sc.N, path, score, want, wantScore)
		}
		m.Lattice(&plain, m.W, d, s)
		plain.Trans, plain.Start, plain.Stop = slices.Clone(plain.Trans), slices.Clone(plain.Start), slices.Clone(plain.Stop)
		cons.Apply(&plain)
		plainPath := make([]int32, plain.N)
		plainScore := ws.Viterbi(plainPath, &plain)
		if math.Float64bits(plainScore) != math.Float64bits(score) || !slices.Equal(plainPath, path) {
			t.Fatalf("L=%d N=%d: plain route %v (%v), decoding route %v (%v)", l, sc.N, plainPath, plainScore, path, score)
		}
	}
}

// TestDecodeMatchesPlain is the tagger's former decoder test, moved with
// the code: the decoding route (Scorer, Chain, kernel) gives the bits of
// the plain route (Model.Lattice, -Inf entries in copies, no Chain) on
// lattices too large to enumerate — up to 24 labels, unit and real
// attribute values, -Inf transitions, starts and stops, ties, and
// lattices where every path is forbidden.
func TestDecodeMatchesPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		l, numAttrs := 1+r.IntN(24), 1+r.IntN(30)
		m := randomModel(r, numAttrs, l, trial%2 == 0)
		trans, start, stop := slices.Clone(m.Trans()), slices.Clone(m.Start()), slices.Clone(m.Stop())
		if trial%3 != 0 {
			for i := range trans {
				if r.IntN(3) == 0 {
					trans[i] = math.Inf(-1)
				}
			}
			for i := range start {
				if r.IntN(4) == 0 {
					start[i] = math.Inf(-1)
				}
				if r.IntN(4) == 0 {
					stop[i] = math.Inf(-1)
				}
			}
		}
		d := randomSentences(r, numAttrs, 1+r.IntN(4), 7, trial%4 == 1)
		for k := range d.Values {
			d.Values[k] = float64(r.IntN(7)) / 3
		}
		var sc, plain lattice.Scores
		lattice.NewChain(trans, start, stop, nil).Attach(&sc)
		scorer := m.NewScorer(m.W)
		ws := lattice.NewWorkspace(l)
		for s := 0; s < d.NumSentences(); s++ {
			scorer.Lattice(&sc, d, s)
			m.Lattice(&plain, m.W, d, s)
			for i := range sc.State {
				if math.Float64bits(sc.State[i]) != math.Float64bits(plain.State[i]) {
					t.Fatalf("trial %d sentence %d: state %v, want %v", trial, s, sc.State, plain.State)
				}
			}
			plain.Trans, plain.Start, plain.Stop = trans, start, stop
			want := make([]int32, plain.N)
			wantScore := ws.Viterbi(want, &plain)
			path := make([]int32, sc.N)
			score := ws.Viterbi(path, &sc)
			if !slices.Equal(path, want) || math.Float64bits(score) != math.Float64bits(wantScore) {
				t.Fatalf("trial %d sentence %d: viterbi %v (%v), want %v (%v)", trial, s, path, score, want, wantScore)
			}
		}
	}
}

// TestLocalLattice: for a locally normalized model every layout fills the
// same lattice (normalizers included, to the bit), each position's
// outgoing scores are log probabilities (Σ_c exp = 1 for every previous
// label, and at position 0), and forward-backward's log Z is 0. Weights
// scaled by 1000 make the fast normalizer's sums underflow, which must be
// caught and done the direct way.
func TestLocalLattice(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, tc := range []struct {
		dense bool
		scale float64
	}{{false, 1}, {true, 1}, {false, 1000}, {true, 1000}} {
		dense := tc.dense
		t.Run(fmt.Sprintf("dense=%v,scale=%v", dense, tc.scale), func(t *testing.T) {
			l := 4
			m := randomModel(r, 6, l, dense)
			m.Local = true
			for f := range m.W {
				m.W[f] *= tc.scale
			}
			clear(m.Stop())
			d := randomSentences(r, 6, 20, 5, true)
			ws := lattice.NewWorkspace(l)
			for s := 0; s < d.NumSentences(); s++ {
				var a, b, c lattice.Scores
				m.NewScorer(m.W).Lattice(&a, d, s)
				m.InPlaceScorer(m.W).Lattice(&b, d, s)
				m.Lattice(&c, m.W, d, s)
				if a.N == 0 {
					continue
				}
				if !slices.Equal(a.State, b.State) || !slices.Equal(a.State, c.State) ||
					!slices.Equal(a.TransAt, b.TransAt) || !slices.Equal(a.TransAt, c.TransAt) {
					t.Fatalf("sentence %d: layouts disagree on a local model's lattice", s)
				}
				sum := 0.0
				for y := 0; y < l; y++ {
					sum += math.Exp(c.Start[y] + c.State[y])
				}
				if math.Abs(sum-1) > 1e-12 {
					t.Fatalf("sentence %d: position 0 sums to %v", s, sum)
				}
				for i := 1; i < c.N; i++ {
					for p := 0; p < l; p++ {
						sum := 0.0
						for y := 0; y < l; y++ {
							sum += math.Exp(c.State[i*l+y] + c.Trans[p*l+y] + c.TransAt[(i-1)*l*l+p*l+y])
						}
						if math.Abs(sum-1) > 1e-12 {
							t.Fatalf("sentence %d position %d after %d: probabilities sum to %v", s, i, p, sum)
						}
					}
				}
				if logZ := ws.ForwardBackward(&c); math.Abs(logZ) > 1e-12 {
					t.Fatalf("sentence %d: log Z = %v, want 0", s, logZ)
				}
			}
		})
	}
}

// TestModelLatticeLocalCache: Model.Lattice of a local model prepares
// exp(Trans) once per set of transition and start weights — no
// allocation per sentence once warm — and follows in-place changes of
// those weights (an optimizer's step), giving the bits a fresh Scorer
// gives.
func TestModelLatticeLocalCache(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	l := 4
	m := randomModel(r, 6, l, false)
	m.Local = true
	clear(m.Stop())
	d := randomSentences(r, 6, 20, 5, true)
	var got, want lattice.Scores
	check := func(step string) {
		t.Helper()
		for s := 0; s < d.NumSentences(); s++ {
			m.Lattice(&got, m.W, d, s)
			m.InPlaceScorer(m.W).Lattice(&want, d, s)
			if !slices.Equal(got.State, want.State) || !slices.Equal(got.TransAt, want.TransAt) {
				t.Fatalf("%s, sentence %d: Model.Lattice differs from a fresh Scorer", step, s)
			}
		}
	}
	check("first")
	var sc lattice.Scores
	for s := 0; s < d.NumSentences(); s++ {
		m.Lattice(&sc, m.W, d, s) // grow sc to the longest sentence
	}
	allocs := testing.AllocsPerRun(10, func() {
		for s := 0; s < d.NumSentences(); s++ {
			m.Lattice(&sc, m.W, d, s)
		}
	})
	if allocs != 0 {
		t.Fatalf("Model.Lattice of a local model allocates %v times per pass once warm", allocs)
	}
	f := m.NumFeatures()
	for _, c := range []struct {
		name string
		k    int
	}{{"transition changed", f + 1*l + 2}, {"start changed", f + l*l + 3}} {
		m.W[c.k] += 0.75
		check(c.name)
	}
	// Several goroutines at once (run with -race): the cache is shared.
	done := make(chan struct{})
	for g := 0; g < 3; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			var sc lattice.Scores
			for s := 0; s < d.NumSentences(); s++ {
				m.Lattice(&sc, m.W, d, s)
			}
		}()
	}
	for g := 0; g < 3; g++ {
		<-done
	}
}
