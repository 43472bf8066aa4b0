package spec_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/spec"
)

// TestWriteDiagnosticsNonASCII checks that carets stay under their text
// after non-ASCII characters: HCL columns count characters, not bytes, and
// CJK characters take two terminal cells. The ranges are built by hand
// with Byte left at 0, as callers outside HCL do, so the columns are used.
func TestWriteDiagnosticsNonASCII(t *testing.T) {
	src := []byte("a = \"café\" + bad\n" +
		"b = \"日本語\" + bad\n" +
		"c = \"cafe\u0301\" + bad\n" + // é as e + combining acute: one column
		"d = \"日本語\"\n" +
		"\te = \"ü\" + bad\n")
	rng := func(l1, c1, l2, c2 int) *hcl.Range {
		return &hcl.Range{Filename: "f.hcl", Start: hcl.Pos{Line: l1, Column: c1}, End: hcl.Pos{Line: l2, Column: c2}}
	}
	tests := []struct {
		name    string
		subject *hcl.Range
		want    string // the caret line
	}{
		{"after a precomposed accent", rng(1, 14, 1, 17), "      |              ^^^\n"},
		{"after CJK, two cells each", rng(2, 13, 2, 16), "      |                ^^^\n"},
		{"after a combining accent", rng(3, 14, 3, 17), "      |              ^^^\n"},
		{"under CJK", rng(4, 5, 4, 10), "      |     ^^^^^^^^\n"},
		{"CJK to the end of the line", rng(4, 5, 5, 1), "      |     ^^^^^^^^\n"},
		{"tab and accent", rng(5, 12, 5, 15), "      | \t          ^^^\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			spec.WriteDiagnostics(&buf, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "S", Subject: tc.subject}},
				map[string][]byte{"f.hcl": src})
			lines := strings.SplitAfter(buf.String(), "\n")
			if len(lines) != 4 || lines[2] != tc.want {
				t.Errorf("got\n%s\nwant caret line\n%q", buf.String(), tc.want)
			}
		})
	}
}

// TestDiagnosticsCaretAfterNonASCII decodes specs whose error follows
// non-ASCII text on its line, so the ranges are HCL's own (with byte
// offsets), and checks the caret stands under the wrong value.
func TestDiagnosticsCaretAfterNonASCII(t *testing.T) {
	good, err := os.ReadFile("testdata/good.hcl")
	if err != nil {
		t.Fatal(err)
	}
	// "experiment "café" { seed = " is 27 terminal cells wide in each
	// case: 26 characters with "実験", whose characters take two cells.
	caret := "      | " + strings.Repeat(" ", 27) + "^^\n"
	tests := []struct {
		name, experiment string
	}{
		{"accent", `experiment "café" { seed = -7 }`},
		{"combining accent", "experiment \"cafe\u0301\" { seed = -7 }"},
		{"CJK", `experiment "実験" { seed = -7 }`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(string(good), "experiment \"tiny\" {\n  seed = 7\n}", tc.experiment, 1)
			if src == string(good) {
				t.Fatal("good.hcl no longer has the experiment block this test replaces")
			}
			name := "testdata/nonascii.hcl"
			_, diags := spec.Decode(name, []byte(src), nil, registries())
			var buf bytes.Buffer
			spec.WriteDiagnostics(&buf, diags, map[string][]byte{name: []byte(src)})
			want := "    6 | " + tc.experiment + "\n" + caret
			if !strings.Contains(buf.String(), "Invalid seed") || !strings.HasSuffix(buf.String(), want) {
				t.Errorf("got\n%s\nwant it to end with\n%s", buf.String(), want)
			}
		})
	}
}
