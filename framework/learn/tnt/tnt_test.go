package tnt

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/builtin/emission"
	"github.com/trellis-nlp/trellis/builtin/suffixtrie"
	"github.com/trellis-nlp/trellis/builtin/transition"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/linear"
)

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
		t.Errorf("%s = %.12g, want %.12g", what, got, want)
	}
}

// TestLambdas checks deleted interpolation against a hand computation on
// the tag sequences [A B], [A B], [B A], which has a tie and zero
// denominators:
//
//	(⟨s⟩,⟨s⟩,A) f=2: λ3 (2−1)/(3−1) = .5 ties λ2 (2−1)/(3−1) = .5 > λ1 .25: 1 each
//	(⟨s⟩,A,B)   f=2: λ3 (2−1)/(2−1) = 1: λ3 += 2
//	(A,B,⟨/s⟩)  f=2: λ3 1: λ3 += 2
//	(⟨s⟩,⟨s⟩,B) f=1: λ3 0/2, λ2 0/2, λ1 (3−1)/(9−1): λ1 += 1
//	(⟨s⟩,B,A)   f=1: λ3 0/0 := 0, λ2 0/2, λ1 .25: λ1 += 1
//	(B,A,⟨/s⟩)  f=1: λ3 0/0 := 0, λ2 0/2, λ1 .25: λ1 += 1
//
// so λ = (3, 1, 5)/9.
func TestLambdas(t *testing.T) {
	tc := NewTagCounts(2)
	for _, y := range [][]int32{{0, 1}, {0, 1}, {1, 0}} {
		tc.AddSentence(y)
	}
	lam := tc.Lambdas()
	for j, want := range []float64{3.0 / 9, 1.0 / 9, 5.0 / 9} {
		near(t, "λ"+string(rune('1'+j)), lam[j], want)
	}
	const s, e, A, B = 2, 2, 0, 1
	// P(B|⟨s⟩,A) = 1/3·3/9 + 1/9·2/3 + 5/9·2/2.
	near(t, "P(B|<s>,A)", tc.Prob(lam, s, A, B), 20.0/27)
	// An unseen context: P(A|B,B) = 1/3·3/9 + 1/9·1/3 + 0.
	near(t, "P(A|B,B)", tc.Prob(lam, B, B, A), 4.0/27)
	near(t, "P(</s>|A,B)", tc.Prob(lam, A, B, e), 1.0/3*3/9+1.0/9*2/3+5.0/9)
}

func TestTheta(t *testing.T) {
	// Mean 1/3, squared deviations 1/36 + 2/144 = 1/24, over s−1 = 2.
	near(t, "θ", Theta([]float64{0.5, 0.25, 0.25}), math.Sqrt(1.0/48))
	near(t, "θ of one tag", Theta([]float64{1}), 0)
}

// sentences makes word/TAG sentences.
func sentences(text string) []*corpus.Sentence {
	var out []*corpus.Sentence
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		s := &corpus.Sentence{}
		for _, tok := range strings.Fields(line) {
			w, tag, _ := strings.Cut(tok, "/")
			s.Tokens = append(s.Tokens, []string{w, tag})
		}
		out = append(out, s)
	}
	return out
}

func mustConfig(t *testing.T, tpl feature.Template, cfg string) feature.MapperTemplate {
	t.Helper()
	if err := json.Unmarshal([]byte(cfg), tpl.Config()); err != nil {
		t.Fatal(err)
	}
	return feature.MapperTemplate{Template: tpl}
}

// fit returns the mapper of the tnt templates (suffixes up to maxLen)
// fitted on train, and the problem it makes.
func fit(t *testing.T, train []*corpus.Sentence, maxLen int) (*feature.Mapper, *learn.Problem) {
	t.Helper()
	ts := []feature.MapperTemplate{
		mustConfig(t, emission.New(), `{"column":"word"}`),
		mustConfig(t, suffixtrie.New(), `{"column":"word","max_length":`+strconv.Itoa(maxLen)+`}`),
		mustConfig(t, transition.New(), `{"order":2}`),
	}
	for k, typ := range []string{"emission", "suffix_trie", "transition"} {
		ts[k].Spec = feature.TemplateSpec{Type: typ, Name: typ}
	}
	m, err := feature.NewMapper(ts, feature.Columns{Names: []string{"word", "tag"}, Label: 1})
	if err != nil {
		t.Fatal(err)
	}
	d, err := m.Fit(context.Background(), train, feature.FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m, &learn.Problem{Train: d, NumAttrs: m.Attrs().Len(), NumLabels: m.Labels().Len(), Mapper: m,
		Transitions: true, Order: m.Order(), Log: zerolog.Nop()}
}

func train(t *testing.T, p *learn.Problem) *linear.Model {
	t.Helper()
	res, err := New().Train(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Model.Validate(); err != nil {
		t.Fatal(err)
	}
	return res.Model
}

// stateScores returns, per token of the sentence, the model's state score
// of every label.
func stateScores(t *testing.T, mp *feature.Mapper, m *linear.Model, s *corpus.Sentence) [][]float64 {
	t.Helper()
	d, _, err := mp.Encode([]*corpus.Sentence{s})
	if err != nil {
		t.Fatal(err)
	}
	nl := m.NumLabels
	out := make([][]float64, s.Len())
	for i := range out {
		out[i] = make([]float64, nl)
		for k := d.TokenOff[i]; k < d.TokenOff[i+1]; k++ {
			for y := range nl {
				out[i][y] += m.W[int(d.Attrs[k])*nl+y]
			}
		}
	}
	return out
}

// TestSuffixModel checks the emission scores of known and unknown words
// against probabilities computed by hand.
func TestSuffixModel(t *testing.T) {
	train := sentences(`
walking/V talking/V
ring/N The/D dog/N
`)
	mp, p := fit(t, train, 3)
	m := trainModel(t, p)
	lab := func(name string) int {
		id, ok := mp.Labels().Lookup([]byte(name))
		if !ok {
			t.Fatalf("no label %s", name)
		}
		return int(id)
	}
	V, N, D := lab("V"), lab("N"), lab("D")
	prior := map[int]float64{V: .4, N: .4, D: .2}
	theta := Theta([]float64{.4, .4, .2})
	// The lower-case trie (every word is rare): root and "g" V 2, N 2;
	// "ng" and "ing" V 2, N 1. D never.
	root := map[int]float64{V: .5, N: .5, D: 0}
	smooth := func(ml, up map[int]float64) map[int]float64 {
		out := map[int]float64{}
		for y := range up {
			out[y] = (ml[y] + theta*up[y]) / (1 + theta)
		}
		return out
	}
	g := smooth(root, root)
	ml := map[int]float64{V: 2.0 / 3, N: 1.0 / 3, D: 0}
	ing := smooth(ml, smooth(ml, g))
	score := stateScores(t, mp, m, &corpus.Sentence{Tokens: [][]string{{"singing", "V"}, {"Xyz", "D"}, {"dog", "N"}}})
	for _, y := range []int{V, N} {
		near(t, "unknown singing", score[0][y], math.Log(ing[y])-math.Log(prior[y]))
	}
	near(t, "unknown singing as D", score[0][D], Impossible-math.Log(.2))
	// The capitalized trie has The/D alone; "z" is not in it.
	near(t, "unknown Xyz as D", score[1][D], -math.Log(.2))
	near(t, "unknown Xyz as V", score[1][V], Impossible-math.Log(.4))
	// A known word scores log f(w,t)/f(t) in all, suffixes included.
	near(t, "known dog as N", score[2][N], math.Log(1.0/2))
	near(t, "known dog as V", score[2][V], Impossible)
}

func trainModel(t *testing.T, p *learn.Problem) *linear.Model { return train(t, p) }

// TestRareFrequency: words seen more often than rare_frequency stay out
// of the suffix model.
func TestRareFrequency(t *testing.T) {
	train := sentences(`
the/D dog/N
the/D cat/N
`)
	mp, p := fit(t, train, 2)
	one := 1
	res, err := (&Learner{cfg: Config{RareFrequency: &one}}).Train(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	// "the" is seen twice: its suffix "e" is in no rare word, so an
	// unknown "he" scores by the root (N only).
	score := stateScores(t, mp, res.Model, &corpus.Sentence{Tokens: [][]string{{"he", "D"}}})
	d, _ := mp.Labels().Lookup([]byte("D"))
	n, _ := mp.Labels().Lookup([]byte("N"))
	near(t, "he as N", score[0][n], -math.Log(.5))
	near(t, "he as D", score[0][d], Impossible-math.Log(.5))
}

// TestDecodeBruteForce checks Viterbi on the model's second-order lattice
// against every label sequence of short sentences, scored directly: the
// state scores plus log P(y1 | ⟨s⟩,⟨s⟩) + Σ log P(yi | yi−2, yi−1) +
// log P(⟨/s⟩ | yn−1, yn) from the interpolated counts.
func TestDecodeBruteForce(t *testing.T) {
	trainSents := sentences(`
the/D dog/N runs/V
a/D cat/N sleeps/V quietly/R
dogs/N run/V
the/D old/A dog/N barks/V
runs/V fast/R
old/A cats/N sleep/V
`)
	mp, p := fit(t, trainSents, 4)
	m := trainModel(t, p)
	nl := m.NumLabels
	tc := NewTagCounts(nl)
	for s := range p.Train.NumSentences() {
		lo, hi := p.Train.Sentence(s)
		tc.AddSentence(p.Train.Labels[lo:hi])
	}
	lam := tc.Lambdas()
	tests := []string{"dog", "the cat", "a dog runs", "old zebras walk slowly", "Dogs run the"}
	for _, text := range tests {
		t.Run(text, func(t *testing.T) {
			s := &corpus.Sentence{}
			for _, w := range strings.Fields(text) {
				s.Tokens = append(s.Tokens, []string{w, ""})
			}
			state := stateScores(t, mp, m, s)
			n := s.Len()
			direct := func(y []int32) float64 {
				v := 0.0
				a, b := nl, nl
				for i := 0; i <= n; i++ {
					c := nl
					if i < n {
						c = int(y[i])
						v += state[i][c]
					}
					v += logp(tc.Prob(lam, a, b, c))
					a, b = b, c
				}
				return v
			}
			best, bestScore := []int32(nil), math.Inf(-1)
			y := make([]int32, n)
			var walk func(i int)
			walk = func(i int) {
				if i == n {
					if v := direct(y); v > bestScore {
						best, bestScore = append([]int32(nil), y...), v
					}
					return
				}
				for c := range nl {
					y[i] = int32(c)
					walk(i + 1)
				}
			}
			walk(0)
			d, _, err := mp.Encode([]*corpus.Sentence{s})
			if err != nil {
				t.Fatal(err)
			}
			var sc lattice.Scores
			m.Chain(m.W, nil).Attach(&sc)
			m.NewScorer(m.W).Lattice(&sc, d, 0)
			path := make([]int32, n)
			got := lattice.NewWorkspace(nl).Viterbi(path, &sc)
			near(t, "Viterbi score", got, bestScore)
			near(t, "Viterbi path's direct score", direct(path), bestScore)
			near(t, "SequenceScore of the best", lattice.SequenceScore(&sc, best), bestScore)
		})
	}
}

func TestCheckTemplates(t *testing.T) {
	ok := []learn.TemplateInfo{{Name: "w", Type: "emission"}, {Name: "s", Type: "suffix_trie"}, {Name: "t", Type: "transition", Transitions: true, Order: 2}}
	if err := New().(*Learner).CheckTemplates(ok); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ts   []learn.TemplateInfo
		want string
	}{
		{"first order", []learn.TemplateInfo{ok[0], ok[1], {Name: "t", Type: "transition", Transitions: true, Order: 1}}, "order = 2"},
		{"no suffixes", []learn.TemplateInfo{ok[0], ok[2]}, "suffix_trie"},
		{"two words", []learn.TemplateInfo{ok[0], ok[0], ok[1], ok[2]}, "exactly one emission"},
		{"other", []learn.TemplateInfo{ok[0], ok[1], {Name: "sh", Type: "shape"}, ok[2]}, `"sh" is of type shape`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := New().(*Learner).CheckTemplates(tc.ts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	zero := 0
	if d := (&Learner{cfg: Config{RareFrequency: &zero}}).Validate(); !d.HasErrors() || !strings.Contains(d.Error(), "rare_frequency") {
		t.Fatalf("rare_frequency = 0: %v", d)
	}
	if d := New().Validate(); d.HasErrors() {
		t.Fatal(d)
	}
}

// TestTwoSuffixPaths: a lower-cased word template with a case-sensitive
// suffix template gives one word two paths, which Train refuses.
func TestTwoSuffixPaths(t *testing.T) {
	ts := []feature.MapperTemplate{
		mustConfig(t, emission.New(), `{"column":"word","lowercase":true}`),
		mustConfig(t, suffixtrie.New(), `{"column":"word"}`),
		mustConfig(t, transition.New(), `{"order":2}`),
	}
	for k, typ := range []string{"emission", "suffix_trie", "transition"} {
		ts[k].Spec = feature.TemplateSpec{Type: typ, Name: typ}
	}
	mp, err := feature.NewMapper(ts, feature.Columns{Names: []string{"word", "tag"}, Label: 1})
	if err != nil {
		t.Fatal(err)
	}
	d, err := mp.Fit(context.Background(), sentences("The/D dog/N\nthe/D cat/N"), feature.FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := &learn.Problem{Train: d, NumAttrs: mp.Attrs().Len(), NumLabels: mp.Labels().Len(), Mapper: mp, Transitions: true, Order: 2, Log: zerolog.Nop()}
	if _, err := New().Train(context.Background(), p); err == nil || !strings.Contains(err.Error(), "two suffix paths") {
		t.Fatalf("got %v", err)
	}
}
