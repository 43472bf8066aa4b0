package tagger_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// TestPlainInput: tinyModel's templates read "word" and "pos", so plain
// text is refused with an error naming "pos"; without the POS template the
// same model tags text, each token in the word column.
func TestPlainInput(t *testing.T) {
	reg, _ := builtin.Registries()
	m := tinyModel(t)
	tg, err := tagger.New(m, reg, tagger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tg.NewReader(strings.NewReader("the cat\n"), "in", tagger.Text)
	var ce *tagger.ColumnsError
	if !errors.As(err, &ce) || !reflect.DeepEqual(ce.Columns, []string{"pos"}) || ce.Word != "word" {
		t.Fatalf("NewReader: %v, want a ColumnsError naming pos", err)
	}
	tg.Close()

	// Drop the POS template (p2, whose attributes then never fire).
	m.Templates = append(m.Templates[:1:1], m.Templates[2:]...)
	m.UnknownAttrs = nil
	tg, err = tagger.New(m, reg, tagger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if err := tg.CheckPlain(); err != nil {
		t.Fatal(err)
	}
	for _, in := range []tagger.Input{tagger.Text, tagger.Tokens} {
		text := map[tagger.Input]string{tagger.Text: "the cat sat\n", tagger.Tokens: "the\ncat\nsat\n"}[in]
		r, err := tg.NewReader(strings.NewReader(text), "in", in)
		if err != nil {
			t.Fatal(err)
		}
		s, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		pred, err := tg.Tag([]*corpus.Sentence{s})
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"B-NP", "I-NP", "O"}; !reflect.DeepEqual(pred[0], want) {
			t.Errorf("%s: %v, want %v", in, pred[0], want)
		}
	}
}

func TestParseInput(t *testing.T) {
	for _, s := range []string{"corpus", "text", "tokens"} {
		if in, err := tagger.ParseInput(s); err != nil || string(in) != s {
			t.Errorf("ParseInput(%q) = %q, %v", s, in, err)
		}
	}
	if _, err := tagger.ParseInput("words"); err == nil {
		t.Errorf("ParseInput(words) succeeded")
	}
}
