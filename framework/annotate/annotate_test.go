package annotate

import (
	"reflect"
	"testing"

	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/tokenize"
)

// TestNew checks spans and words, with offsets and without, by hand.
func TestNew(t *testing.T) {
	text := "Über  New York."
	sent, err := tokenize.Rules{}.Tokenize(text)
	if err != nil || len(sent) != 1 {
		t.Fatal(sent, err)
	}
	words := sent[0].Words()
	labels := []string{"O", "B-LOC", "I-LOC", "O"}
	s := New(words, labels, Spans, scheme.IOB2, &sent[0])
	if len(s.Spans) != 1 {
		t.Fatalf("spans %+v", s.Spans)
	}
	sp := s.Spans[0]
	if sp.Label != "LOC" || sp.Text != "New York" || *sp.Start != 6 || *sp.End != 14 || sp.First != 1 || sp.Last != 2 {
		t.Errorf("span %+v (start %d end %d)", sp, *sp.Start, *sp.End)
	}
	if *s.Tokens[0].End != 4 || s.Tokens[3].Label != "O" || *s.Start != 0 || *s.End != 15 || s.Text != text {
		t.Errorf("sentence %+v", s)
	}
	// Without offsets the span's text is its tokens joined by spaces.
	bare := New(words, labels, Spans, scheme.IOB2, nil)
	if bare.Spans[0].Text != "New York" || bare.Spans[0].Start != nil || bare.Tokens[0].Start != nil {
		t.Errorf("without offsets: %+v", bare)
	}
	// A segmentation: words start at their first character.
	chars, err := tokenize.Characters{}.Tokenize("我们 是")
	if err != nil {
		t.Fatal(err)
	}
	seg := New(chars[0].Words(), []string{"B", "E", "S"}, Words, scheme.BMES, &chars[0])
	var got [][3]any
	for _, w := range seg.Words {
		got = append(got, [3]any{w.Text, *w.Start, *w.End})
	}
	if want := [][3]any{{"我们", 0, 2}, {"是", 3, 4}}; !reflect.DeepEqual(got, want) {
		t.Errorf("words %v, want %v", got, want)
	}
	s.AddTags([]string{"pos", "ner"}, [][]string{{"NNP", "NNP", "NNP", "."}, labels})
	if s.Tokens[1].Tags["pos"] != "NNP" || s.Tokens[1].Tags["ner"] != "B-LOC" {
		t.Errorf("tags %v", s.Tokens[1].Tags)
	}
}
