package spec_test

import (
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/spec"
)

// TestTemplateColumnErrorPlacement checks where a template's Compile
// error about a column is reported: at the attribute naming the column
// (found through the error's type, feature.ColumnError), or at the block
// header when no attribute names it.
func TestTemplateColumnErrorPlacement(t *testing.T) {
	good, err := os.ReadFile("testdata/good.hcl")
	if err != nil {
		t.Fatal(err)
	}
	const block = "  emission \"w\" {\n    column  = \"word\"\n    offsets = [-1, 0, 1]\n  }\n"
	tests := []struct {
		name    string
		block   string
		subject string // the source text the diagnostic's range covers
		detail  string
	}{
		{"unknown column", "  emission \"w\" {\n    column = \"wrod\"\n  }\n",
			`"wrod"`, `emission "w": unknown column "wrod" (the corpus has "word", "pos", "chunk")`},
		{"label column", "  suffix \"s\" {\n    column = \"chunk\"\n  }\n",
			`"chunk"`, `suffix "s": column "chunk" is the label column; templates cannot read it`},
		{"unknown column in join", "  emission \"wp\" {\n    join = [\"word[0]\", \"lemma[1]\"]\n  }\n",
			`["word[0]", "lemma[1]"]`, `unknown column "lemma"`},
		{"fixed column of the attributes template", "  attributes \"a\" {}\n",
			`attributes "a"`, `the attributes template reads the "attributes" column`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(string(good), block, tc.block, 1)
			if src == string(good) {
				t.Fatal("good.hcl no longer has the template block this test replaces")
			}
			s, diags := spec.Decode("testdata/columns.hcl", []byte(src), nil, registries())
			if s != nil || len(diags) != 1 {
				t.Fatalf("want exactly one error, got %d: %v", len(diags), diags)
			}
			d := diags[0]
			if d.Severity != hcl.DiagError || d.Summary != "Invalid template" || !strings.Contains(d.Detail, tc.detail) {
				t.Errorf("diagnostic %q: %q, want Invalid template mentioning %q", d.Summary, d.Detail, tc.detail)
			}
			if got := src[d.Subject.Start.Byte:d.Subject.End.Byte]; got != tc.subject {
				t.Errorf("diagnostic placed at %q, want %q", got, tc.subject)
			}
		})
	}
}

// TestTemplateColumnsWithVariableTrain: templates are checked against the
// train corpus's columns when the evaluation block names it by a variable.
func TestTemplateColumnsWithVariableTrain(t *testing.T) {
	good, err := os.ReadFile("testdata/good.hcl")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.NewReplacer(`train = "train"`, `train = var.t`, `column  = "word"`, `column  = "wrod"`).Replace(string(good))
	src = "variable \"t\" {\n  default = \"train\"\n}\n" + src
	_, diags := spec.Decode("testdata/columns.hcl", []byte(src), nil, registries())
	if len(diags) != 1 || diags[0].Summary != "Invalid template" || !strings.Contains(diags[0].Detail, `unknown column "wrod"`) {
		t.Errorf("diagnostics %v, want the unknown column", diags)
	}
}
