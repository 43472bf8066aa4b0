package feature

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

func TestColumnsIndex(t *testing.T) {
	cols := Columns{Names: []string{"word", "pos", "chunk"}, Label: 2}
	tests := []struct {
		name      string
		column    string
		want      int
		wantErr   string
		wantLabel bool
	}{
		{"first", "word", 0, "", false},
		{"second", "pos", 1, "", false},
		{"unknown", "wrod", 0, `unknown column "wrod" (the corpus has "word", "pos", "chunk")`, false},
		{"label", "chunk", 0, `column "chunk" is the label column; templates cannot read it`, true},
		{"case matters", "Word", 0, `unknown column "Word"`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cols.Index(tc.column)
			if tc.wantErr == "" {
				if err != nil || got != tc.want {
					t.Fatalf("Index(%q) = %d, %v; want %d", tc.column, got, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Index(%q) error = %v, want one containing %q", tc.column, err, tc.wantErr)
			}
			// Templates wrap the error; what a spec needs survives.
			var ce *ColumnError
			if !errors.As(fmt.Errorf("template: %w", err), &ce) {
				t.Fatalf("wrapped error %v is not a *ColumnError", err)
			}
			if ce.Column != tc.column || ce.Label != tc.wantLabel {
				t.Errorf("ColumnError = %+v, want column %q, label %v", ce, tc.column, tc.wantLabel)
			}
		})
	}
}

// fakeTemplate has a config with one field, to check Instantiate.
type fakeTemplate struct {
	cfg struct {
		N int `json:"n"`
	}
}

func (f *fakeTemplate) Config() any { return &f.cfg }
func (f *fakeTemplate) Validate() hcl.Diagnostics {
	if f.cfg.N < 0 {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid n", Detail: "n must not be negative"}}
	}
	return nil
}
func (f *fakeTemplate) Compile(string, Columns) (Extractor, error) { return nil, nil }

func TestRegistry(t *testing.T) {
	r := NewRegistry()
	r.RegisterTemplate("fake", func() Template { return &fakeTemplate{} })
	r.RegisterTemplate("another", func() Template { return &fakeTemplate{} })
	if got, want := r.Names(), []string{"another", "fake"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	a, ok := r.NewTemplate("fake")
	b, _ := r.NewTemplate("fake")
	if !ok || a == b {
		t.Errorf("NewTemplate gives %p, %p (ok %v); want two fresh templates", a, b, ok)
	}
	if tmpl, ok := r.NewTemplate("fak"); ok || tmpl != nil {
		t.Errorf("NewTemplate of an unknown type = %v, %v", tmpl, ok)
	}
	if s := r.Suggest("fak"); s != "fake" {
		t.Errorf("Suggest(fak) = %q", s)
	}

	tests := []struct {
		name    string
		spec    TemplateSpec
		wantN   int
		wantErr string
	}{
		{"config", TemplateSpec{Type: "fake", Name: "f", Config: []byte(`{"n": 3}`)}, 3, ""},
		{"no config", TemplateSpec{Type: "fake", Name: "f"}, 0, ""},
		{"unknown type", TemplateSpec{Type: "fak", Name: "f"}, 0, `template "f": unknown type "fak"`},
		{"bad config", TemplateSpec{Type: "fake", Name: "f", Config: []byte(`{"n": "x"}`)}, 0, `template "f": config:`},
		{"invalid config", TemplateSpec{Type: "fake", Name: "f", Config: []byte(`{"n": -1}`)}, 0, "n must not be negative"},
		// Model files decode strictly: a key the template does not know is
		// named, with the template.
		{"unknown key", TemplateSpec{Type: "fake", Name: "f", Config: []byte(`{"n": 3, "colour": "red"}`)}, 0, `template "f": config: json: unknown field "colour"`},
		{"data after config", TemplateSpec{Type: "fake", Name: "f", Config: []byte(`{"n": 3} {}`)}, 0, `template "f": config: invalid JSON: data after`},
		{"whitespace after config", TemplateSpec{Type: "fake", Name: "f", Config: []byte("{\"n\": 3}\n")}, 3, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tmpl, err := r.Instantiate(tc.spec)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Instantiate error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n := tmpl.(*fakeTemplate).cfg.N; n != tc.wantN {
				t.Errorf("n = %d, want %d", n, tc.wantN)
			}
		})
	}
}

func TestRegisterTemplateRefuses(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		want  string
	}{
		{"duplicate", []string{"fake", "fake"}, `registry: template type "fake" registered twice`},
		{"empty", []string{""}, "registry: template type with an empty name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if got := recover(); got != tc.want {
					t.Errorf("panic = %v, want %q", got, tc.want)
				}
			}()
			r := NewRegistry()
			for _, n := range tc.names {
				r.RegisterTemplate(n, func() Template { return &fakeTemplate{} })
			}
		})
	}
}
