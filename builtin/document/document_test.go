package document

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/builtin/window"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

// recorder keeps attributes as strings per token of one sentence.
type recorder struct{ tokens [][]string }

func (r *recorder) Add(i int, key []byte, value float64) {
	r.tokens[i] = append(r.tokens[i], string(key))
}

// discard is a Sink that keeps nothing (for the allocation test).
type discard struct{ n int }

func (d *discard) Add(i int, key []byte, value float64) { d.n += len(key) }

var cols = feature.Columns{Names: []string{"word", "label"}, Label: 1}

func compile(t testing.TB, cfg Config) *extractor {
	t.Helper()
	tmpl := &Template{cfg: cfg}
	if diags := tmpl.Validate(); diags.HasErrors() {
		t.Fatal(diags)
	}
	x, err := tmpl.Compile("d", cols)
	if err != nil {
		t.Fatal(err)
	}
	return x.(*extractor)
}

// docs builds sentences from "|"-separated documents of "/"-separated
// sentences of space-separated words, all in file "f".
func docs(text string) []*corpus.Sentence {
	var out []*corpus.Sentence
	for d, doc := range strings.Split(text, "|") {
		for k, sent := range strings.Split(doc, "/") {
			s := &corpus.Sentence{File: "f", Document: d, DocStart: k == 0}
			for _, w := range strings.Fields(sent) {
				s.Tokens = append(s.Tokens, []string{w, "O"})
			}
			out = append(out, s)
		}
	}
	return out
}

func extractAll(t testing.TB, x *extractor, sents []*corpus.Sentence) [][][]string {
	t.Helper()
	if err := x.Documents(sents); err != nil {
		t.Fatal(err)
	}
	out := make([][][]string, len(sents))
	for k, s := range sents {
		r := &recorder{tokens: make([][]string, s.Len())}
		if err := x.Extract(s, r); err != nil {
			t.Fatal(err)
		}
		out[k] = r.tokens
	}
	return out
}

func TestExtract(t *testing.T) {
	one := 1
	tests := []struct {
		name string
		cfg  Config
		text string
		// want[k][i] is token i of sentence k's attributes, " "-joined.
		want [][]string
	}{
		{"singletons", Config{Column: "word"}, "a B", [][]string{{"d/n=0", "d/n=0"}}},
		{"initial capital that is lower-case elsewhere", Config{Column: "word", Context: &one}, "Bank rates / the bank",
			[][]string{
				{"d/n=1 d/first d/case=init:lower d/ctx[-1]=the", "d/n=0"},
				{"d/n=0", "d/n=1 d/later"},
			}},
		{"headline in capitals, the name capitalised in the text", Config{Column: "word", Context: &one}, "JAPAN WIN / Then Japan beat Syria",
			[][]string{
				{"d/n=1 d/first d/case=upper:cap d/ctx[-1]=then d/ctx[1]=beat", "d/n=0"},
				{"d/n=0", "d/n=1 d/later d/case=cap:upper d/ctx[1]=win", "d/n=0", "d/n=0"},
			}},
		{"own context is not aggregated, the other's is", Config{Column: "word", Context: &one}, "Mr Smith said / Smith said",
			[][]string{
				// The other "Smith" is sentence-initial, which says nothing
				// about its case; "said" follows both, so it is kept.
				{"d/n=0", "d/n=1 d/first d/ctx[1]=said", "d/n=1 d/first d/case=lower:lower"},
				{"d/n=1 d/later d/case=init:cap d/ctx[-1]=mr d/ctx[1]=said", "d/n=1 d/later d/case=lower:lower"},
			}},
		{"a context shared by both occurrences is kept", Config{Column: "word", Context: &one}, "Mr Smith / Mr Smith",
			[][]string{
				{"d/n=1 d/first d/ctx[1]=smith", "d/n=1 d/first d/case=cap:cap d/ctx[-1]=mr"},
				{"d/n=1 d/later d/ctx[1]=smith", "d/n=1 d/later d/case=cap:cap d/ctx[-1]=mr"},
			}},
		{"documents are apart", Config{Column: "word"}, "Smith ran | Smith ran",
			[][]string{{"d/n=0", "d/n=0"}, {"d/n=0", "d/n=0"}}},
		{"lower-case words get no contexts unless all_words", Config{Column: "word", Context: &one}, "x y / x z",
			[][]string{
				{"d/n=1 d/first d/case=lower:lower", "d/n=0"},
				{"d/n=1 d/later d/case=lower:lower", "d/n=0"},
			}},
		{"all_words", Config{Column: "word", Context: &one, AllWords: true}, "x y / x z",
			[][]string{
				{"d/n=1 d/first d/case=lower:lower d/ctx[1]=z", "d/n=0"},
				{"d/n=1 d/later d/case=lower:lower d/ctx[1]=y", "d/n=0"},
			}},
		{"context_case: elsewhere part of a longer name", Config{Column: "word", ContextCase: true}, "Mr Bill Clinton / Then Clinton said",
			[][]string{
				{"d/n=0", "d/n=0", "d/n=1 d/first d/case=cap:cap d/ctxcase[-1]=init d/ctx[-1]=then d/ctxcase[1]=lower d/ctx[1]=said"},
				{"d/n=0", "d/n=1 d/later d/case=cap:cap d/ctxcase[-2]=init d/ctx[-2]=mr d/ctxcase[-1]=cap d/ctx[-1]=bill", "d/n=0"},
			}},
		{"over max_occurrences: no contexts", Config{Column: "word", Context: &one, MaxOccurrences: 2}, "A b / A c / A d",
			[][]string{
				{"d/n=2 d/first", "d/n=0"},
				{"d/n=2 d/later", "d/n=0"},
				{"d/n=2 d/later", "d/n=0"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := extractAll(t, compile(t, tt.cfg), docs(tt.text))
			for k := range got {
				for i := range got[k] {
					if g := strings.Join(got[k][i], " "); g != tt.want[k][i] {
						t.Errorf("sentence %d token %d:\n got %s\nwant %s", k, i, g, tt.want[k][i])
					}
				}
			}
		})
	}
}

// reference computes the template's attributes by brute force: for every
// token, a scan of every token of the corpus.
func reference(cfg Config, sents []*corpus.Sentence) [][][]string {
	ctxN, maxOcc := DefaultContext, DefaultMaxOccurrences
	if cfg.Context != nil {
		ctxN = *cfg.Context
	}
	if cfg.MaxOccurrences != 0 {
		maxOcc = cfg.MaxOccurrences
	}
	lowered := func(w string) string { return string(window.AppendLower(nil, w)) }
	type occ struct{ k, i int }
	out := make([][][]string, len(sents))
	for k, s := range sents {
		out[k] = make([][]string, s.Len())
		for i, row := range s.Tokens {
			w := lowered(row[0])
			var others []occ
			count, first := 0, true
			for k2, s2 := range sents {
				if !corpus.SameDocument(s, s2) {
					continue
				}
				for i2, row2 := range s2.Tokens {
					if lowered(row2[0]) != w {
						continue
					}
					count++
					if k2 < k || (k2 == k && i2 < i) {
						first = false
					}
					if k2 != k || i2 != i {
						others = append(others, occ{k2, i2})
					}
				}
			}
			attrs := []string{"d/n=" + []string{"0", "1", "2", "3+"}[min(len(others), 3)]}
			if len(others) > 0 {
				attrs = append(attrs, map[bool]string{true: "d/first", false: "d/later"}[first])
				self := shapeOf(row[0], i == 0)
				for _, sh := range []shape{lower, capMid, upper} {
					for _, o := range others {
						if shapeOf(sents[o.k].Tokens[o.i][0], o.i == 0) == sh {
							attrs = append(attrs, "d/case="+shapeNames[self]+":"+shapeNames[sh])
							break
						}
					}
				}
				if count <= maxOcc && (cfg.AllWords || self == capMid || self == capInit || self == upper) {
					seen := map[string]bool{}
					var ctx []string
					for _, o := range others {
						s2 := sents[o.k]
						for off := -ctxN; off <= ctxN; off++ {
							j := o.i + off
							if off == 0 || j < 0 || j >= s2.Len() {
								continue
							}
							keys := []string{fmt.Sprintf("%d\x00%s", off+100, lowered(s2.Tokens[j][0]))}
							if cfg.ContextCase {
								keys = append(keys, fmt.Sprintf("%d\x00#%s", off+100, shapeNames[shapeOf(s2.Tokens[j][0], j == 0)]))
							}
							for _, a := range keys {
								if !seen[a] {
									seen[a] = true
									ctx = append(ctx, a)
								}
							}
						}
					}
					// The extractor orders contexts by offset, then
					// capitalisation classes (last class first), then words
					// by first appearance in the batch.
					ids := map[string]int{}
					for sh, name := range shapeNames {
						ids["#"+name] = -1 - sh
					}
					for _, s2 := range sents {
						for _, row2 := range s2.Tokens {
							if _, ok := ids[lowered(row2[0])]; !ok {
								ids[lowered(row2[0])] = len(ids)
							}
						}
					}
					slices.SortFunc(ctx, func(a, b string) int {
						oa, wa, _ := strings.Cut(a, "\x00")
						ob, wb, _ := strings.Cut(b, "\x00")
						if oa != ob {
							x, _ := strconv.Atoi(oa)
							y, _ := strconv.Atoi(ob)
							return x - y
						}
						return ids[wa] - ids[wb]
					})
					for _, a := range ctx {
						o, w, _ := strings.Cut(a, "\x00")
						off, _ := strconv.Atoi(o)
						if c, ok := strings.CutPrefix(w, "#"); ok {
							attrs = append(attrs, fmt.Sprintf("d/ctxcase[%d]=%s", off-100, c))
							continue
						}
						attrs = append(attrs, fmt.Sprintf("d/ctx[%d]=%s", off-100, w))
					}
				}
			}
			out[k][i] = attrs
		}
	}
	return out
}

// TestAgainstBruteForce compares the extractor with reference on random
// documents over a small vocabulary (so words recur, in every shape),
// fed in shuffled order, interleaving documents as a fold of a corpus does.
func TestAgainstBruteForce(t *testing.T) {
	vocab := []string{"a", "A", "AA", "Ab", "ab", "aB", "b", "B", "BB", "1", "-", "É", "é", "Éa"}
	zero, three := 0, 3
	cfgs := []Config{
		{Column: "word"},
		{Column: "word", Context: &zero},
		{Column: "word", Context: &three, MaxOccurrences: 4},
		{Column: "word", AllWords: true, MaxOccurrences: 1000},
		{Column: "word", ContextCase: true},
		{Column: "word", Context: &three, ContextCase: true, AllWords: true},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 40 {
		var sents []*corpus.Sentence
		for d := range 1 + rng.IntN(3) {
			for range 1 + rng.IntN(4) {
				s := &corpus.Sentence{File: []string{"f", "g"}[rng.IntN(2)], Document: d}
				for range 1 + rng.IntN(6) {
					s.Tokens = append(s.Tokens, []string{vocab[rng.IntN(len(vocab))], "O"})
				}
				sents = append(sents, s)
			}
		}
		rng.Shuffle(len(sents), func(a, b int) { sents[a], sents[b] = sents[b], sents[a] })
		for c, cfg := range cfgs {
			got := extractAll(t, compile(t, cfg), sents)
			want := reference(cfg, sents)
			for k := range sents {
				for i := range sents[k].Tokens {
					if !slices.Equal(got[k][i], want[k][i]) {
						t.Fatalf("round %d config %d sentence %d token %d (%q):\n got %q\nwant %q", round, c, k, i, sents[k].Tokens[i][0], got[k][i], want[k][i])
					}
				}
			}
		}
	}
}

func TestExtractAllocatesNothing(t *testing.T) {
	x := compile(t, Config{Column: "word"})
	sents := docs("Mr Smith said the bank / Smith said / BANK RATES FALL / The Bank")
	if err := x.Documents(sents); err != nil {
		t.Fatal(err)
	}
	sink := &discard{}
	allocs := testing.AllocsPerRun(100, func() {
		for _, s := range sents {
			if err := x.Extract(s, sink); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per run of Extract", allocs)
	}
}

func TestExtractOutsideTheBatch(t *testing.T) {
	x := compile(t, Config{Column: "word"})
	if err := x.Documents(docs("a b")); err != nil {
		t.Fatal(err)
	}
	other := docs("a b")[0]
	err := x.Extract(other, &recorder{tokens: make([][]string, 2)})
	if err == nil || !strings.Contains(err.Error(), "not in the batch") {
		t.Errorf("error %v, want one about the batch", err)
	}
	// Released (Documents(nil)), the index knows no sentence any more.
	sents := docs("a b")
	if err := x.Documents(sents); err != nil {
		t.Fatal(err)
	}
	if err := x.Documents(nil); err != nil {
		t.Fatal(err)
	}
	if err := x.Extract(sents[0], &recorder{tokens: make([][]string, 2)}); err == nil {
		t.Error("extracted a sentence of a released batch")
	}
	// And it indexes the next batch as before.
	if got := extractAll(t, x, docs("A b / A")); strings.Join(got[1][0], " ") != "d/n=1 d/later d/ctx[1]=b" {
		t.Errorf("after release: %q", got[1][0])
	}
}

func TestValidate(t *testing.T) {
	neg, big := -1, MaxContext+1
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"defaults", Config{Column: "word"}, ""},
		{"negative context", Config{Column: "word", Context: &neg}, "context = -1 is outside [0, 10]"},
		{"context too wide", Config{Column: "word", Context: &big}, "context = 11 is outside [0, 10]"},
		{"max_occurrences 1", Config{Column: "word", MaxOccurrences: 1}, "max_occurrences = 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			diags := (&Template{cfg: tt.cfg}).Validate()
			if tt.want == "" {
				if diags.HasErrors() {
					t.Fatal(diags)
				}
				return
			}
			if !diags.HasErrors() || !strings.Contains(diags.Error(), tt.want) {
				t.Errorf("diagnostics %v, want %q", diags, tt.want)
			}
		})
	}
}

func TestCompileRefusesTheLabelColumn(t *testing.T) {
	if _, err := (&Template{cfg: Config{Column: "label"}}).Compile("d", cols); err == nil {
		t.Error("compiled against the label column")
	}
}

// TestConfigJSON: the config a model file records decodes to the same
// template (context 0 stays 0, not the default).
func TestConfigJSON(t *testing.T) {
	zero := 0
	in := Config{Column: "word", Context: &zero, MaxOccurrences: 7, AllWords: true}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out Config
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.Context == nil || *out.Context != 0 || out.MaxOccurrences != 7 || !out.AllWords || out.Column != "word" {
		t.Errorf("round trip %s gave %+v", b, out)
	}
}
