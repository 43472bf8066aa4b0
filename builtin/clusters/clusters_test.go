package clusters

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

// recorder keeps attributes as strings per token of one sentence.
type recorder struct{ tokens [][]string }

func (r *recorder) Add(i int, key []byte, value float64) {
	r.tokens[i] = append(r.tokens[i], string(key))
}

type discard struct{ n int }

func (d *discard) Add(i int, key []byte, value float64) { d.n += len(key) }

var cols = feature.Columns{Names: []string{"word", "label"}, Label: 1}

func sentence(words string) *corpus.Sentence {
	s := &corpus.Sentence{File: "f"}
	for _, w := range strings.Fields(words) {
		s.Tokens = append(s.Tokens, []string{w, "O"})
	}
	return s
}

func compile(t testing.TB, cfg Config) feature.Extractor {
	t.Helper()
	tmpl := &Template{cfg: cfg}
	if diags := tmpl.Validate(); diags.HasErrors() {
		t.Fatal(diags)
	}
	x, err := tmpl.Compile("bc", cols)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestExtract(t *testing.T) {
	path := filepath.Join("testdata", "small.clusters")
	cases := []struct {
		name  string
		cfg   Config
		words string
		want  [][]string
	}{
		{"default prefixes", Config{Column: "word", Path: path}, "john sat",
			[][]string{{"bc[0]:4=1001", "bc[0]:6=10011"}, {"bc[0]:4=1001", "bc[0]:6=10010"}}},
		{"short path once", Config{Column: "word", Path: path, Prefixes: []int{1, 2, 3}}, "the cat",
			[][]string{{"bc[0]:1=0"}, {"bc[0]:1=1", "bc[0]:2=11", "bc[0]:3=110"}}},
		{"case fallback", Config{Column: "word", Path: path, Prefixes: []int{3}, CaseFallback: true}, "JOHN CITY The Mary DOG",
			[][]string{{"bc[0]:3=100"}, {"bc[0]:3=111"}, {"bc[0]:3=0"}, {"bc[0]:3=100"}, {"bc[0]:3=110"}}},
		{"no case fallback", Config{Column: "word", Path: path, Prefixes: []int{3}}, "JOHN The mary",
			[][]string{nil, nil, {"bc[0]:3=100"}}},
		{"offsets and unknown words", Config{Column: "word", Path: path, Offsets: []int{-1, 1}, Prefixes: []int{2}}, "Peter saw the city",
			[][]string{nil, {"bc[1]:2=0"}, {"bc[1]:2=11"}, {"bc[-1]:2=0"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := compile(t, tc.cfg)
			s := sentence(tc.words)
			r := &recorder{tokens: make([][]string, s.Len())}
			if err := x.Extract(s, r); err != nil {
				t.Fatal(err)
			}
			for i := range r.tokens {
				if !slices.Equal(r.tokens[i], tc.want[i]) {
					t.Fatalf("token %d: %q, want %q", i, r.tokens[i], tc.want[i])
				}
			}
		})
	}
}

func TestExtractAllocatesNothing(t *testing.T) {
	x := compile(t, Config{Column: "word", Path: filepath.Join("testdata", "small.clusters"), Offsets: []int{-1, 0, 1}, CaseFallback: true})
	s := sentence("john and MARY sat in The city .")
	sink := &discard{}
	if allocs := testing.AllocsPerRun(100, func() { _ = x.Extract(s, sink) }); allocs != 0 {
		t.Fatalf("%v allocations per sentence", allocs)
	}
}

// TestPin: the file's SHA-256 is recorded, and a file that differs from
// the pinned one is refused.
func TestPin(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.txt")
	if err := os.WriteFile(path, []byte("0\tthe\t3\n1\tcat\t1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tmpl := &Template{cfg: Config{Column: "word", Path: path}}
	if _, err := tmpl.Compile("bc", cols); err != nil {
		t.Fatal(err)
	}
	pin := tmpl.cfg.SHA256
	if len(pin) != 64 {
		t.Fatalf("sha256 %q not recorded", pin)
	}
	if err := os.WriteFile(path, []byte("1\tthe\t3\n0\tcat\t1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	again := &Template{cfg: Config{Column: "word", Path: path, SHA256: pin}}
	_, err := again.Compile("bc", cols)
	if err == nil || !strings.Contains(err.Error(), "not the file the model was trained with") {
		t.Fatalf("changed file: error %v", err)
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no path", Config{Column: "word"}, "Missing cluster file"},
		{"bad sha", Config{Column: "word", Path: "x", SHA256: "abc"}, "Invalid sha256"},
		{"prefix zero", Config{Column: "word", Path: "x", Prefixes: []int{0}}, "Invalid prefix length"},
		{"prefixes decrease", Config{Column: "word", Path: "x", Prefixes: []int{6, 4}}, "prefixes must increase"},
		{"offset", Config{Column: "word", Path: "x", Offsets: []int{500}}, "Offset out of range"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := (&Template{cfg: tc.cfg}).Validate()
			if !d.HasErrors() || !strings.Contains(d.Error(), tc.want) {
				t.Fatalf("diagnostics %v, want %q", d, tc.want)
			}
		})
	}
}
