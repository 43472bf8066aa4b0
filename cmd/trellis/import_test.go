package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const crfppTemplates = "../../framework/importer/crfpp/testdata/"

// TestImportCRFPP imports CRF++'s chunking template, validates the spec
// and trains it end to end on the small chunking sample: what a CRF++ user
// types.
func TestImportCRFPP(t *testing.T) {
	dir := t.TempDir()
	out, stderr := mustRun(t, "", "import", "crfpp", crfppTemplates+"chunking.template", "--columns", "word,pos,chunk",
		"--train", "testdata/chunk-train.txt", "--test", "testdata/chunk-test.txt", "--scheme", "iob2", "-c", "4")
	if stderr != "" {
		t.Errorf("stderr: %s", stderr)
	}
	for _, want := range []string{`emission "U05" {`, `format = "{word[-1]}/{word[0]}"`, `transition "B" {}`,
		"c2       = 0.125 # 1/(2C)", `features = "all"`, "so c2 = 1/(2C) = 0.125"} {
		if !strings.Contains(out, want) {
			t.Errorf("the spec lacks %q:\n%s", want, out)
		}
	}
	abs, _ := filepath.Abs("testdata/chunk-train.txt")
	if !strings.Contains(out, quoteHCL(abs)) {
		t.Errorf("the train path is not absolute (%s):\n%s", abs, out)
	}
	spec := filepath.Join(dir, "chunking.hcl")
	if err := os.WriteFile(spec, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _ := mustRun(t, "", "validate", spec)
	if !strings.Contains(stdout, "ok (experiment \"crfpp\"") {
		t.Errorf("validate: %s", stdout)
	}
	run := filepath.Join(dir, "run")
	mustRun(t, "", "run", spec, "--out", run)
	var metrics map[string]any
	if err := json.Unmarshal(readFile(t, filepath.Join(run, "metrics.json")), &metrics); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(run, "models", "crf.model")); err != nil {
		t.Errorf("no model: %v", err)
	}
	// The imported spec's words come from U02 (format "{word[0]}"), for
	// eval's IV/OOV figures as for the run's.
	res := evalVocab(t, filepath.Join(run, "models", "crf.model"), "testdata/chunk-test.txt")
	if res.Vocabulary == nil || res.Vocabulary.Template != "U02" || res.OOVTokens == nil {
		t.Errorf("eval's vocabulary %+v, want template U02 and IV/OOV figures", res.Vocabulary)
	}
}

// TestImportCRFPPBigram imports CRF++ B templates with %x macros
// (input-conditioned transitions) and trains the spec end to end: the
// crf model has pair features and tags as `trellis tag` does.
func TestImportCRFPPBigram(t *testing.T) {
	dir := t.TempDir()
	out, _ := mustRun(t, "", "import", "crfpp", crfppTemplates+"bigram.template", "--columns", "word,pos,chunk",
		"--train", "testdata/chunk-train.txt", "--test", "testdata/chunk-test.txt", "--scheme", "iob2", "-c", "4")
	for _, want := range []string{`emission "B02" {`, `labels = "bigram"`, `transition "B" {}`} {
		if !strings.Contains(out, want) {
			t.Errorf("the spec lacks %q:\n%s", want, out)
		}
	}
	spec := filepath.Join(dir, "bigram.hcl")
	if err := os.WriteFile(spec, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "run")
	mustRun(t, "", "run", spec, "--out", run)
	model := filepath.Join(run, "models", "crf.model")
	b := readFile(t, model)
	if !bytes.Contains(b, []byte(`"pair_features":`)) || !bytes.Contains(b, []byte(`"labels":"bigram"`)) {
		t.Fatalf("the model has no pair features")
	}
	tagged, _ := mustRun(t, "", "tag", "--model", model, "testdata/chunk-test.txt")
	pred := readFile(t, filepath.Join(run, "predictions", "crf.txt"))
	if tagged != string(pred) {
		t.Errorf("trellis tag's output differs from the run's predictions")
	}
}

func quoteHCL(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestImportErrors(t *testing.T) {
	chunking := crfppTemplates + "chunking.template"
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no format", []string{"import"}, "trellis import crfpp TEMPLATE"},
		{"other format", []string{"import", "wapiti", chunking}, "trellis import crfpp TEMPLATE"},
		{"no template", []string{"import", "crfpp", "--columns", "w,y"}, "one template file"},
		{"no columns", []string{"import", "crfpp", chunking}, "--columns"},
		{"missing template", []string{"import", "crfpp", "testdata/nope.template", "--columns", "w,y"}, "nope.template"},
		{"bad template", []string{"import", "crfpp", crfppTemplates + "errors.template", "--columns", "w,y"},
			"11 errors in the template:\n" + crfppTemplates + "errors.template:2:1: "},
		{"unimportable", []string{"import", "crfpp", crfppTemplates + "unimportable.template", "--columns", "word,pos,chunk"},
			"2 errors in the template:\n"},
		{"one error", []string{"import", "crfpp", "testdata/one-error.template", "--columns", "word,pos,chunk"},
			"trellis: 1 error in the template:\ntestdata/one-error.template:3:5: %x[0,5]: column 5 is not an input column: the data has 2 (word, pos), numbered from 0, and then the answer column \"chunk\"\n"},
		{"MIRA", []string{"import", "crfpp", chunking, "--columns", "word,pos,chunk", "-a", "MIRA"}, "no MIRA learner"},
		{"bad cost", []string{"import", "crfpp", chunking, "--columns", "word,pos,chunk", "-c", "0"}, "-c 0"},
		{"bad flag", []string{"import", "crfpp", chunking, "--columns", "word,pos,chunk", "--cost", "4"}, "cost"},
		{"braces in a column name", []string{"import", "crfpp", chunking, "--columns", "w{x},pos,chunk"}, `"w{x}": a column name cannot contain`},
		{"brackets in a column name", []string{"import", "crfpp", chunking, "--columns", "word,pos[1],chunk"}, `"pos[1]"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := trellis(t, "", tc.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr %q lacks %q", stderr, tc.stderr)
			}
		})
	}
}

// failingWriter fails every write, as stdout redirected to /dev/full does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestImportWriteFailure: a spec that cannot be written is a failure (exit
// 1), not a mistake on the command line.
func TestImportWriteFailure(t *testing.T) {
	var stderr bytes.Buffer
	code := realMain([]string{"import", "crfpp", crfppTemplates + "chunking.template", "--columns", "word,pos,chunk"},
		strings.NewReader(""), failingWriter{}, &stderr)
	if code != exitFailure || !strings.Contains(stderr.String(), "no space left on device") {
		t.Errorf("exit %d, stderr %q; want %d and the write error", code, stderr.String(), exitFailure)
	}
}

func TestCommandLine(t *testing.T) {
	got := commandLine([]string{"trellis", "import", "crfpp", "my template", "--name", "it's", "", "-c", "4"})
	want := `trellis import crfpp 'my template' --name 'it'\''s' '' -c 4`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestImportHelp(t *testing.T) {
	for _, args := range [][]string{{"import", "--help"}, {"import", "crfpp", "-h"}, {"import", "crfpp", "t", "--columns", "a,b", "--help"}} {
		stdout, stderr := mustRun(t, "", args...)
		if !strings.HasPrefix(stdout, "usage: trellis import crfpp TEMPLATE") || stderr != "" {
			t.Errorf("%v: stdout %q, stderr %q", args, stdout, stderr)
		}
	}
}

// TestImportCRFPPConll2000 imports CRF++'s chunking template for the
// public CoNLL-2000 corpus, as the README's walk-through does, and
// validates the spec against the data (training it takes minutes: see
// docs/results.md). It skips when the shared data is absent.
func TestImportCRFPPConll2000(t *testing.T) {
	data := os.Getenv("TRELLIS_DATA_DIR")
	if data == "" {
		data = filepath.Join("..", "..", "..", "shared", "data")
	}
	train, test := filepath.Join(data, "conll2000", "train.txt"), filepath.Join(data, "conll2000", "test.txt")
	for _, p := range []string{train, test} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("../shared/data not found (set TRELLIS_DATA_DIR): %v", err)
		}
	}
	out, _ := mustRun(t, "", "import", "crfpp", crfppTemplates+"chunking.template", "--columns", "word,pos,chunk",
		"--train", train, "--test", test, "--scheme", "iob2", "-c", "4")
	spec := filepath.Join(t.TempDir(), "chunking.hcl")
	if err := os.WriteFile(spec, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _ := mustRun(t, "", "validate", spec)
	for _, want := range []string{"8936 sentences, 211727 tokens, 22 labels", "2012 sentences, 47377 tokens", "20 templates"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("validate output lacks %q:\n%s", want, stdout)
		}
	}
}
