package spec_test

import (
	"os"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// TestCorpusFormatsFromRegistry checks that the formats a spec accepts,
// lists and suggests are those corpus.Formats registers.
func TestCorpusFormatsFromRegistry(t *testing.T) {
	good, err := os.ReadFile("testdata/good.hcl")
	if err != nil {
		t.Fatal(err)
	}
	decode := func(t *testing.T, format string) string {
		t.Helper()
		src := strings.Replace(string(good), `format  = "conll"`, `format  = "`+format+`"`, 1)
		_, diags := spec.Decode("testdata/formats.hcl", []byte(src), nil, registries())
		for _, d := range diags {
			if d.Summary == "Unknown corpus format" {
				return d.Detail
			}
		}
		return ""
	}
	formats := corpus.Formats()
	for _, name := range formats.Names() {
		t.Run("accepts "+name, func(t *testing.T) {
			if d := decode(t, name); d != "" {
				t.Errorf("format %q refused: %s", name, d)
			}
		})
	}
	tests := []struct{ format, want string }{
		{"conl", `There is no format "conl". Did you mean "conll"?`},
		{"CHARS", `There is no format "CHARS". Did you mean "chars"?`},
		{"xml", `There is no format "xml". Choose one of: ` + strings.Join(formats.RegistrationOrder(), ", ") + "."},
	}
	for _, tc := range tests {
		t.Run("refuses "+tc.format, func(t *testing.T) {
			if got := decode(t, tc.format); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
