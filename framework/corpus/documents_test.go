package corpus

import (
	"slices"
	"testing"
)

// docNumbers renders each sentence's Document number.
func docNumbers(sents []*Sentence) []int {
	out := make([]int, len(sents))
	for k, s := range sents {
		out[k] = s.Document
	}
	return out
}

func TestDocumentNumbers(t *testing.T) {
	conll := Config{Name: "conll", Columns: []string{"word", "tag"}, Label: "tag"}
	conllu := Config{Name: "conllu", Label: "upos"}
	w := func(id, form string) string { return tsv(id, form, "_", "X", "_", "_", "_", "_", "_", "_") + "\n" }
	tests := []struct {
		name  string
		cfg   Config
		input string
		want  []int
	}{
		{"conll without boundaries is one document", conll, "a X\n\nb Y\n\nc Z\n", []int{0, 0, 0}},
		{"conll starting with -DOCSTART-", conll, "-DOCSTART- -X-\n\na X\n\nb Y\n\n-DOCSTART- -X-\n\nc Z\n", []int{0, 0, 1}},
		{"conll boundary after the first sentence", conll, "a X\n\n-DOCSTART- -X-\n\nb Y\n\n-DOCSTART- -X-\n\nc Z\n", []int{0, 1, 2}},
		{"conll boundary without blank lines", conll, "a X\n-DOCSTART- -X-\nb Y\n", []int{0, 1}},
		{"conll empty documents count once", conll, "-DOCSTART- -X-\n\n-DOCSTART- -X-\n\na X\n\n-DOCSTART- -X-\n\nb Y\n", []int{0, 1}},
		{"conllu newdoc", conllu, "# newdoc id = a\n" + w("1", "x") + "\n" + w("1", "y") + "\n# newdoc\n" + w("1", "z") + "\n", []int{0, 0, 1}},
		{"conllu newdoc in a block without words", conllu, w("1", "x") + "\n# newdoc\n\n" + w("1", "y") + "\n", []int{0, 1}},
		{"slash has no boundaries", Config{Name: "slash", Label: "tag"}, "a/X\nb/Y\n", []int{0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sents, err := readString(mustNew(t, tt.cfg), tt.input, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := docNumbers(sents); !slices.Equal(got, tt.want) {
				t.Errorf("documents %v, want %v", got, tt.want)
			}
		})
	}
}

func TestGroupDocuments(t *testing.T) {
	mk := func(file string, doc int) *Sentence { return &Sentence{File: file, Document: doc} }
	a0, a1, a2 := mk("a", 0), mk("a", 0), mk("a", 1)
	b0 := mk("b", 0) // another file's document 0 is another document
	c := mk("a", 1)
	tests := []struct {
		name  string
		sents []*Sentence
		want  [][]*Sentence
	}{
		{"empty", nil, nil},
		{"adjacent", []*Sentence{a0, a1, a2, c}, [][]*Sentence{{a0, a1}, {a2, c}}},
		{"files apart", []*Sentence{a0, b0, a1}, [][]*Sentence{{a0, a1}, {b0}}},
		{"interleaved (a fold's sentences)", []*Sentence{a0, a2, a1, c}, [][]*Sentence{{a0, a1}, {a2, c}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := GroupDocuments(tt.sents)
			if len(got) != len(tt.want) {
				t.Fatalf("%d groups, want %d", len(got), len(tt.want))
			}
			for g := range got {
				if !slices.Equal(got[g], tt.want[g]) {
					t.Errorf("group %d differs", g)
				}
			}
		})
	}
}

// TestSharedDataDocuments: eng.train's 946 "-DOCSTART-" lines make 946
// documents, numbered 0..945, each a run of adjacent sentences.
func TestSharedDataDocuments(t *testing.T) {
	path := dataFile(t, "conll2003/eng.train")
	sents, err := ReadAll(mustNew(t, Config{Name: "conll", Columns: []string{"word", "pos", "chunk", "ner"}, Label: "ner"}), path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	docs := GroupDocuments(sents)
	if len(docs) != 946 || sents[len(sents)-1].Document != 945 {
		t.Errorf("%d documents, last numbered %d; want 946, 945", len(docs), sents[len(sents)-1].Document)
	}
	for g, d := range docs {
		if d[0].Document != g || !d[0].DocStart {
			t.Fatalf("document %d starts with sentence of document %d (DocStart %v) at line %d", g, d[0].Document, d[0].DocStart, d[0].Line)
		}
	}
}
