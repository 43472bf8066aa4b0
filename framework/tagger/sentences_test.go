package tagger_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// TestModelInput: the probe finds the columns a model's templates read
// besides the word column, and a sentence built from tokens and those
// columns tags as the same sentence read from a file.
func TestModelInput(t *testing.T) {
	raw := func(v any) json.RawMessage {
		b, _ := json.Marshal(v)
		return b
	}
	tests := []struct {
		name      string
		templates []feature.TemplateSpec
		want      []string
	}{
		{"as trained (word and pos)", nil, []string{"pos"}},
		{"word only", []feature.TemplateSpec{
			{Type: "emission", Name: "w", Config: raw(map[string]any{"column": "word", "offsets": []int{-1, 0}})},
			{Type: "boundary", Name: "b", Config: raw(map[string]any{})},
			{Type: "transition", Name: "t", Config: raw(map[string]any{})},
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := tinyModel(t)
			if tc.templates != nil {
				m.Templates = tc.templates
			}
			reg, _ := builtin.Registries()
			in, err := tagger.ModelInput(m, reg)
			if err != nil {
				t.Fatal(err)
			}
			if in.Columns[in.Word] != "word" || in.Columns[in.Label] != "chunk" {
				t.Errorf("word column %q, label column %q", in.Columns[in.Word], in.Columns[in.Label])
			}
			if !reflect.DeepEqual(in.ExtraNames, tc.want) {
				t.Errorf("extra columns %v, want %v", in.ExtraNames, tc.want)
			}
		})
	}

	m := tinyModel(t)
	reg, _ := builtin.Registries()
	in, err := tagger.ModelInput(m, reg)
	if err != nil {
		t.Fatal(err)
	}
	s := in.Sentence([]string{"the", "cat", "sat"}, [][]string{{"DT", "NN", "VBD"}})
	if want := [][]string{{"the", "DT", ""}, {"cat", "NN", ""}, {"sat", "VBD", ""}}; !reflect.DeepEqual(s.Tokens, want) {
		t.Fatalf("tokens %q, want %q", s.Tokens, want)
	}
	tg, err := tagger.New(m, reg, tagger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	got, err := tg.Tag([]*corpus.Sentence{s})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"B-NP", "I-NP", "O"}; !reflect.DeepEqual(got[0], want) {
		t.Errorf("labels %v, want %v", got[0], want)
	}
}
