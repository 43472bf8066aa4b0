package feature

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/corpus"
)

// TestMapperFitBase: fitting on new data from a model's record keeps
// every attribute and label ID of the model (its unknown-value attributes
// too, and with pruning that would drop them) and appends the new ones.
func TestMapperFitBase(t *testing.T) {
	first := []*corpus.Sentence{sent("The", "DT", "cat", "NN")}
	more := []*corpus.Sentence{sent("cat", "NN", "runs", "VB"), sent("runs", "VB")}
	m0, err := NewMapper(testTemplates(nil, "w", "t", "s"), mapperCols)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m0.Fit(context.Background(), first, FitOptions{}); err != nil {
		t.Fatal(err)
	}
	base := m0.Record()
	m, err := NewMapper(testTemplates(nil, "w", "t", "s"), mapperCols)
	if err != nil {
		t.Fatal(err)
	}
	d, err := m.Fit(context.Background(), more, FitOptions{Base: &base, MinCount: 2})
	if err != nil {
		t.Fatal(err)
	}
	attrs := m.Attrs().Names()
	if !reflect.DeepEqual(attrs[:len(base.Attrs)], base.Attrs) {
		t.Fatalf("attributes %v do not start with the model's %v", attrs, base.Attrs)
	}
	// w=runs and s=s occur twice (kept), w=cat once but is the model's.
	if want := append(append([]string(nil), base.Attrs...), "w=runs", "s=s"); !reflect.DeepEqual(attrs, want) {
		t.Errorf("attributes %v, want %v", attrs, want)
	}
	if want := []string{"DT", "NN", "VB"}; !reflect.DeepEqual(m.Labels().Names(), want) {
		t.Errorf("labels %v, want %v", m.Labels().Names(), want)
	}
	if !reflect.DeepEqual(m.UnknownAttrs(), base.UnknownAttrs) {
		t.Errorf("unknown attributes %v, want the model's %v", m.UnknownAttrs(), base.UnknownAttrs)
	}
	if len(m.AttrGroups()) != len(attrs) {
		t.Errorf("%d attribute groups for %d attributes", len(m.AttrGroups()), len(attrs))
	}
	if !reflect.DeepEqual(d.Labels, []int32{1, 2, 2}) {
		t.Errorf("encoded labels %v", d.Labels)
	}
}

// TestMapperFitBaseRefuses: a model with other templates, or a corrupted
// attribute list, is refused saying why.
func TestMapperFitBaseRefuses(t *testing.T) {
	m0, err := NewMapper(testTemplates(nil, "w", "s"), mapperCols)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m0.Fit(context.Background(), []*corpus.Sentence{sent("a", "X")}, FitOptions{}); err != nil {
		t.Fatal(err)
	}
	dup := m0.Record()
	dup.Attrs = append([]string{dup.Attrs[0]}, dup.Attrs...)
	dup.UnknownAttrs = nil
	for _, tc := range []struct {
		name  string
		kinds []string
		base  MapperRecord
		want  string
	}{
		{"missing template", []string{"w"}, m0.Record(), `the model has template "s", which is missing here`},
		{"extra template", []string{"w", "s", "t"}, m0.Record(), `template "t" is not in the model`},
		{"order", []string{"s", "w"}, m0.Record(), "another order"},
		{"duplicate attribute", []string{"w", "s"}, dup, "listed twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := NewMapper(testTemplates(nil, tc.kinds...), mapperCols)
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.Fit(context.Background(), []*corpus.Sentence{sent("b", "Y")}, FitOptions{Base: &tc.base})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}
