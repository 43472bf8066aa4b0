// embedding_test.go: extraction on testdata/tiny.txt (values and classes,
// offsets at the sentence edges, the lowercase fallback, unknown words),
// the model round trip without the file, the manifest, and bad input
// placed at its setting.

package embedding

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// tiny holds three groups of three words: {the, sat, a} near the origin,
// {cat, dog, Apple} near (4, 4, 4) and {city, paris, town} near (-4, -4, 0).
const tiny = "testdata/tiny.txt"

var cols = feature.Columns{Names: []string{"word", "pos", "label"}, Label: 2}

// recorder keeps attributes as "key" or "key:value" strings per token.
type recorder struct{ tokens [][]string }

func (r *recorder) Add(i int, key []byte, value float64) {
	s := string(key)
	if !strings.Contains(s, "=") || value != 1 { // values keys have no "="
		s += fmt.Sprintf(":%g", value)
	}
	r.tokens[i] = append(r.tokens[i], s)
}

type discard struct{}

func (discard) Add(int, []byte, float64) {}

func sentence(words string) *corpus.Sentence {
	s := &corpus.Sentence{File: "f"}
	for _, w := range strings.Fields(words) {
		s.Tokens = append(s.Tokens, []string{w, "X", "O"})
	}
	return s
}

// decodeBlock decodes a block body as a spec does (spec.DecodeTemplate), with
// dir as the spec's folder, and returns the template, the diagnostics and
// the source.
func decodeBlock(t testing.TB, body, dir string) (*Template, hcl.Diagnostics, []byte) {
	t.Helper()
	src := []byte("embedding \"emb\" {\n" + body + "\n}\n")
	f, diags := hclsyntax.ParseConfig(src, "test.hcl", hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	content, diags := f.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "embedding", LabelNames: []string{"name"}}}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	tmpl := New().(*Template)
	return tmpl, spec.DecodeTemplate(tmpl, content.Blocks[0], nil, dir), src
}

// extract decodes body, compiles it as "emb" and extracts words.
func extract(t testing.TB, body, words string) [][]string {
	t.Helper()
	tmpl, diags, _ := decodeBlock(t, body, ".")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return run(t, tmpl, words)
}

func run(t testing.TB, tmpl feature.Template, words string) [][]string {
	t.Helper()
	x, err := tmpl.Compile("emb", cols)
	if err != nil {
		t.Fatal(err)
	}
	s := sentence(words)
	r := &recorder{tokens: make([][]string, s.Len())}
	if err := x.Extract(s, r); err != nil {
		t.Fatal(err)
	}
	return r.tokens
}

func check(t *testing.T, got, want [][]string) {
	t.Helper()
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("token %d: %q, want %q", i, got[i], want[i])
		}
	}
}

func TestValues(t *testing.T) {
	cases := []struct {
		name, body, words string
		want              [][]string
	}{
		{"offset 0, zeros left out, unknown word", `path = "` + tiny + `"`, "the cat xyzzy",
			[][]string{{"emb[0]:0:0.5", "emb[0]:2:-0.25"}, {"emb[0]:0:4", "emb[0]:1:4.5", "emb[0]:2:4"}, nil}},
		{"offsets at the sentence edges", "path = \"" + tiny + "\"\noffsets = [-1, 1]", "a sat",
			[][]string{{"emb[1]:0:0.5", "emb[1]:1:0.25"}, {"emb[-1]:1:0.25", "emb[-1]:2:-0.25"}}},
		{"scale", "path = \"" + tiny + "\"\nscale = 2", "sat",
			[][]string{{"emb[0]:0:1", "emb[0]:1:0.5"}}},
		{"no lowercase fallback", "path = \"" + tiny + "\"", "The Paris APPLE",
			[][]string{nil, nil, nil}},
		{"lowercase fallback", "path = \"" + tiny + "\"\nlowercase = true", "The Paris APPLE Apple",
			[][]string{
				{"emb[0]:0:0.5", "emb[0]:2:-0.25"},               // the
				{"emb[0]:0:-4.5", "emb[0]:1:-4", "emb[0]:2:0.5"}, // paris
				{"emb[0]:0:4", "emb[0]:1:4", "emb[0]:2:4.5"},     // apple, the lowercase form of Apple
				{"emb[0]:0:4", "emb[0]:1:4", "emb[0]:2:4.5"},     // Apple itself
			}},
		{"max_words", "path = \"" + tiny + "\"\nmax_words = 2", "the cat dog",
			[][]string{{"emb[0]:0:0.5", "emb[0]:2:-0.25"}, {"emb[0]:0:4", "emb[0]:1:4.5", "emb[0]:2:4"}, nil}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			check(t, extract(t, tc.body, tc.words), tc.want)
		})
	}
}

// TestScaleStd: scale = "std" gives the kept values a standard deviation
// of 0.1.
func TestScaleStd(t *testing.T) {
	tmpl, diags, _ := decodeBlock(t, "path = \""+tiny+"\"\nscale = \"std\"", ".")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got := stdDev(tmpl.tab.vectors) * tmpl.cfg.Factor; got < 0.1-1e-9 || got > 0.1+1e-9 {
		t.Fatalf("scaled std %g, want 0.1", got)
	}
	got := run(t, tmpl, "cat")
	if want := fmt.Sprintf("emb[0]:0:%g", 4*tmpl.cfg.Factor); got[0][0] != want {
		t.Fatalf("%q, want %q first", got[0], want)
	}
}

func TestClasses(t *testing.T) {
	body := "path = \"" + tiny + "\"\nmode = \"classes\"\nk = 3\noffsets = [0, 1]\nlowercase = true"
	got := extract(t, body, "the cat town xyzzy Paris")
	// Classes are numbered by their first word: the 0, cat 1, city 2.
	check(t, got, [][]string{
		{"emb[0]:3=0", "emb[1]:3=1"},
		{"emb[0]:3=1", "emb[1]:3=2"},
		{"emb[0]:3=2"}, // xyzzy has no vector
		{"emb[1]:3=2"},
		{"emb[0]:3=2"},
	})
	// Several k: one attribute per k, each its own clustering.
	got = extract(t, "path = \""+tiny+"\"\nmode = \"classes\"\nk = [2, 9]", "the sat dog")
	if len(got[0]) != 2 || !strings.HasPrefix(got[0][0], "emb[0]:2=") || got[0][1] != "emb[0]:9=0" {
		t.Fatalf("the: %q", got[0])
	}
	if got[1][0] != got[0][0] || got[1][1] != "emb[0]:9=7" || got[2][1] != "emb[0]:9=2" {
		t.Fatalf("sat, dog: %q %q (k = 9 gives every word its own class, in file order)", got[1], got[2])
	}
}

// TestDefaultColumn: without column, the corpus's word column.
func TestDefaultColumn(t *testing.T) {
	tmpl, diags, _ := decodeBlock(t, `path = "`+tiny+`"`, ".")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	x, err := tmpl.Compile("emb", feature.Columns{Names: []string{"pos", "form", "label"}, Label: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := x.(feature.ColumnReader).ReadColumns(); !slices.Equal(got, []int{1}) {
		t.Fatalf("reads %v, want the form column [1]", got)
	}
	tmpl, _, _ = decodeBlock(t, "path = \""+tiny+"\"\ncolumn = \"label\"", ".")
	if _, err := tmpl.Compile("emb", cols); err == nil || !strings.Contains(err.Error(), "label column") {
		t.Fatalf("label column: %v", err)
	}
}

// TestModelRoundTrip: a template re-created from the settings a model
// records extracts the same attributes without the file.
func TestModelRoundTrip(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(tiny)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "vectors.txt")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	reg := feature.NewRegistry()
	reg.RegisterTemplate("embedding", New)
	const words = "the cat dog Apple APPLE city Paris xyzzy sat a town"
	for _, body := range []string{
		"path = \"vectors.txt\"\noffsets = [-1, 0, 2]\nlowercase = true\nscale = \"std\"",
		"path = \"vectors.txt\"\nmode = \"classes\"\nk = [2, 3]\noffsets = [-1, 0]\nlowercase = true",
	} {
		tmpl, diags, _ := decodeBlock(t, body, dir)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		want := run(t, tmpl, words)
		cfg, err := json.Marshal(tmpl.Config())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path, path+".gone"); err != nil {
			t.Fatal(err)
		}
		loaded, err := reg.Instantiate(feature.TemplateSpec{Type: "embedding", Name: "emb", Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		got := run(t, loaded, words)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s:\nfrom the model %q\nfrom the file  %q", body, got, want)
		}
		again, _ := json.Marshal(loaded.Config())
		if string(again) != string(cfg) {
			t.Errorf("the settings changed in the round trip")
		}
		if err := os.Rename(path+".gone", path); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDeterministic: reading the file twice records the same settings.
func TestDeterministic(t *testing.T) {
	body := "path = \"" + tiny + "\"\nmode = \"classes\"\nk = [2, 4]\nseed = 7"
	var first []byte
	for range 3 {
		tmpl, diags, _ := decodeBlock(t, body, ".")
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		cfg, _ := json.Marshal(tmpl.Config())
		if first == nil {
			first = cfg
		} else if string(cfg) != string(first) {
			t.Fatalf("settings differ between two reads:\n%s\n%s", first, cfg)
		}
	}
}

func TestManifestConfig(t *testing.T) {
	tmpl, diags, _ := decodeBlock(t, "path = \""+tiny+"\"\nmode = \"classes\"\nk = 3", ".")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	b, err := json.Marshal(tmpl.ManifestConfig())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"words", "vectors", "classes"} {
		if _, ok := m[key]; ok {
			t.Errorf("manifest settings hold %q", key)
		}
	}
	info, _ := os.Stat(tiny)
	if m["word_count"] != 9.0 || m["dim"] != 3.0 || m["bytes"] != float64(info.Size()) || len(m["sha256"].(string)) != 64 ||
		fmt.Sprint(m["k"]) != "[3]" {
		t.Errorf("manifest settings %s", b)
	}
}

// TestBadInput: every problem is a diagnostic at the setting it concerns;
// the file's problems quote embeddings' FILE:LINE message.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	ragged := write("ragged.txt", "2 3\ncat 1 2 3\ndog 1 2\n")
	notNumber := write("nan.txt", "cat 1 2\ndog 1 x\n")
	cases := []struct {
		name, body string
		at         string // the source text the diagnostic points at
		want       []string
	}{
		{"missing file", `path = "nope.txt"`, `"nope.txt"`, []string{"Cannot read the vectors file", "nope.txt", "relative to the spec"}},
		{"wrong number of values", `path = "` + ragged + `"`, `"` + ragged + `"`, []string{"Malformed vectors file", "ragged.txt:3: row has 2 values, want 3"}},
		{"not a number", "path = \"" + notNumber + "\"\nformat = \"glove\"", `"` + notNumber + `"`, []string{"Malformed vectors file", "nan.txt:2:"}},
		{"format", "path = \"" + ragged + "\"\nformat = \"bin\"", `"bin"`, []string{"Invalid format"}},
		{"mode", "path = \"x\"\nmode = \"dims\"", `"dims"`, []string{"Invalid mode", `"values" or "classes"`}},
		{"k too small", "path = \"x\"\nmode = \"classes\"\nk = [64, 1]", `[64, 1]`, []string{"k must be between 2 and"}},
		{"k decreasing", "path = \"x\"\nmode = \"classes\"\nk = [64, 32]", `[64, 32]`, []string{"k must increase"}},
		{"k not a number", "path = \"x\"\nmode = \"classes\"\nk = [\"many\"]", `["many"]`, []string{"k must be a whole number"}},
		{"k fractional", "path = \"x\"\nmode = \"classes\"\nk = 2.5", `2.5`, []string{"k must be whole numbers"}},
		{"k for values", "path = \"x\"\nk = 4", `4`, []string{"k is a setting of mode"}},
		{"scale", "path = \"x\"\nscale = \"big\"", `"big"`, []string{`scale must be "std" or a positive number`}},
		{"negative scale", "path = \"x\"\nscale = -1", `-1`, []string{`scale must be "std" or a positive number`}},
		{"scale for classes", "path = \"x\"\nmode = \"classes\"\nscale = 2", `2`, []string{"scale is a setting of mode"}},
		{"max_words", "path = \"x\"\nmax_words = -3", `-3`, []string{"max_words must be between"}},
		{"sha256 form", "path = \"x\"\nsha256 = \"abc\"", `"abc"`, []string{"64 hexadecimal digits"}},
		{"k above the words", "path = \"" + mustAbs(t, tiny) + "\"\nmode = \"classes\"\nk = [4, 10]",
			`[4, 10]`, []string{"More classes than words", "k = 10, but only 9 words"}},
		{"sha256 differs", "path = \"" + mustAbs(t, tiny) + "\"\nsha256 = \"" + strings.Repeat("0", 64) + "\"",
			`"` + strings.Repeat("0", 64) + `"`, []string{"Vectors file differs"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, diags, src := decodeBlock(t, tc.body, dir)
			if !diags.HasErrors() {
				t.Fatalf("no error")
			}
			d := diags[0]
			text := d.Summary + ": " + d.Detail
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("diagnostic %q does not say %q", text, w)
				}
			}
			if tc.at != "" {
				if d.Subject == nil {
					t.Fatalf("diagnostic %q has no subject", text)
				}
				if got := string(src[d.Subject.Start.Byte:d.Subject.End.Byte]); got != tc.at {
					t.Errorf("diagnostic %q points at %q, want %q", text, got, tc.at)
				}
			}
		})
	}
}

func mustAbs(t *testing.T, path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestCorruptSettings: a model whose recorded table does not hold
// together is an error, not a panic.
func TestCorruptSettings(t *testing.T) {
	tmpl, diags, _ := decodeBlock(t, "path = \""+tiny+"\"\nmode = \"classes\"\nk = [2, 3]", ".")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	good := tmpl.cfg
	for _, c := range []struct {
		name string
		edit func(c *Config)
	}{
		{"dim", func(c *Config) { c.Dim = 0 }},
		{"repeated word", func(c *Config) { c.Words = "the\nthe\ncat" }},
		{"class list missing", func(c *Config) { c.Classes = c.Classes[:1] }},
		{"class list short", func(c *Config) { c.Classes[1] = "AAAA" }},
		{"class out of range", func(c *Config) { c.Classes[0] = strings.Repeat("/", 24) }},
		{"bad base64", func(c *Config) { c.Classes[0] = "!!" }},
		{"vectors short", func(c *Config) { c.Mode, c.K, c.Factor, c.Vectors = "values", nil, 1, "AAAA" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := good
			cfg.Classes = slices.Clone(good.Classes)
			c.edit(&cfg)
			bad := &Template{cfg: cfg}
			if _, err := bad.Compile("emb", cols); err == nil || !strings.Contains(err.Error(), "corrupted settings") {
				t.Fatalf("error %v", err)
			}
		})
	}
}

// TestClassifyBeyondFit: words after the ones k-means is fitted on get
// their nearest center's class.
func TestClassifyBeyondFit(t *testing.T) {
	data := gaussian(400, 4, 5, 11)
	const fit = 250
	got := classify(data, 4, []int{5}, 1, 50, fit)[0]
	res := kmeans(data[:fit*4], 4, kmeansOptions{K: 5, Seed: 1, MaxIter: 50})
	all := append(slices.Clone(res.Assign), make([]int32, 400-fit)...)
	for i := fit; i < 400; i++ {
		best, bestD := 0, -1.0
		for j := 0; j < 5; j++ {
			if d := dist64(data[i*4:(i+1)*4], res.Centers[j*4:(j+1)*4]); bestD < 0 || d < bestD {
				best, bestD = j, d
			}
		}
		all[i] = int32(best)
	}
	if want := renumber(all, 5); !slices.Equal(got, want) {
		t.Fatalf("classes differ from k-means on the first %d and nearest centers after", fit)
	}
}

// TestExtractAllocatesNothing: after the first sentence, extraction
// allocates nothing.
func TestExtractAllocatesNothing(t *testing.T) {
	s := sentence("The cat sat on the mat in Paris xyzzy")
	for _, body := range []string{
		"path = \"" + tiny + "\"\noffsets = [-1, 0, 1]\nlowercase = true",
		"path = \"" + tiny + "\"\nmode = \"classes\"\nk = [2, 3]\noffsets = [-1, 0, 1]\nlowercase = true",
	} {
		tmpl, diags, _ := decodeBlock(t, body, ".")
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		x, err := tmpl.Compile("emb", cols)
		if err != nil {
			t.Fatal(err)
		}
		x.Extract(s, discard{})
		if n := testing.AllocsPerRun(50, func() { x.Extract(s, discard{}) }); n != 0 {
			t.Errorf("%s: %v allocations per sentence", body, n)
		}
	}
}
