package lexicon_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/trellis-nlp/trellis/builtin/lexicon"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// recorder keeps the attributes of every token as strings.
type recorder struct{ tokens [][]string }

func (r *recorder) Add(i int, key []byte, _ float64) { r.tokens[i] = append(r.tokens[i], string(key)) }

var columns = feature.Columns{Names: []string{"char", "label"}, Label: 1}

// decode decodes a lexicon block (body) as the spec does, with dir as the
// spec's folder.
func decode(t *testing.T, body, dir string) (*lexicon.Template, hcl.Diagnostics) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte("lexicon \"dict\" {\n"+body+"\n}\n"), "spec.hcl", hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	content, _ := f.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "lexicon", LabelNames: []string{"name"}}}})
	tmpl := lexicon.New().(*lexicon.Template)
	return tmpl, spec.DecodeTemplate(tmpl, content.Blocks[0], nil, dir)
}

func writeList(t *testing.T, entries ...string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "words.txt"), []byte(strings.Join(entries, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func extract(t *testing.T, tmpl feature.Template, tokens ...string) [][]string {
	t.Helper()
	x, err := tmpl.Compile("dict", columns)
	if err != nil {
		t.Fatal(err)
	}
	s := &corpus.Sentence{}
	for _, tok := range tokens {
		s.Tokens = append(s.Tokens, []string{tok, "S"})
	}
	r := &recorder{tokens: make([][]string, len(tokens))}
	if err := x.Extract(s, r); err != nil {
		t.Fatal(err)
	}
	return r.tokens
}

// bruteForce is the definition: every span of tokens that spells an entry
// is a match; a token's b, e and m are the longest match beginning at,
// ending at and strictly covering it, capped at maxLen.
func bruteForce(tokens []string, entries map[string]bool, sep string, maxLen int) [][]string {
	n := len(tokens)
	var b, e, m = make([]int, n), make([]int, n), make([]int, n)
	for i := range n {
		for j := i; j < n; j++ {
			if !entries[strings.Join(tokens[i:j+1], sep)] {
				continue
			}
			l := j - i + 1
			b[i], e[j] = max(b[i], l), max(e[j], l)
			for k := i + 1; k < j; k++ {
				m[k] = max(m[k], l)
			}
		}
	}
	out := make([][]string, n)
	for i := range n {
		for _, kv := range []struct {
			kind string
			l    int
		}{{"b", b[i]}, {"e", e[i]}, {"m", m[i]}} {
			if kv.l > 0 {
				out[i] = append(out[i], fmt.Sprintf("dict[0].%s=%d", kv.kind, min(kv.l, maxLen)))
			}
		}
	}
	return out
}

// TestMatchesAgainstBruteForce: random lists over a small alphabet (with
// multi-byte characters) and random sentences, against every span.
func TestMatchesAgainstBruteForce(t *testing.T) {
	alphabet := []string{"a", "b", "中", "国", "é"}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		sep := []string{"", " "}[trial%2]
		entries := map[string]bool{}
		var list []string
		for range 1 + rng.IntN(12) {
			var parts []string
			for range 1 + rng.IntN(5) {
				parts = append(parts, alphabet[rng.IntN(len(alphabet))])
			}
			e := strings.Join(parts, sep)
			entries[e] = true
			list = append(list, e)
		}
		maxLen := 1 + rng.IntN(4)
		tmpl, diags := decode(t, fmt.Sprintf("column = \"char\"\npath = \"words.txt\"\nmax_length = %d\nseparator = %q", maxLen, sep), writeList(t, list...))
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		tokens := make([]string, rng.IntN(12))
		for i := range tokens {
			tokens[i] = alphabet[rng.IntN(len(alphabet))]
		}
		got, want := extract(t, tmpl, tokens...), bruteForce(tokens, entries, sep, maxLen)
		for i := range tokens {
			if !slices.Equal(got[i], want[i]) {
				t.Fatalf("trial %d: list %q sep %q max %d, sentence %q: token %d has %q, want %q", trial, list, sep, maxLen, tokens, i, got[i], want[i])
			}
		}
	}
}

func TestOffsetsAndWords(t *testing.T) {
	tmpl, diags := decode(t, "column = \"char\"\npath = \"words.txt\"\nseparator = \" \"\noffsets = [-1, 0]",
		writeList(t, "New York", "New York City", "York", "  ", "New York"))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	got := extract(t, tmpl, "New", "York", "City", "is")
	want := [][]string{
		{"dict[0].b=3"},
		{"dict[-1].b=3", "dict[0].b=1", "dict[0].e=2", "dict[0].m=3"},
		{"dict[-1].b=1", "dict[-1].e=2", "dict[-1].m=3", "dict[0].e=3"},
		{"dict[-1].e=3"},
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("token %d: %q, want %q", i, got[i], want[i])
		}
	}
}

// TestModelIsSelfContained: the settings a model file records (JSON)
// carry the list; a template rebuilt from them, with the file gone,
// extracts the same attributes.
func TestModelIsSelfContained(t *testing.T) {
	dir := writeList(t, "中国", "中国人", "人")
	tmpl, diags := decode(t, "column = \"char\"\npath = \"words.txt\"", dir)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	recorded, err := json.Marshal(tmpl.Config())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "words.txt")); err != nil {
		t.Fatal(err)
	}
	again := lexicon.New()
	dec := json.NewDecoder(strings.NewReader(string(recorded)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(again.Config()); err != nil {
		t.Fatal(err)
	}
	if diags := again.Validate(); diags.HasErrors() {
		t.Fatal(diags)
	}
	tokens := []string{"中", "国", "人", "民"}
	if a, b := extract(t, tmpl, tokens...), extract(t, again, tokens...); !slices.EqualFunc(a, b, slices.Equal) {
		t.Errorf("from the spec %q, from the model %q", a, b)
	}
	// The manifest records the list by digest and count, not in full.
	summary, err := json.Marshal(tmpl.ManifestConfig())
	if err != nil {
		t.Fatal(err)
	}
	if s := string(summary); strings.Contains(s, "entries") || !strings.Contains(s, `"entry_count":3`) || !strings.Contains(s, `"sha256":"`) {
		t.Errorf("manifest config %s", s)
	}
	var cfg lexicon.Config
	json.Unmarshal(recorded, &cfg)
	if cfg.Entries != "中国\n中国人\n人" || len(cfg.SHA256) != 64 || cfg.Path != "words.txt" || cfg.MaxLength == nil || *cfg.MaxLength != 6 {
		t.Errorf("recorded %+v", cfg)
	}
}

func TestDiagnostics(t *testing.T) {
	dir := writeList(t, "a")
	if err := os.WriteFile(filepath.Join(dir, "empty.txt"), []byte("\n  \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, body, summary string
		line, column        int
	}{
		{"missing file", "column = \"char\"\npath = \"nope.txt\"", "Cannot read the word list", 3, 8},
		{"empty list", "column = \"char\"\npath = \"empty.txt\"", "Empty word list", 3, 8},
		{"max_length", "column = \"char\"\npath = \"words.txt\"\nmax_length = 0", "Invalid max_length", 0, 0},
		{"offset", "column = \"char\"\npath = \"words.txt\"\noffsets = [1000]", "Offset out of range", 0, 0},
		{"no path", "column = \"char\"", "Missing required argument", 1, 16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := decode(t, tc.body, dir)
			if !diags.HasErrors() || diags[0].Summary != tc.summary {
				t.Fatalf("diagnostics %v, want %q", diags, tc.summary)
			}
			if tc.line > 0 && (diags[0].Subject == nil || diags[0].Subject.Start.Line != tc.line || diags[0].Subject.Start.Column != tc.column) {
				t.Errorf("subject %v, want line %d column %d", diags[0].Subject, tc.line, tc.column)
			}
		})
	}
	t.Run("unknown column", func(t *testing.T) {
		tmpl, _ := decode(t, "column = \"word\"\npath = \"words.txt\"", dir)
		if _, err := tmpl.Compile("dict", columns); err == nil {
			t.Error("compiled against a column the corpus does not have")
		}
	})
}

// TestExtractionAllocatesNothing: once its buffers have grown, the
// extractor allocates nothing per sentence.
func TestExtractionAllocatesNothing(t *testing.T) {
	tmpl, diags := decode(t, "column = \"char\"\npath = \"words.txt\"\noffsets = [-1, 0, 1]", writeList(t, "中国", "中国人", "人民"))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	x, err := tmpl.Compile("dict", columns)
	if err != nil {
		t.Fatal(err)
	}
	s := &corpus.Sentence{}
	for _, c := range []string{"中", "国", "人", "民", "很", "好"} {
		s.Tokens = append(s.Tokens, []string{c, "S"})
	}
	var sink discard
	x.Extract(s, sink)
	if n := testing.AllocsPerRun(50, func() { x.Extract(s, sink) }); n != 0 {
		t.Errorf("%v allocations per sentence", n)
	}
}

type discard struct{}

func (discard) Add(int, []byte, float64) {}
