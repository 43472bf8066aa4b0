package decisions

import (
	"testing"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

// TestCompile: the extractor emits nothing, declares the column document
// reads, and makes batches whole documents only with document = true.
func TestCompile(t *testing.T) {
	cols := feature.Columns{Names: []string{"word", "pos", "ner"}, Label: 2}
	for _, tc := range []struct {
		cfg      Config
		want     feature.Decisions
		column   int
		document bool
	}{
		{Config{}, feature.Decisions{Previous: 1}, -1, false},
		{Config{Previous: 2, Span: true}, feature.Decisions{Previous: 2, Span: true}, -1, false},
		{Config{Document: true}, feature.Decisions{Previous: 1, Document: true, Column: "word"}, 0, true},
		{Config{Document: true, Column: "pos"}, feature.Decisions{Previous: 1, Document: true, Column: "pos"}, 1, true},
	} {
		tmpl := &Template{cfg: tc.cfg}
		if d := tmpl.Validate(); d.HasErrors() {
			t.Fatal(d)
		}
		x, err := tmpl.Compile("h", cols)
		if err != nil {
			t.Fatal(err)
		}
		if got := x.(feature.DecisionTemplate).Decisions(); got != tc.want {
			t.Errorf("%+v: settings %+v, want %+v", tc.cfg, got, tc.want)
		}
		if got := x.(feature.DecisionColumn).DecisionColumn(); got != tc.column {
			t.Errorf("%+v: column %d, want %d", tc.cfg, got, tc.column)
		}
		if _, ok := x.(feature.DocumentExtractor); ok != tc.document {
			t.Errorf("%+v: document extractor %v", tc.cfg, ok)
		}
		s := &corpus.Sentence{Tokens: [][]string{{"a", "DT", "O"}}}
		if err := x.Extract(s, nil); err != nil {
			t.Fatal(err) // a nil sink: it must add nothing
		}
	}
	if _, err := (&Template{cfg: Config{Document: true, Column: "ner"}}).Compile("h", cols); err == nil {
		t.Error("document on the label column compiled")
	}
}

// TestValidate refuses previous out of range and a column without
// document.
func TestValidate(t *testing.T) {
	for _, cfg := range []Config{{Previous: 4}, {Previous: -1}, {Column: "word"}} {
		if d := (&Template{cfg: cfg}).Validate(); !d.HasErrors() {
			t.Errorf("%+v validated", cfg)
		}
	}
}
