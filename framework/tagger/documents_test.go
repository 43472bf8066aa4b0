package tagger_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/linear"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// documentText is a CoNLL file (word column only) of n documents of three
// sentences: "Mr Zk" or "in Zk", then "Zk said", then "ok". Only the
// document tells whether "Zk" in the second sentence is a person or a
// place: the word before its other occurrence.
func documentText(n int) string {
	var b strings.Builder
	for k := range n {
		cue := "Mr"
		if k%2 == 1 {
			cue = "in"
		}
		fmt.Fprintf(&b, "-DOCSTART-\n\n%s\nZ%d\n\nZ%d\nsaid\n\nok\n\n", cue, k, k)
	}
	return b.String()
}

// documentModel is a model with the document template whose weights make
// a token after which another occurrence of it follows "mr" a B-PER, one
// after "in" a B-LOC, and everything else O.
func documentModel(t testing.TB) *model.Model {
	specs := []feature.TemplateSpec{
		{Type: "emission", Name: "w", Config: rawJSON(t, map[string]any{"column": "word"})},
		{Type: "document", Name: "d", Config: rawJSON(t, map[string]any{"column": "word", "context": 1})},
		{Type: "transition", Name: "t", Config: rawJSON(t, map[string]any{})},
	}
	train := "-DOCSTART- O\n\nMr O\nZa B-PER\n\nZa B-PER\nsaid O\n\n-DOCSTART- O\n\nin O\nZb B-LOC\n\nZb B-LOC\n"
	return handModel(t, specs, train, func(name, lab string) float64 {
		switch {
		case name == "d/ctx[-1]=mr" && lab == "B-PER", name == "d/ctx[-1]=in" && lab == "B-LOC":
			return 5
		case lab == "O":
			return 0.5
		}
		return 0
	})
}

func rawJSON(t testing.TB, v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// handModel is an iob2 model of a conll file of words and NER labels with
// the given templates, over the attributes and labels seen in train, each
// (attribute, label) weighted by weight.
func handModel(t testing.TB, specs []feature.TemplateSpec, train string, weight func(attr, label string) float64) *model.Model {
	t.Helper()
	format := corpus.Config{Name: "conll", Columns: []string{"word", "ner"}, Label: "ner"}
	reg, _ := builtin.Registries()
	f, err := corpus.New(format)
	if err != nil {
		t.Fatal(err)
	}
	var mts []feature.MapperTemplate
	for _, ts := range specs {
		tmpl, err := reg.Instantiate(ts)
		if err != nil {
			t.Fatal(err)
		}
		mts = append(mts, feature.MapperTemplate{Spec: ts, Template: tmpl})
	}
	mp, err := feature.NewMapper(mts, feature.Columns{Names: f.Columns(), Label: f.LabelColumn()})
	if err != nil {
		t.Fatal(err)
	}
	sents, err := readAll(f, train, corpus.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := mp.Fit(context.Background(), sents, feature.FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	attrs, labels := mp.Attrs(), mp.Labels()
	lm := linear.NewObserved(data, attrs.Len(), labels.Len(), true)
	for a := int32(0); a < int32(attrs.Len()); a++ {
		for y := int32(0); y < int32(labels.Len()); y++ {
			if fi := lm.Feature(a, y); fi >= 0 {
				lm.W[fi] = weight(attrs.Name(a), labels.Name(y))
			}
		}
	}
	if err := lm.Validate(); err != nil {
		t.Fatal(err)
	}
	return &model.Model{
		Header: model.Header{
			Version: model.Version, Labels: labels.Names(), Scheme: "iob2",
			Format: format, LabelColumn: "ner", Templates: specs, Transitions: true,
		},
		Attrs:  attrs.Names(),
		Linear: lm,
	}
}

func readAll(f corpus.Format, text string, opts corpus.ReadOptions) ([]*corpus.Sentence, error) {
	r := f.NewReader(strings.NewReader(text), "in.txt", opts)
	var sents []*corpus.Sentence
	for {
		s, err := r.Read()
		if err == io.EOF {
			return sents, nil
		}
		if err != nil {
			return nil, err
		}
		sents = append(sents, s)
	}
}

// TestStreamKeepsDocumentsWhole: streaming many sentences (more than a
// batch, with a document across the batch size) gives the labels that
// tagging all of them at once gives, and those labels come from the
// document: a sentence tagged alone, or a document cut between batches,
// gets others.
func TestStreamKeepsDocumentsWhole(t *testing.T) {
	m := documentModel(t)
	reg, _ := builtin.Registries()
	tg, err := tagger.New(m, reg, tagger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if !tg.ReadsDocuments() {
		t.Fatal("a model with the document template does not read documents")
	}
	// 3 sentences a document: sentence BatchSize (256) is the second of
	// document 85, so a cut at the batch size splits it.
	const docs = 200
	text := documentText(docs)
	opts := corpus.ReadOptions{LabelOptional: true}
	sents, err := readAll(tg.Format, text, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(sents) != 3*docs || sents[tagger.BatchSize].Document != sents[tagger.BatchSize-1].Document {
		t.Fatalf("%d sentences; the test needs a document across sentence %d", len(sents), tagger.BatchSize)
	}
	all, err := tg.Tag(sents)
	if err != nil {
		t.Fatal(err)
	}
	for k := range docs {
		want := []string{"B-PER", "O"}
		if k%2 == 1 {
			want = []string{"B-LOC", "O"}
		}
		if got := all[3*k+1]; !slices.Equal(got, want) {
			t.Fatalf("document %d, %q: labels %v, want %v", k, sents[3*k+1].Tokens[0][0], got, want)
		}
	}

	var streamed [][]string
	r := tg.Format.NewReader(strings.NewReader(text), "in.txt", opts)
	var out bytes.Buffer
	if _, err := tg.Stream(context.Background(), r, tg.Format.NewWriter(&out), nil, func(s *corpus.Sentence, pred []string) {
		streamed = append(streamed, slices.Clone(pred))
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(streamed, all, slices.Equal) {
		t.Error("streaming gives other labels than tagging the sentences at once")
	}

	// Batches cuts where Stream does: every sentence, in order, and no
	// document across two batches, so tagging batch by batch agrees.
	var batched [][]string
	r = tg.Format.NewReader(strings.NewReader(text), "in.txt", opts)
	if err := tg.Batches(context.Background(), r, func(batch []*corpus.Sentence) error {
		if len(batched) > 0 && sents[len(batched)-1].Document == batch[0].Document {
			t.Errorf("a batch begins inside a document, at sentence %d", len(batched))
		}
		labels, err := tg.Tag(batch)
		batched = append(batched, labels...)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(batched, all, slices.Equal) {
		t.Error("tagging Batches' batches gives other labels than tagging the sentences at once")
	}

	// The features do change labels: alone, or cut at the batch size, the
	// second sentence of a document has no other occurrence to read.
	alone, err := tg.Tag(sents[1:2])
	if err != nil {
		t.Fatal(err)
	}
	if alone[0][0] != "O" {
		t.Errorf("alone, %q got %s: the document features did not matter", sents[1].Tokens[0][0], alone[0][0])
	}
	head, err := tg.Tag(sents[:tagger.BatchSize])
	if err != nil {
		t.Fatal(err)
	}
	tail, err := tg.Tag(sents[tagger.BatchSize:])
	if err != nil {
		t.Fatal(err)
	}
	if slices.EqualFunc(append(head, tail...), all, slices.Equal) {
		t.Error("cutting a document between batches changes nothing: the test cannot tell")
	}
}

// TestEndsBatch: without document features a batch ends at BatchSize;
// with them it runs on to the document's end.
func TestEndsBatch(t *testing.T) {
	reg, _ := builtin.Registries()
	plain, err := tagger.New(tinyModel(t), reg, tagger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	doc, err := tagger.New(documentModel(t), reg, tagger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	full := make([]*corpus.Sentence, tagger.BatchSize)
	for k := range full {
		full[k] = &corpus.Sentence{File: "f", Document: 3}
	}
	same, next := &corpus.Sentence{File: "f", Document: 3}, &corpus.Sentence{File: "f", Document: 4}
	tests := []struct {
		name  string
		tg    *tagger.Tagger
		batch []*corpus.Sentence
		next  *corpus.Sentence
		want  bool
	}{
		{"plain, not full", plain, full[:10], same, false},
		{"plain, full", plain, full, same, true},
		{"documents, not full", doc, full[:10], next, false},
		{"documents, full, same document", doc, full, same, false},
		{"documents, full, next document", doc, full, next, true},
		{"documents, full, another file", doc, full, &corpus.Sentence{File: "g", Document: 3}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.tg.EndsBatch(tt.batch, tt.next); got != tt.want {
				t.Errorf("EndsBatch = %v, want %v", got, tt.want)
			}
		})
	}
}
