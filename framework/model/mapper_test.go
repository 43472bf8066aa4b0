package model

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// wordTemplate emits "<name>=<word>" for the configured column; "trans"
// templates emit nothing and add transitions.
type wordTemplate struct {
	cfg struct {
		Column string `json:"column,omitempty"`
	}
}

func (t *wordTemplate) Config() any               { return &t.cfg }
func (t *wordTemplate) Validate() hcl.Diagnostics { return nil }
func (t *wordTemplate) Transitions() bool         { return t.cfg.Column == "" }
func (t *wordTemplate) Compile(name string, cols feature.Columns) (feature.Extractor, error) {
	if t.cfg.Column == "" {
		return nil, nil
	}
	c, err := cols.Index(t.cfg.Column)
	return wordExtractor{name, c}, err
}

type wordExtractor struct {
	name string
	col  int
}

func (x wordExtractor) Extract(s *corpus.Sentence, sink feature.Sink) error {
	for i, tok := range s.Tokens {
		sink.Add(i, []byte(x.name+"="+tok[x.col]), 1)
	}
	return nil
}

var mapperFormat = corpus.Config{Name: "conll", Columns: []string{"word", "chunk"}, Label: "chunk"}

func mapperRegistry() *feature.Registry {
	r := feature.NewRegistry()
	r.RegisterTemplate("word", func() feature.Template { return &wordTemplate{} })
	return r
}

// fittedMapper fits a mapper with one word template and transitions.
func fittedMapper(t *testing.T) (*feature.Mapper, *feature.Dataset, feature.Columns) {
	t.Helper()
	cols := feature.Columns{Names: []string{"word", "chunk"}, Label: 1}
	var templates []feature.MapperTemplate
	for _, spec := range []feature.TemplateSpec{
		{Type: "word", Name: "w", Config: []byte(`{"column":"word"}`)},
		{Type: "word", Name: "t", Config: []byte(`{}`)},
	} {
		tmpl, err := mapperRegistry().Instantiate(spec)
		if err != nil {
			t.Fatal(err)
		}
		templates = append(templates, feature.MapperTemplate{Spec: spec, Template: tmpl})
	}
	mp, err := feature.NewMapper(templates, cols)
	if err != nil {
		t.Fatal(err)
	}
	sents := []*corpus.Sentence{
		{Tokens: [][]string{{"the", "B-NP"}, {"cat", "I-NP"}, {"sat", "O"}}},
		{Tokens: [][]string{{"the", "B-NP"}, {"dog", "I-NP"}}},
	}
	d, err := mp.Fit(context.Background(), sents, feature.FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return mp, d, cols
}

// TestSetMapperBytes: a model that records its mapper with SetMapper has
// the bytes of one whose header is filled field by field, as runs did
// before the mapper was a type; loading it gives the mapper back.
func TestSetMapperBytes(t *testing.T) {
	mp, d, cols := fittedMapper(t)
	lm := linear.NewObserved(d, mp.Attrs().Len(), mp.Labels().Len(), true)
	for i := range lm.W {
		lm.W[i] = float64(i%5) - 2
	}
	header := Header{
		Scheme: "iob2", Format: mapperFormat, LabelColumn: "chunk", WordColumn: "word",
		Learner: Learner{Name: "hmm", Type: "hmm", Config: []byte(`{}`)},
	}
	byHand := &Model{Header: header, Attrs: mp.Attrs().Names(), Linear: lm}
	byHand.Labels, byHand.Templates, byHand.UnknownAttrs = mp.Labels().Names(), mp.Templates(), mp.UnknownAttrs()
	viaMapper := &Model{Header: header, Linear: lm}
	viaMapper.SetMapper(mp)
	want := encode(t, byHand)
	if got := encode(t, viaMapper); !bytes.Equal(got, want) {
		t.Fatalf("SetMapper changes the model bytes")
	}
	if !bytes.Contains(want, []byte(`"templates":[{"type":"word","name":"w","config":{"column":"word"}},{"type":"word","name":"t","config":{}}],"transitions":true,"unknown_attrs":[4]`)) {
		t.Errorf("header fields moved: %s", want)
	}

	loaded, err := Decode(want)
	if err != nil {
		t.Fatal(err)
	}
	back, err := loaded.Mapper(mapperRegistry(), cols)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Record(), mp.Record()) {
		t.Errorf("loaded mapper %+v, want %+v", back.Record(), mp.Record())
	}
}

// TestMapperStrictConfig: a template config in a model file with a key
// the template does not know is refused, naming the key and the template.
func TestMapperStrictConfig(t *testing.T) {
	mp, d, cols := fittedMapper(t)
	tests := []struct {
		name   string
		config string
		want   string
	}{
		{"as written", `{"column":"word"}`, ""},
		{"extra key", `{"column":"word","lowercase":true}`, `template "w": config: json: unknown field "lowercase"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &Model{Header: Header{Format: mapperFormat, LabelColumn: "chunk"}, Linear: linear.NewObserved(d, mp.Attrs().Len(), mp.Labels().Len(), true)}
			m.SetMapper(mp)
			m.Templates = append([]feature.TemplateSpec(nil), m.Templates...)
			m.Templates[0].Config = []byte(tc.config)
			loaded, err := Decode(encode(t, m))
			if err != nil {
				t.Fatal(err)
			}
			_, err = loaded.Mapper(mapperRegistry(), cols)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
