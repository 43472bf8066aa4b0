package transition

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
)

var testLabels = []string{"B-A", "I-A", "B-B", "O"}

// randomSentence is a sentence of n tokens over testLabels with random
// static and history scores, I-A forbidden after O, B-B and at the start
// (the iob2 constraints), and keys with repeats.
func randomSentence(r *rand.Rand, lay *Layout, n int) *Sentence {
	l := len(testLabels)
	sc := &lattice.Scores{N: n, L: l, State: make([]float64, n*l), Trans: make([]float64, l*l), Start: make([]float64, l), Stop: make([]float64, l)}
	for _, v := range [][]float64{sc.State, sc.Trans, sc.Start, sc.Stop} {
		for i := range v {
			v[i] = r.NormFloat64()
		}
	}
	for _, p := range []int{2, 3} {
		sc.Trans[p*l+1] = math.Inf(-1)
	}
	sc.Start[1] = math.Inf(-1)
	in := &Sentence{Scores: sc, History: make([]float64, lay.H()*l)}
	for i := range in.History {
		in.History[i] = r.NormFloat64()
	}
	keys := make([]int32, n)
	for i := range keys {
		keys[i] = int32(r.IntN(3)) - 1 // -1, 0 or 1
	}
	in.Context.SetKeys(keys)
	in.Context.Doc = &Document{}
	in.Context.Doc.Commit(lay, []int32{0}, []int32{2}) // key 0 was once B-B
	return in
}

// exhaustive is the best sequence by enumeration of every label sequence
// under s's scoring (SequenceScore).
func exhaustive(s *Search, in *Sentence) ([]int32, float64) {
	n, l := in.Scores.N, in.Scores.L
	seq := make([]int32, n)
	var best []int32
	bestScore := math.Inf(-1)
	for code := 0; code < pow(l, n); code++ {
		v := code
		for i := range seq {
			seq[i] = int32(v % l)
			v /= l
		}
		if sc := s.SequenceScore(in, seq); sc > bestScore {
			best, bestScore = slices.Clone(seq), sc
		}
	}
	return best, bestScore
}

// TestBeamExact: a beam as wide as the number of distinct histories (all
// L^(n-1) prefixes before the last position) finds the exact best
// sequence under the history-feature score, and its score is the
// sequence's; narrower beams never beat it.
func TestBeamExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	lay, err := NewLayout("h", feature.Decisions{Previous: 3, Span: true, Document: true, Column: "word"}, testLabels)
	if err != nil {
		t.Fatal(err)
	}
	l := len(testLabels)
	for trial := 0; trial < 200; trial++ {
		n := 1 + trial%5
		in := randomSentence(r, lay, n)
		ref := New(lay, 1)
		want, wantScore := exhaustive(ref, in)
		exact := New(lay, pow(l, n-1))
		got := make([]int32, n)
		score := exact.Decode(got, in)
		if !slices.Equal(got, want) || score != wantScore {
			t.Fatalf("trial %d (n=%d): beam %v (%v), exhaustive %v (%v)", trial, n, got, score, want, wantScore)
		}
		if s := ref.SequenceScore(in, got); s != score {
			t.Fatalf("trial %d: decoded score %v, SequenceScore %v", trial, score, s)
		}
		for _, w := range []int{1, 2, 4} {
			s := New(lay, w).Decode(got, in)
			if s > wantScore || math.IsInf(s, -1) {
				t.Fatalf("trial %d: width %d scored %v above the exact %v or found nothing", trial, w, s, wantScore)
			}
			if got[0] == 1 || (n > 1 && slices.ContainsFunc(got[1:], func(y int32) bool { return y == 1 }) && !allowedPath(got)) {
				t.Fatalf("trial %d: width %d gave a forbidden path %v", trial, w, got)
			}
		}
	}
}

// allowedPath reports whether I-A (1) follows only B-A or I-A.
func allowedPath(p []int32) bool {
	for i, y := range p {
		if y == 1 && (i == 0 || (p[i-1] != 0 && p[i-1] != 1)) {
			return false
		}
	}
	return true
}

// TestGreedy: width 1 is the argmax of Local at each position after its
// own labels.
func TestGreedy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	lay, _ := NewLayout("h", feature.Decisions{Previous: 2, Span: true, Document: true, Column: "word"}, testLabels)
	for trial := 0; trial < 50; trial++ {
		in := randomSentence(r, lay, 6)
		s := New(lay, 1)
		got := make([]int32, 6)
		s.Decode(got, in)
		want := make([]int32, 0, 6)
		cand := make([]float64, len(testLabels))
		for i := 0; i < 6; i++ {
			s.Local(cand, in, want, i)
			best := 0
			for y := range cand {
				if cand[y] > cand[best] {
					best = y
				}
			}
			want = append(want, int32(best))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("greedy %v, step by step %v", got, want)
		}
	}
}

// TestActive checks the history features of one prefix by hand.
func TestActive(t *testing.T) {
	lay, err := NewLayout("h", feature.Decisions{Previous: 2, Span: true, Document: true, Column: "word"}, testLabels)
	if err != nil {
		t.Fatal(err)
	}
	// 4 labels and the start: 25 bigrams; span: none + 2 types × 4; document:
	// 3 types (A, B, O) seen and first.
	if lay.H() != 25+9+6 {
		t.Fatalf("H = %d", lay.H())
	}
	names := func(act []int32) []string {
		var out []string
		for _, h := range act {
			out = append(out, lay.Names()[h])
		}
		return out
	}
	// Tokens: x y x z x; key of x is 7. Committed: x was once O.
	var c Context
	c.SetKeys([]int32{7, 8, 7, 9, 7})
	c.Doc = &Document{}
	c.Doc.Commit(lay, []int32{7}, []int32{3})
	prefix := []int32{0, 1, 1, 3, 2} // B-A I-A I-A O B-B
	for _, tc := range []struct {
		i    int
		want []string
	}{
		{0, []string{"h/prev2=<s>|<s>", "h/span=none", "h/seen=O", "h/first=O"}},
		{1, []string{"h/prev2=<s>|B-A", "h/span=A:1"}},
		{3, []string{"h/prev2=I-A|I-A", "h/span=A:3"}},
		{4, []string{"h/prev2=I-A|O", "h/span=none", "h/seen=A", "h/seen=O", "h/first=O"}},
	} {
		if got := names(lay.Active(nil, prefix, tc.i, &c)); !slices.Equal(got, tc.want) {
			t.Errorf("position %d: %q, want %q", tc.i, got, tc.want)
		}
	}
	// Without a committed history the first occurrence in the sentence
	// gives "first"; four tokens of a span bucket as 4+.
	c.Doc.Reset()
	if got := names(lay.Active(nil, prefix, 4, &c)); !slices.Equal(got, []string{"h/prev2=I-A|O", "h/span=none", "h/seen=A", "h/first=A"}) {
		t.Errorf("uncommitted: %q", got)
	}
	long := []int32{0, 1, 1, 1, 1}
	if got := names(lay.Active(nil, long, 5, nil)); !slices.Equal(got, []string{"h/prev2=I-A|I-A", "h/span=A:4+"}) {
		t.Errorf("long span: %q", got)
	}
}

// TestKeys: keys compare case-insensitively and restart per document.
func TestKeys(t *testing.T) {
	var k Keys
	a, b, c := k.Key("EU"), k.Key("Eu"), k.Key("Über")
	if a != b || c == a || k.Key("über") != c {
		t.Errorf("keys %d %d %d", a, b, c)
	}
	k.Reset()
	if k.Key("x") != 0 {
		t.Error("Reset kept the words")
	}
	if n := testing.AllocsPerRun(100, func() { k.Key("X") }); n != 0 {
		t.Errorf("a known key allocates %v times", n)
	}
}

// TestDecodeAllocs: searching allocates nothing once the buffers grew.
func TestDecodeAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	lay, _ := NewLayout("h", feature.Decisions{Previous: 3, Span: true, Document: true, Column: "word"}, testLabels)
	in := randomSentence(r, lay, 8)
	s := New(lay, 4)
	dst := make([]int32, 8)
	s.Decode(dst, in)
	if n := testing.AllocsPerRun(50, func() { s.Decode(dst, in) }); n != 0 {
		t.Errorf("Decode allocates %v times", n)
	}
}
