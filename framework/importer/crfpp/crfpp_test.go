package crfpp

import (
	"bufio"
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/spec"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it)\n--- got ---\n%s--- want ---\n%s", path, got, want)
	}
}

func parseFile(t *testing.T, path string) *File {
	t.Helper()
	src, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f, err := Parse(path, src)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// dataDir holds the empty data files the golden specs name, so the specs
// decode (a spec's corpus files must exist).
func dataDir(t testing.TB) string {
	dir := t.TempDir()
	for _, name := range []string{"train.data", "test.data", "dev.data"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// decode decodes a written spec as `trellis validate --no-data` would.
func decode(t testing.TB, dir string, src []byte, vars map[string]string) *spec.Spec {
	t.Helper()
	templates, learners := builtin.Registries()
	s, diags := spec.Decode(filepath.Join(dir, "spec.hcl"), src, vars, spec.Registries{Templates: templates, Learners: learners})
	if diags.HasErrors() {
		t.Fatalf("the written spec does not decode: %v\n%s", diags, src)
	}
	return s
}

var chunkColumns = []string{"word", "pos", "chunk"}

func TestWriteSpecGolden(t *testing.T) {
	cases := []struct {
		name     string
		opts     Options
		warnings []string
		vars     map[string]string
	}{
		{"chunking", Options{Columns: chunkColumns, Train: "train.data", Test: "test.data", Scheme: "iob2", C: 4, Eta: 0.0001,
			Command: "trellis import crfpp chunking.template --columns word,pos,chunk --train train.data --test test.data --scheme iob2 -c 4"}, nil, nil},
		{"edge", Options{Columns: chunkColumns, Train: "train.data", Test: "test.data", Dev: "dev.data", Name: "edge", C: 1, Eta: 0.0001}, []string{
			`edge.template:5: the ID "U" is also on line 4`,
			`edge.template:9: the ID "U03" is also on line 8`,
			`edge.template:12: a second B template`,
		}, nil},
		{"bigram", Options{Columns: chunkColumns, Train: "train.data", Test: "test.data", Scheme: "iob2", C: 1, Eta: 0.0001}, nil, nil},
		{"l1", Options{Columns: []string{"w", "y"}, Algorithm: "CRF-L1", C: 2, Freq: 3, MaxIter: 50, Eta: 0.001, Scheme: "bioes"},
			[]string{`l1.template:4: the ID "U00" is also on line 2`}, map[string]string{"train": "train.data", "test": "test.data"}},
	}
	dir := dataDir(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := parseFile(t, filepath.Join("testdata", c.name+".template"))
			var out bytes.Buffer
			warnings, err := WriteSpec(&out, f, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", c.name+".hcl.golden"), out.String())
			decode(t, dir, out.Bytes(), c.vars)
			if len(warnings) != len(c.warnings) {
				t.Fatalf("warnings %v, want %d", warnings, len(c.warnings))
			}
			for i, w := range warnings {
				if got := strings.TrimPrefix(w.Error(), "testdata/"); !strings.HasPrefix(got, c.warnings[i]) {
					t.Errorf("warning %d = %q, want %q…", i, got, c.warnings[i])
				}
			}
		})
	}
}

// TestErrorsGolden checks the messages for templates CRF++ would refuse
// (Parse) and for those trellis cannot import (WriteSpec).
func TestErrorsGolden(t *testing.T) {
	var got strings.Builder
	src, err := os.ReadFile("testdata/errors.template")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse("errors.template", bytes.NewReader(src))
	errs, ok := err.(Errors)
	if !ok {
		t.Fatalf("Parse = %v, want Errors", err)
	}
	got.WriteString(err.Error() + "\n")
	if n := len(errs); n != strings.Count(string(src), "\n")-1 {
		t.Errorf("%d errors, want one per line but the first", n)
	}
	f := parseFile(t, "testdata/unimportable.template")
	f.Name = "unimportable.template"
	var out bytes.Buffer
	_, err = WriteSpec(&out, f, Options{Columns: chunkColumns, C: 1, Eta: 1e-4})
	if _, ok := err.(Errors); !ok {
		t.Fatalf("WriteSpec = %v, want Errors", err)
	}
	if out.Len() > 0 {
		t.Errorf("WriteSpec wrote %q before failing", out.String())
	}
	got.WriteString(err.Error() + "\n")
	golden(t, "testdata/errors.golden", got.String())
}

func TestBadOptions(t *testing.T) {
	f := &File{Name: "t", Templates: []*Template{{Line: 1, Kind: Unigram, Text: "U", Literals: []string{"U"}}}}
	cases := []struct {
		name string
		opts Options
		want string
	}{
		{"one column", Options{Columns: []string{"w"}}, "at least two"},
		{"repeated column", Options{Columns: []string{"w", "w"}}, "distinct"},
		{"MIRA", Options{Columns: chunkColumns, Algorithm: "MIRA"}, "no MIRA learner"},
		{"unknown algorithm", Options{Columns: chunkColumns, Algorithm: "SVM"}, "want CRF"},
		{"zero C", Options{Columns: chunkColumns, Eta: 1e-4}, "-c 0: the cost must be a positive number"},
		{"NaN C", Options{Columns: chunkColumns, C: math.NaN(), Eta: 1e-4}, "positive"},
		{"zero eta", Options{Columns: chunkColumns, C: 1}, "-e 0: eta must be a positive number"},
		{"negative freq", Options{Columns: chunkColumns, C: 1, Eta: 1e-4, Freq: -1}, ">= 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			_, err := WriteSpec(&out, f, c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
			if out.Len() > 0 {
				t.Errorf("wrote %q", out.String())
			}
		})
	}
	var out bytes.Buffer
	_, err := WriteSpec(&out, &File{Name: "b", Templates: []*Template{{Line: 1, Kind: Bigram, Text: "B", Literals: []string{"B"}}}}, Options{Columns: chunkColumns, C: 1, Eta: 1e-4})
	if err == nil || !strings.Contains(err.Error(), "no U template") {
		t.Errorf("a template of transitions only: %v", err)
	}
}

func TestParseLine(t *testing.T) {
	f, err := Parse("t", strings.NewReader("# c\r\n\r\nU05:%x[-1,0]/%x[0,1]!\r\nB"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Templates) != 2 {
		t.Fatalf("%d templates, want 2", len(f.Templates))
	}
	u := f.Templates[0]
	if u.Line != 3 || u.Kind != Unigram || u.Text != "U05:%x[-1,0]/%x[0,1]!" || u.ID() != "U05" ||
		strings.Join(u.Literals, "|") != "U05:|/|!" ||
		u.Macros[0] != (Macro{Row: -1, Column: 0, Col: 5}) || u.Macros[1] != (Macro{Row: 0, Column: 1, Col: 14}) {
		t.Errorf("U line parsed as %+v", u)
	}
	if b := f.Templates[1]; b.Kind != Bigram || b.ID() != "" || len(b.Macros) != 0 {
		t.Errorf("B line parsed as %+v", b)
	}
}

// expandCRFPP is CRF++'s applyRule and getIndex (feature.cpp), transcribed
// independently of Parse: the feature string CRF++ makes from template
// line tmpl at token pos of sent (rows of columns, the answer excluded).
func expandCRFPP(t *testing.T, tmpl string, pos int, sent [][]string) string {
	t.Helper()
	bos := []string{"_B-1", "_B-2", "_B-3", "_B-4", "_B-5", "_B-6", "_B-7", "_B-8"}
	eos := []string{"_B+1", "_B+2", "_B+3", "_B+4", "_B+5", "_B+6", "_B+7", "_B+8"}
	var os strings.Builder
	for p := 0; p < len(tmpl); p++ {
		if tmpl[p] != '%' {
			os.WriteByte(tmpl[p])
			continue
		}
		p++
		if tmpl[p] != 'x' || tmpl[p+1] != '[' {
			t.Fatalf("%q: not a template CRF++ accepts", tmpl)
		}
		p += 2
		neg := 1
		if tmpl[p] == '-' {
			neg = -1
			p++
		}
		row, col := 0, 0
		for ; tmpl[p] != ','; p++ {
			row = 10*row + int(tmpl[p]-'0')
		}
		for p++; tmpl[p] != ']'; p++ {
			col = 10*col + int(tmpl[p]-'0')
		}
		idx := pos + neg*row
		switch {
		case idx < 0:
			os.WriteString(bos[-idx-1])
		case idx >= len(sent):
			os.WriteString(eos[idx-len(sent)])
		default:
			os.WriteString(sent[idx][col])
		}
	}
	return os.String()
}

type recorder struct{ keys [][]string }

func (r *recorder) Add(i int, key []byte, _ float64) { r.keys[i] = append(r.keys[i], string(key)) }

// TestSameFeaturesAsCRFPP checks the claim the import rests on: at every
// token, each emission block of the written spec emits exactly one
// attribute, and it is CRF++'s feature string for that line with the ID
// and its ':' replaced by the block's name and '=' (the whole string after
// name and '=' when the line has no ID), padding included; a line without
// macros, one constant feature, is a bias block.
func TestSameFeaturesAsCRFPP(t *testing.T) {
	sents := [][][]string{
		{{"Confidence", "NN"}},
		{{"He", "PRP"}, {"reckons", "VBZ"}, {"the", "DT"}, {"current", "JJ"}, {"account", "NN"}, {"deficit", "NN"},
			{"will", "MD"}, {"narrow", "VB"}, {"to", "TO"}, {"only", "RB"}, {"#", "#"}, {"1.8", "CD"}, {"billion", "CD"}},
		{{"{x}", "%{"}, {"${y}", "\\"}, {"\"", "é"}},
	}
	dir := dataDir(t)
	for _, name := range []string{"chunking", "edge"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name+".template")
			f := parseFile(t, path)
			var out bytes.Buffer
			if _, err := WriteSpec(&out, f, Options{Columns: chunkColumns, Train: "train.data", Test: "test.data", C: 1, Eta: 0.0001}); err != nil {
				t.Fatal(err)
			}
			s := decode(t, dir, out.Bytes(), nil)
			lines := unigramLines(t, path)
			var emissions []*spec.TemplateInstance
			for _, ti := range s.Features.Templates {
				if ti.Type == "emission" || ti.Type == "bias" {
					emissions = append(emissions, ti)
				}
			}
			if len(emissions) != len(lines) {
				t.Fatalf("%d emission blocks for %d U lines", len(emissions), len(lines))
			}
			cols := feature.Columns{Names: chunkColumns, Label: 2}
			for k, ti := range emissions {
				x, err := ti.Template.Compile(ti.Name, cols)
				if err != nil {
					t.Fatal(err)
				}
				id := f.Templates[k].ID()
				for _, sent := range sents {
					cs := &corpus.Sentence{}
					for _, tok := range sent {
						cs.Tokens = append(cs.Tokens, append(append([]string(nil), tok...), "O"))
					}
					r := &recorder{keys: make([][]string, len(sent))}
					if err := x.Extract(cs, r); err != nil {
						t.Fatal(err)
					}
					for i := range sent {
						crfpp := expandCRFPP(t, lines[k], i, sent)
						want := ti.Name + "=" + crfpp
						if id != "" {
							want = ti.Name + "=" + strings.TrimPrefix(crfpp, id+":")
						}
						if ti.Type == "bias" {
							want = ti.Name // a constant feature
						}
						if len(r.keys[i]) != 1 || r.keys[i][0] != want {
							t.Errorf("line %q, token %d of %q: trellis %q, want %q (CRF++ %q)", lines[k], i, sent, r.keys[i], want, crfpp)
						}
					}
				}
			}
		})
	}
}

// unigramLines reads the U lines of a template file as CRF++ does.
func unigramLines(t *testing.T, path string) []string {
	t.Helper()
	src, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var lines []string
	sc := bufio.NewScanner(src)
	for sc.Scan() {
		if l := sc.Text(); l != "" && l[0] == 'U' {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestCommandLineBreak: a line break in the recorded command stays inside
// the comment.
func TestCommandLineBreak(t *testing.T) {
	f := parseFile(t, "testdata/l1.template")
	var out bytes.Buffer
	if _, err := WriteSpec(&out, f, Options{Columns: []string{"w", "y"}, Train: "train.data", Test: "test.data", C: 1, Eta: 1e-4,
		Command: "trellis import crfpp 'a\nb\r'"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `#   trellis import crfpp 'a\nb\r'`+"\n") {
		t.Errorf("command line not escaped:\n%s", out.String())
	}
	decode(t, dataDir(t), out.Bytes(), nil)
}
