package feature

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/corpus"
)

// testTemplate compiles to wordExtractor ("w"), suffixExtractor ("s"), to
// nothing with transitions ("t"), or fails ("bad"); its extractors record
// being closed.
type testTemplate struct {
	cfg struct {
		Kind string `json:"kind"`
	}
	closed *int
}

func (t *testTemplate) Config() any               { return &t.cfg }
func (t *testTemplate) Validate() hcl.Diagnostics { return nil }
func (t *testTemplate) Transitions() bool         { return t.cfg.Kind == "t" }
func (t *testTemplate) Compile(name string, cols Columns) (Extractor, error) {
	switch t.cfg.Kind {
	case "w":
		return closingExtractor{wordExtractor{}, t.closed}, nil
	case "s":
		return closingExtractor{suffixExtractor{}, t.closed}, nil
	case "t":
		return nil, nil
	}
	_, err := cols.Index("missing")
	return nil, err
}

var _ StructureTemplate = (*testTemplate)(nil)

type closingExtractor struct {
	Extractor
	closed *int
}

func (c closingExtractor) Close() error {
	if c.closed != nil {
		*c.closed++
	}
	return nil
}

var _ Closer = closingExtractor{}

func testTemplates(closed *int, kinds ...string) []MapperTemplate {
	var out []MapperTemplate
	for _, k := range kinds {
		t := &testTemplate{closed: closed}
		t.cfg.Kind = k
		out = append(out, MapperTemplate{
			Spec:     TemplateSpec{Type: "test", Name: k, Config: []byte(`{"kind":"` + k + `"}`)},
			Template: t,
		})
	}
	return out
}

func testRegistry() *Registry {
	r := NewRegistry()
	r.RegisterTemplate("test", func() Template { return &testTemplate{} })
	return r
}

var mapperCols = Columns{Names: []string{"word", "tag"}, Label: 1}

// TestMapperFit checks that Fit is the training encoding a run has always
// done: intern template by template, prune, then one unknown-value
// attribute per template after the seen ones.
func TestMapperFit(t *testing.T) {
	train := []*corpus.Sentence{sent("a", "X", "b", "Y", "a", "X"), sent("cb", "Y")}
	tests := []struct {
		name      string
		kinds     []string
		minCount  int
		batch     int
		attrs     []string
		groups    []int32
		unknown   []int32
		tokenAttr []int32
		trans     bool
	}{
		{"all kept", []string{"w", "s", "t"}, 1, 0,
			[]string{"w=a", "w=b", "w=cb", "s=a", "s=b", "<unknown>/0", "<unknown>/1"},
			[]int32{0, 0, 0, 1, 1, 0, 1}, []int32{5, 6}, []int32{0, 3, 1, 4, 0, 3, 2, 4}, true},
		// counts: w=a 2, s=a 2, w=b 1, s=b 2, w=cb 1
		{"min count 2", []string{"w", "s"}, 2, 1,
			[]string{"w=a", "s=a", "s=b", "<unknown>/0", "<unknown>/1"},
			[]int32{0, 1, 1, 0, 1}, []int32{3, 4}, []int32{0, 1, 2, 0, 1, 2}, false},
		{"no templates", nil, 1, 0, nil, nil, nil, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := NewMapper(testTemplates(nil, tc.kinds...), mapperCols)
			if err != nil {
				t.Fatal(err)
			}
			batches := 0
			d, err := m.Fit(context.Background(), train, FitOptions{MinCount: tc.minCount, BatchSize: tc.batch, Done: func(int) { batches++ }})
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Attrs().Names(); !(len(got) == 0 && len(tc.attrs) == 0) && !reflect.DeepEqual(got, tc.attrs) {
				t.Errorf("attributes %q, want %q", got, tc.attrs)
			}
			if !reflect.DeepEqual(m.AttrGroups(), tc.groups) || !reflect.DeepEqual(m.UnknownAttrs(), tc.unknown) {
				t.Errorf("groups %v unknown %v, want %v %v", m.AttrGroups(), m.UnknownAttrs(), tc.groups, tc.unknown)
			}
			if !(len(d.Attrs) == 0 && len(tc.tokenAttr) == 0) && !reflect.DeepEqual(d.Attrs, tc.tokenAttr) {
				t.Errorf("dataset attributes %v, want %v", d.Attrs, tc.tokenAttr)
			}
			if !reflect.DeepEqual(m.Labels().Names(), []string{"X", "Y"}) || !reflect.DeepEqual(d.Labels, []int32{0, 1, 0, 1}) {
				t.Errorf("labels %q %v", m.Labels().Names(), d.Labels)
			}
			if m.Transitions() != tc.trans || m.NumGroups() != len(tc.unknown) || len(m.Templates()) != len(tc.kinds) {
				t.Errorf("transitions %v groups %d templates %d", m.Transitions(), m.NumGroups(), len(m.Templates()))
			}
			if wantBatches := map[int]int{0: 1, 1: 2}[tc.batch]; batches != wantBatches {
				t.Errorf("%d batches, want %d", batches, wantBatches)
			}
			if _, _, err := unfitted(t).Encode(train); err == nil {
				t.Error("an unfitted mapper encoded")
			}
			if _, err := m.Fit(context.Background(), train, FitOptions{}); err == nil {
				t.Error("a second Fit was accepted")
			}
		})
	}
}

func unfitted(t *testing.T) *Mapper {
	m, err := NewMapper(testTemplates(nil, "w"), mapperCols)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMapperEncode: values unseen in training become their template's
// unknown-value attribute, labels unseen in training -1 and counted; a
// mapper rebuilt from its record encodes the same.
func TestMapperEncode(t *testing.T) {
	train := []*corpus.Sentence{sent("The", "DT", "cat", "NN"), sent("the", "DT", "dog", "NN")}
	test := []*corpus.Sentence{sent("bird", "NN", "cat", "VB"), sent("The", "DT")}
	m, err := NewMapper(testTemplates(nil, "w", "t", "s"), mapperCols)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Fit(context.Background(), train, FitOptions{}); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadMapper(m.Record(), testRegistry(), mapperCols)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		m    *Mapper
	}{{"fitted", m}, {"loaded", loaded}} {
		t.Run(tc.name, func(t *testing.T) {
			d, unknownLabels, err := tc.m.Encode(test)
			if err != nil {
				t.Fatal(err)
			}
			// w=The cap w=cat w=the w=dog s=e s=t s=g <unknown>/0 <unknown>/1
			want := []int32{8, 9, 2, 6, 0, 1, 5}
			if !reflect.DeepEqual(d.Attrs, want) {
				t.Errorf("attributes %v, want %v", d.Attrs, want)
			}
			if !reflect.DeepEqual(d.Labels, []int32{1, -1, 0}) || !reflect.DeepEqual(unknownLabels, map[string]int{"VB": 1}) {
				t.Errorf("labels %v unknown %v", d.Labels, unknownLabels)
			}
		})
	}
	if !reflect.DeepEqual(loaded.Record(), m.Record()) || loaded.AttrGroups() != nil {
		t.Errorf("loaded mapper records %+v, want %+v (and no groups)", loaded.Record(), m.Record())
	}
}

// TestNewMapperError: a template that does not compile is named, with its
// place in the list, and what was compiled before it is closed.
func TestNewMapperError(t *testing.T) {
	closed := 0
	_, err := NewMapper(testTemplates(&closed, "w", "s", "bad", "w"), mapperCols)
	var te *TemplateError
	if !errors.As(err, &te) || te.Index != 2 || te.Name != "bad" {
		t.Fatalf("error %v, want a TemplateError for template 2", err)
	}
	if want := `template "bad": unknown column "missing"`; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q, want %q...", err, want)
	}
	var ce *ColumnError
	if !errors.As(err, &ce) {
		t.Errorf("the template's *ColumnError is lost: %v", err)
	}
	if closed != 2 {
		t.Errorf("%d extractors closed, want 2", closed)
	}
}

// TestLoadMapperRefuses: what a model file records must make a mapper.
func TestLoadMapperRefuses(t *testing.T) {
	good := func() MapperRecord {
		m, err := NewMapper(testTemplates(nil, "w", "s"), mapperCols)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Fit(context.Background(), []*corpus.Sentence{sent("a", "X")}, FitOptions{}); err != nil {
			t.Fatal(err)
		}
		return m.Record()
	}
	tests := []struct {
		name string
		edit func(r *MapperRecord)
		want string
	}{
		{"unknown type", func(r *MapperRecord) { r.Templates[1].Type = "tset" }, `template "s": unknown type "tset"`},
		{"unknown config key", func(r *MapperRecord) { r.Templates[1].Config = []byte(`{"kind":"s","colour":"red"}`) },
			`template "s": config: json: unknown field "colour"`},
		{"does not compile", func(r *MapperRecord) { r.Templates[0].Config = []byte(`{"kind":"bad"}`) }, `template "w": unknown column`},
		{"unknown attributes miscounted", func(r *MapperRecord) { r.UnknownAttrs = r.UnknownAttrs[:1] },
			"model records 1 unknown-value attributes for 2 templates"},
		{"unknown attribute out of range", func(r *MapperRecord) { r.UnknownAttrs[1] = int32(len(r.Attrs)) },
			"unknown-value attribute 4 of template 1 out of range"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := good()
			tc.edit(&r)
			if _, err := LoadMapper(r, testRegistry(), mapperCols); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// Without unknown-value attributes (older models), unseen values are
	// dropped.
	r := good()
	r.UnknownAttrs = nil
	m, err := LoadMapper(r, testRegistry(), mapperCols)
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := m.Encode([]*corpus.Sentence{sent("b", "X")})
	if err != nil || len(d.Attrs) != 0 {
		t.Errorf("unseen values of a model without unknown attributes: %v, %v", d.Attrs, err)
	}
}

// columnsExtractor declares the columns it reads.
type columnsExtractor struct {
	wordExtractor
	cols []int
}

func (c columnsExtractor) ReadColumns() []int { return c.cols }

var _ ColumnReader = columnsExtractor{}

func TestMapperReadColumns(t *testing.T) {
	cols := Columns{Names: []string{"word", "pos", "chunk", "tag"}, Label: 3}
	tests := []struct {
		name          string
		extractors    []Extractor
		want, unknown []string
	}{
		{"word only", []Extractor{columnsExtractor{cols: []int{0}}, columnsExtractor{}}, []string{"word"}, nil},
		{"in column order, once", []Extractor{columnsExtractor{cols: []int{2, 0}}, columnsExtractor{cols: []int{0, 1}}}, []string{"word", "pos", "chunk"}, nil},
		{"undeclared", []Extractor{columnsExtractor{cols: []int{0}}, wordExtractor{}}, []string{"word"}, []string{"t1"}},
		{"none", nil, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &Mapper{cols: cols}
			for i, x := range tc.extractors {
				m.addExtractor("t"+string(rune('0'+i)), "test", x, false)
			}
			got, unknown := m.ReadColumns()
			if !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(unknown, tc.unknown) {
				t.Errorf("ReadColumns() = %v, %v; want %v, %v", got, unknown, tc.want, tc.unknown)
			}
		})
	}
}
