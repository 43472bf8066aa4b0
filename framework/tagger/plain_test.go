package tagger_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
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

// opaqueTemplate compiles to an extractor that emits nothing and does not
// say which columns it reads (no feature.ColumnReader).
type opaqueTemplate struct{}

func (opaqueTemplate) Config() any               { return &struct{}{} }
func (opaqueTemplate) Validate() hcl.Diagnostics { return nil }
func (opaqueTemplate) Compile(string, feature.Columns) (feature.Extractor, error) {
	return opaqueExtractor{}, nil
}

type opaqueExtractor struct{}

func (opaqueExtractor) Extract(*corpus.Sentence, feature.Sink) error { return nil }

// TestCheckPlainUndeclared: a template that does not say what it reads
// makes TokenInput ask for every column and CheckPlain refuse plain text
// naming the template; with a template that reads "pos" too, the error
// names the column.
func TestCheckPlainUndeclared(t *testing.T) {
	reg, _ := builtin.Registries()
	reg.RegisterTemplate("opaque", func() feature.Template { return opaqueTemplate{} })
	for _, tc := range []struct {
		name     string
		keepPOS  bool
		columns  []string
		contains string
	}{
		{"undeclared only", false, nil, `the templates "o" of the model do not say which columns they read`},
		{"undeclared and pos", true, []string{"pos"}, `read the column "pos" besides the word column "word"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tinyModel(t)
			if !tc.keepPOS {
				m.Templates = append(m.Templates[:1:1], m.Templates[2:]...)
			}
			m.UnknownAttrs = nil
			m.Templates = append(m.Templates, feature.TemplateSpec{Type: "opaque", Name: "o", Config: []byte("{}")})
			tg, err := tagger.New(m, reg, tagger.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			in, err := tg.TokenInput()
			if err != nil || !reflect.DeepEqual(in.ExtraNames, []string{"pos"}) {
				t.Errorf("TokenInput extra columns %v, %v; want [pos]", in.ExtraNames, err)
			}
			err = tg.CheckPlain()
			var ce *tagger.ColumnsError
			if !errors.As(err, &ce) || !reflect.DeepEqual(ce.Undeclared, []string{"o"}) || !reflect.DeepEqual(ce.Columns, tc.columns) ||
				!strings.Contains(err.Error(), tc.contains) {
				t.Errorf("CheckPlain: %v (%#v), want one naming %v and %q", err, ce, tc.columns, tc.contains)
			}
		})
	}
}
