package history

import (
	"slices"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

type recorder struct{ tokens [][]string }

func (r *recorder) Add(i int, key []byte, value float64) {
	r.tokens[i] = append(r.tokens[i], string(key))
}

type discard struct{ n int }

func (d *discard) Add(i int, key []byte, value float64) { d.n += len(key) }

var cols = feature.Columns{Names: []string{"word", "label", "pred"}, Label: 1}

// docs builds sentences from "|"-separated documents of "/"-separated
// sentences of space-separated word:prediction tokens.
func docs(text string) []*corpus.Sentence {
	var out []*corpus.Sentence
	for d, doc := range strings.Split(text, "|") {
		for _, sent := range strings.Split(doc, "/") {
			s := &corpus.Sentence{File: "f", Document: d}
			for _, tok := range strings.Fields(sent) {
				w, p, _ := strings.Cut(tok, ":")
				s.Tokens = append(s.Tokens, []string{w, "O", p})
			}
			out = append(out, s)
		}
	}
	return out
}

func compile(t testing.TB) *extractor { return compileFirst(t, false) }

func compileFirst(t testing.TB, first bool) *extractor {
	t.Helper()
	tmpl := &Template{cfg: Config{Column: "word", Predicted: "pred", First: first}}
	if d := tmpl.Validate(); d.HasErrors() {
		t.Fatal(d)
	}
	x, err := tmpl.Compile("h", cols)
	if err != nil {
		t.Fatal(err)
	}
	return x.(*extractor)
}

func TestExtract(t *testing.T) {
	tests := []struct {
		name string
		text string
		want [][][]string // per sentence, per token, sorted keys
	}{
		{"alone in its document", "Smith:B-PER said:O", [][][]string{{nil, nil}}},
		{"other occurrences, case folded, own prediction left out",
			"Smith:B-PER said:O / SMITH:B-ORG and:O smith:I-PER",
			[][][]string{
				{{"h/has=ORG", "h/has=PER", "h/maj=ORG"}, nil},
				{{"h/has=PER", "h/maj=PER"}, nil, {"h/has=ORG", "h/has=PER", "h/maj=ORG"}},
			}},
		{"majority, then byte order on ties",
			"Jordan:B-LOC x:O / Jordan:B-PER / Jordan:B-PER / Jordan:B-LOC",
			[][][]string{
				{{"h/has=LOC", "h/has=PER", "h/maj=PER"}, nil},
				{{"h/has=LOC", "h/has=PER", "h/maj=LOC"}},
				{{"h/has=LOC", "h/has=PER", "h/maj=LOC"}},
				{{"h/has=LOC", "h/has=PER", "h/maj=PER"}},
			}},
		{"documents apart", "Smith:B-PER | Smith:B-ORG", [][][]string{{nil}, {nil}}},
		{"O counts as a type", "May:O / May:B-PER", [][][]string{{{"h/has=PER", "h/maj=PER"}}, {{"h/has=O", "h/maj=O"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := compile(t)
			sents := docs(tc.text)
			if err := x.Documents(sents); err != nil {
				t.Fatal(err)
			}
			for k, s := range sents {
				r := &recorder{tokens: make([][]string, s.Len())}
				if err := x.Extract(s, r); err != nil {
					t.Fatal(err)
				}
				for i := range r.tokens {
					slices.Sort(r.tokens[i])
					if !slices.Equal(r.tokens[i], tc.want[k][i]) {
						t.Errorf("sentence %d token %d: %q, want %q", k, i, r.tokens[i], tc.want[k][i])
					}
				}
			}
		})
	}
}

// TestBatchesAgree: a batch of several documents gives each the features
// it gets alone (label IDs are per batch; keys must not depend on them).
func TestBatchesAgree(t *testing.T) {
	text := "a:B-PER b:O a:B-ORG | b:B-LOC a:O b:B-LOC | a:O a:B-MISC"
	all := docs(text)
	together := extract(t, compile(t), all)
	for d, doc := range strings.Split(text, "|") {
		alone := extract(t, compile(t), docs(doc))
		if !slices.EqualFunc(alone[0], together[d], slices.Equal) {
			t.Errorf("document %d alone %q, in a batch %q", d, alone[0], together[d])
		}
	}
}

func extract(t *testing.T, x *extractor, sents []*corpus.Sentence) [][][]string {
	t.Helper()
	if err := x.Documents(sents); err != nil {
		t.Fatal(err)
	}
	var out [][][]string
	for _, s := range sents {
		r := &recorder{tokens: make([][]string, s.Len())}
		if err := x.Extract(s, r); err != nil {
			t.Fatal(err)
		}
		for i := range r.tokens {
			slices.Sort(r.tokens[i])
		}
		out = append(out, r.tokens)
	}
	return out
}

func TestExtractAllocatesNothing(t *testing.T) {
	x := compile(t)
	sents := docs("Smith:B-PER said:O / SMITH:B-ORG and:O smith:I-PER / Jordan:B-LOC x:O")
	if err := x.Documents(sents); err != nil {
		t.Fatal(err)
	}
	sink := &discard{}
	if n := testing.AllocsPerRun(100, func() {
		for _, s := range sents {
			if err := x.Extract(s, sink); err != nil {
				t.Fatal(err)
			}
		}
	}); n != 0 {
		t.Errorf("%v allocations per extraction", n)
	}
}

func TestErrors(t *testing.T) {
	if d := (&Template{cfg: Config{Column: "word", Predicted: "word"}}).Validate(); !d.HasErrors() {
		t.Error("predicted = column accepted")
	}
	if _, err := (&Template{cfg: Config{Column: "word", Predicted: "pred"}}).Compile("h", feature.Columns{Names: []string{"word", "label"}, Label: 1}); err == nil {
		t.Error("a missing predicted column accepted")
	}
	x := compile(t)
	if err := x.Documents(docs("a:O")); err != nil {
		t.Fatal(err)
	}
	if err := x.Extract(docs("b:O")[0], &discard{}); err == nil {
		t.Error("a sentence outside the indexed batch accepted")
	}
}

// TestFirst: with first = true, a later occurrence also gets the type
// predicted at the word's first occurrence in the document.
func TestFirst(t *testing.T) {
	sents := docs("John:B-PER Smith:I-PER / Smith:B-ORG said:O / smith:B-LOC | Smith:O")
	got := extract(t, compileFirst(t, true), sents)
	want := [][][]string{
		{nil, {"h/has=LOC", "h/has=ORG", "h/maj=LOC"}},
		{{"h/first=PER", "h/has=LOC", "h/has=PER", "h/maj=LOC"}, nil},
		{{"h/first=PER", "h/has=ORG", "h/has=PER", "h/maj=ORG"}},
		{nil},
	}
	for k := range want {
		if !slices.EqualFunc(got[k], want[k], slices.Equal) {
			t.Errorf("sentence %d: %q, want %q", k, got[k], want[k])
		}
	}
}
