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

// withRandomPairs gives m random pair features on the attributes marked
// in pair (each bigram with probability 1/3) and random weights.
func withRandomPairs(r *rand.Rand, m *Model, pair []bool) *Model {
	l := m.NumLabels
	lists := make([][]int32, m.NumAttrs())
	states := make([][]int32, m.NumAttrs())
	for a := range lists {
		if !pair[a] {
			states[a] = slices.Clone(m.FeatLabel[m.FeatOff[a]:m.FeatOff[a+1]])
			continue
		}
		for k := 0; k < l*l; k++ {
			if r.IntN(3) == 0 {
				lists[a] = append(lists[a], int32(k))
			}
		}
	}
	off, lab := packSorted(states)
	out := New(l, off, lab, true)
	out.PairOff, out.PairKey = packSorted(lists)
	out.W = append(out.W, make([]float64, len(out.PairKey))...)
	for i := range out.W {
		out.W[i] = float64(r.IntN(5)-2) / 2
	}
	return out
}

// pathScore is the definition of a path's score under a model with pair
// features: every state feature of every token with the token's label,
// the transition, start and stop weights, and every pair feature of token
// i's attributes whose bigram is (y[i-1], y[i]), each times the
// attribute's value.
func pathScore(m *Model, d *feature.Dataset, sent int, path []int32) float64 {
	lo, _ := d.Sentence(sent)
	l := m.NumLabels
	score := 0.0
	for i, y := range path {
		t := lo + i
		for k := d.TokenOff[t]; k < d.TokenOff[t+1]; k++ {
			a := d.Attrs[k]
			if f := m.Feature(a, y); f >= 0 {
				score += d.Value(k) * m.W[f]
			}
			if i > 0 {
				if f := m.PairFeature(a, path[i-1], y); f >= 0 {
					score += d.Value(k) * m.W[f]
				}
			}
		}
		if i > 0 {
			score += m.Trans()[int(path[i-1])*l+int(y)]
		}
	}
	if len(path) > 0 {
		score += m.Start()[path[0]] + m.Stop()[path[len(path)-1]]
	}
	return score
}

// TestPairLattice checks the lattice a Scorer fills for a model with pair
// features against the definition, path by path, for every layout, and
// Viterbi (with constraints) against enumeration.
func TestPairLattice(t *testing.T) {
	for _, values := range []bool{false, true} {
		for _, constrained := range []bool{false, true} {
			name := fmt.Sprintf("values=%v/constrained=%v", values, constrained)
			t.Run(name, func(t *testing.T) {
				r := rand.New(rand.NewPCG(3, uint64(len(name))))
				for trial := 0; trial < 40; trial++ {
					l, na := 1+r.IntN(4), 2+r.IntN(6)
					pair := make([]bool, na)
					for a := range pair {
						pair[a] = r.IntN(2) == 0
					}
					m := withRandomPairs(r, randomModel(r, na, l, r.IntN(2) == 0), pair)
					if err := m.Validate(); err != nil {
						t.Fatal(err)
					}
					d := randomSentences(r, na, 4, 4, values)
					var cons *lattice.Constraints
					if constrained {
						cons = randomConstraints(r, l)
					}
					chain := lattice.NewChain(m.Trans(), m.Start(), m.Stop(), cons)
					ws := lattice.NewWorkspace(l)
					exp := m.InPlaceScorer(m.W)
					exp.ExpPairs()
					for _, sc := range []*Scorer{m.NewScorer(m.W), m.InPlaceScorer(m.W), exp} {
						var s, plain lattice.Scores
						chain.Attach(&s)
						for sent := 0; sent < d.NumSentences(); sent++ {
							sc.Lattice(&s, d, sent)
							if (sc == exp && m.NumPairs() > 0) != (s.TransAtExp != nil) && s.N > 1 {
								t.Fatalf("TransAtExp set %v for the ExpPairs scorer %v", s.TransAtExp != nil, sc == exp)
							}
							m.LatticeWith(&plain, sc, m.W, d, sent)
							checkPaths(t, m, d, sent, &plain)
							checkLogZ(t, ws, &plain)
							want, wantScore := bestByEnumeration(&s)
							path := make([]int32, s.N)
							got := ws.Viterbi(path, &s)
							if got != wantScore || (want != nil && !slices.Equal(path, want)) {
								t.Fatalf("Viterbi %v (%v), brute force %v (%v)", path, got, want, wantScore)
							}
						}
					}
				}
			})
		}
	}
}

// checkLogZ compares forward-backward's log Z (the scaled pass over
// per-position blocks, with TransAtExp when set) with the log-sum-exp of
// every path's score.
func checkLogZ(t *testing.T, ws *lattice.Workspace, s *lattice.Scores) {
	t.Helper()
	var scores []float64
	path := make([]int32, s.N)
	var rec func(i int)
	rec = func(i int) {
		if i == s.N {
			scores = append(scores, lattice.SequenceScore(s, path))
			return
		}
		for y := 0; y < s.L; y++ {
			path[i] = int32(y)
			rec(i + 1)
		}
	}
	rec(0)
	want := lattice.LogSumExp(scores)
	if got := ws.ForwardBackward(s); math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Fatalf("log Z %v, brute force %v (TransAtExp %v)", got, want, s.TransAtExp != nil)
	}
}

// checkPaths compares every path's lattice score with the definition.
func checkPaths(t *testing.T, m *Model, d *feature.Dataset, sent int, s *lattice.Scores) {
	t.Helper()
	path := make([]int32, s.N)
	var rec func(i int)
	rec = func(i int) {
		if i == s.N {
			got, want := lattice.SequenceScore(s, path), pathScore(m, d, sent, path)
			if math.Abs(got-want) > 1e-12 {
				t.Fatalf("path %v scores %v in the lattice, %v by definition", path, got, want)
			}
			return
		}
		for y := 0; y < s.L; y++ {
			path[i] = int32(y)
			rec(i + 1)
		}
	}
	rec(0)
}

// TestWithPairs: the marked attributes lose their state features and get
// one pair feature per gold bigram they occur with at a token after the
// first, nothing else; unmarked attributes keep theirs.
func TestWithPairs(t *testing.T) {
	d := feature.NewDataset()
	// One sentence: tokens with attributes {0,1}, {1}, {0,1}; labels 0 1 1.
	d.Attrs = []int32{0, 1, 1, 0, 1}
	d.TokenOff = []int{0, 2, 3, 5}
	d.Labels = []int32{0, 1, 1}
	d.SentOff = []int{0, 3}
	m := WithPairs(NewObserved(d, 2, 2, true), d, []bool{false, true})
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := m.FeatLabel[m.FeatOff[1]:m.FeatOff[2]]; len(got) != 0 {
		t.Errorf("pair attribute kept state features %v", got)
	}
	if got := m.FeatLabel[m.FeatOff[0]:m.FeatOff[1]]; !slices.Equal(got, []int32{0, 1}) {
		t.Errorf("attribute 0 state features %v, want [0 1]", got)
	}
	// Attribute 1 at tokens 1 (bigram 0→1) and 2 (1→1); token 0 has none.
	if got := m.PairKey[m.PairOff[1]:m.PairOff[2]]; !slices.Equal(got, []int32{0*2 + 1, 1*2 + 1}) {
		t.Errorf("attribute 1 pair keys %v, want [1 3]", got)
	}
	if m.PairFeature(0, 0, 1) != -1 || m.PairFeature(1, 1, 0) != -1 || m.PairFeature(1, 1, 1) != m.PairBase()+1 {
		t.Errorf("PairFeature lookups wrong")
	}
	if same := WithPairs(m, d, []bool{false, false}); same != m {
		t.Errorf("WithPairs without marked attributes changed the model")
	}
}

// TestValidatePairs rejects broken pair structures a model file could
// hold.
func TestValidatePairs(t *testing.T) {
	base := func() *Model {
		m := New(2, []int32{0, 1}, []int32{0}, true)
		m.PairOff, m.PairKey = []int32{0, 2}, []int32{1, 3}
		m.W = append(m.W, 0, 0)
		return m
	}
	if err := base().Validate(); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(m *Model){
		"key out of range":     func(m *Model) { m.PairKey[1] = 4 },
		"unsorted":             func(m *Model) { m.PairKey[0], m.PairKey[1] = 3, 1 },
		"offsets":              func(m *Model) { m.PairOff = []int32{0, 1} },
		"weights":              func(m *Model) { m.W = m.W[:len(m.W)-1] },
		"local":                func(m *Model) { m.Local = true },
		"keys without offsets": func(m *Model) { m.PairOff = nil },
	} {
		m := base()
		edit(m)
		if err := m.Validate(); err == nil {
			t.Errorf("%s: Validate accepted it", name)
		}
	}
}
