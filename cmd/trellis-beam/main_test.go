package main

// This file holds the tests of corpus input against trellis tag and
// trellis eval, the errors, and the helpers every test uses: the built
// commands, training, and comparing shards as a multiset.

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The tests build the real commands once: trellis (from the repository's
// own module) to train models and give the reference output, and
// trellis-beam, which they run on Beam's embedded prism runner.
var bin struct {
	dir, trellis, beam string
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "trellis-beam-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin.dir = dir
	bin.trellis = filepath.Join(dir, "trellis")
	bin.beam = filepath.Join(dir, "trellis-beam")
	code := 1
	if err := buildAll(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

func buildAll() error {
	for _, c := range [][]string{
		{"go", "build", "-C", "../..", "-o", bin.trellis, "./cmd/trellis"},
		{"go", "build", "-o", bin.beam, "."},
	} {
		out, err := exec.Command(c[0], c[1:]...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %v\n%s", strings.Join(c, " "), err, out)
		}
	}
	return nil
}

// command runs a built binary and returns its exit code and output.
func command(t *testing.T, name string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if strings.Contains(errb.String(), "panic:") {
		t.Errorf("%s %v panicked:\n%s", name, args, errb.String())
	}
	return code, out.String(), errb.String()
}

func mustRun(t *testing.T, name string, args ...string) string {
	t.Helper()
	code, out, errs := command(t, name, args...)
	if code != 0 {
		t.Fatalf("%s %s: exit %d\n%s", filepath.Base(name), strings.Join(args, " "), code, errs)
	}
	return out
}

// train runs `trellis run SPEC --learner L` and returns the model's path.
func train(t *testing.T, spec, learner string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "run")
	mustRun(t, bin.trellis, "run", spec, "--learner", learner, "--out", out)
	return filepath.Join(out, "models", learner+".model")
}

// sentences splits tagged output into its sentences, sorted: the
// multiset. conll and conllu sentences end in a blank line; the chars and
// slash formats write one line per sentence.
func sentences(text, end string) []string {
	var out []string
	for b := range strings.SplitAfterSeq(text, end) {
		if b != "" {
			out = append(out, b)
		}
	}
	slices.Sort(out)
	return out
}

// shards reads PREFIX-*-of-NNNNN, checking that all n are there.
func shards(t *testing.T, prefix string, n int) string {
	t.Helper()
	var all strings.Builder
	for k := range n {
		b, err := os.ReadFile(fmt.Sprintf("%s-%05d-of-%05d", prefix, k, n))
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	extra, _ := filepath.Glob(prefix + "-*")
	if len(extra) != n {
		t.Errorf("%d files match %s-*, want %d: %v", len(extra), prefix, n, extra)
	}
	return all.String()
}

func sameSentences(t *testing.T, got, want string) {
	t.Helper()
	sameUnits(t, got, want, "\n\n")
}

func sameUnits(t *testing.T, got, want, end string) {
	t.Helper()
	g, w := sentences(got, end), sentences(want, end)
	if len(w) == 0 {
		t.Fatal("the reference output has no sentences")
	}
	if !slices.Equal(g, w) {
		i := 0
		for i < len(g) && i < len(w) && g[i] == w[i] {
			i++
		}
		t.Fatalf("trellis-beam wrote %d sentences, trellis tag %d; first difference at sorted sentence %d:\n--- beam ---\n%s--- tag ---\n%s",
			len(g), len(w), i, at(g, i), at(w, i))
	}
}

func at(xs []string, i int) string {
	if i < len(xs) {
		return xs[i]
	}
	return "(none)\n"
}

// TestTagAndEvalMatchTrellis runs trellis-beam on prism and checks that its
// shards hold exactly `trellis tag`'s sentences (as a multiset: the
// pipeline does not keep the input's order) and that --eval writes what
// `trellis eval` and `trellis eval --json` print, byte for byte.
func TestTagAndEvalMatchTrellis(t *testing.T) {
	cases := []struct {
		name, spec, learner, input string
		shards                     int
	}{
		{"conll-iob2-hmm", "../trellis/testdata/chunk.hcl", "hmm", "../trellis/testdata/chunk-test.txt", 3},
		{"conllu-perceptron", "../../specs/quickstart.hcl", "perceptron", "../../specs/data/ud-ewt-sample/test.conllu", 4},
		{"conll-iob2-bilstm-crf", "../trellis/testdata/chunk-neural.hcl", "bilstm_crf", "../trellis/testdata/chunk-test.txt", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := train(t, c.spec, c.learner)
			prefix := filepath.Join(t.TempDir(), "tagged")
			out := mustRun(t, bin.beam, "--model", m, "--input", c.input, "--output", prefix,
				"--shards", fmt.Sprint(c.shards), "--eval")
			sameSentences(t, shards(t, prefix, c.shards), mustRun(t, bin.trellis, "tag", "--model", m, c.input))
			for suffix, args := range map[string][]string{
				evalTextSuffix: {"eval", "--model", m, c.input},
				evalJSONSuffix: {"eval", "--json", "--model", m, c.input},
			} {
				got, err := os.ReadFile(prefix + suffix)
				if err != nil {
					t.Fatal(err)
				}
				if want := mustRun(t, bin.trellis, args...); string(got) != want {
					t.Errorf("%s differs from trellis %s\n--- beam ---\n%s--- trellis ---\n%s", suffix, strings.Join(args, " "), got, want)
				}
			}
			if !strings.Contains(out, "tagged ") {
				t.Errorf("no summary on stdout: %q", out)
			}
		})
	}
}

// TestGlobUnlabelled tags unlabelled text spread over several files (one
// gzipped), with CoNLL -DOCSTART- lines, matched by a glob; the reference is `trellis
// tag` of the files concatenated. The output goes to a folder that does not
// exist yet.
func TestGlobUnlabelled(t *testing.T) {
	m := train(t, "../trellis/testdata/chunk.hcl", "hmm")
	raw, err := os.ReadFile("../trellis/testdata/chunk-test.txt")
	if err != nil {
		t.Fatal(err)
	}
	// Drop the label column: text as a user has it.
	var lines []string
	for l := range strings.SplitSeq(strings.TrimRight(string(raw), "\n"), "\n") {
		if f := strings.Fields(l); len(f) == 3 {
			l = f[0] + " " + f[1]
		}
		lines = append(lines, l)
	}
	blocks := strings.Split(strings.Join(lines, "\n"), "\n\n")
	dir := t.TempDir()
	var all strings.Builder
	for k := range 3 {
		var part strings.Builder
		part.WriteString("-DOCSTART- -X-\n\n")
		for i := k; i < len(blocks); i += 3 {
			part.WriteString(blocks[i] + "\n\n")
		}
		name, content := fmt.Sprintf("part-%d.txt", k), []byte(part.String())
		if k == 2 { // gzip is read as such
			name, content = name+".gz", gzipped(t, content)
		}
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
		all.WriteString(part.String())
	}
	whole := filepath.Join(t.TempDir(), "all.txt")
	if err := os.WriteFile(whole, []byte(all.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(t.TempDir(), "new", "folder", "out") // made by the run
	mustRun(t, bin.beam, "--model", m, "--input", filepath.Join(dir, "part-*"), "--output", prefix, "--shards", "2")
	want := mustRun(t, bin.trellis, "tag", "--model", m, whole)
	if strings.Count(want, "-DOCSTART-") != 3 {
		t.Fatalf("the reference has %d -DOCSTART- lines, want 3", strings.Count(want, "-DOCSTART-"))
	}
	sameSentences(t, shards(t, prefix, 2), want)
	t.Logf("%d sentences", len(sentences(want, "\n\n")))
}

// TestErrors: usage mistakes exit 2, failures exit 1, with a clear
// message; an existing output is never overwritten.
func TestErrors(t *testing.T) {
	m := train(t, "../trellis/testdata/chunk.hcl", "hmm")
	dir := t.TempDir()
	existing := filepath.Join(dir, "old-00000-of-00001")
	if err := os.WriteFile(existing, []byte("the user's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("The DT B-NP\ncat NN I-NP\n\nwrong\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	input := "../trellis/testdata/chunk-test.txt"
	out := filepath.Join(dir, "new")
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no model", []string{"--input", input, "--output", out}, 2, "--model is required"},
		{"no input", []string{"--model", m, "--output", out}, 2, "--input is required"},
		{"no output", []string{"--model", m, "--input", input}, 2, "--output is required"},
		{"bad shards", []string{"--model", m, "--input", input, "--output", out, "--shards", "0"}, 2, "--shards"},
		{"argument", []string{"--model", m, "--input", input, "--output", out, "extra"}, 2, `unexpected argument "extra"`},
		{"existing output", []string{"--model", m, "--input", input, "--output", filepath.Join(dir, "old")}, 2, "already exists"},
		{"missing model", []string{"--model", filepath.Join(dir, "none.model"), "--input", input, "--output", out}, 1, "none.model"},
		{"no file matches", []string{"--model", m, "--input", filepath.Join(dir, "nothing-*.txt"), "--output", out}, 1, "nothing-*.txt"},
		{"data error", []string{"--model", m, "--input", bad, "--output", out}, 1, bad + ":4"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := command(t, bin.beam, c.args...)
			if code != c.code || !strings.Contains(stderr, c.msg) {
				t.Errorf("exit %d, want %d, and stderr should say %q:\n%s", code, c.code, c.msg, lastLines(stderr, 15))
			}
		})
	}
	if b, _ := os.ReadFile(existing); string(b) != "the user's\n" {
		t.Errorf("the existing output was changed: %q", b)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// dataDir is ../shared/data beside the repository, or TRELLIS_DATA_DIR.
func dataDir(t *testing.T) string {
	t.Helper()
	d := os.Getenv("TRELLIS_DATA_DIR")
	if d == "" {
		d = "../../../shared/data"
	}
	abs, err := filepath.Abs(d)
	if err != nil {
		t.Skipf("../shared/data not found: %v", err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		t.Skipf("../shared/data not found: no folder %s (set TRELLIS_DATA_DIR to use another place)", abs)
	}
	return abs
}

// head writes the first n lines of path to a temporary file.
func head(t *testing.T, path string, n int) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfterN(string(b), "\n", n+1)
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(out, []byte(strings.Join(lines[:min(n, len(lines))], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSegmentationPlainText tags plain unsegmented Chinese text, one
// sentence per line (the chars format), with a segmentation model trained
// on SIGHAN 2005 MSR, and scores the gold segmentation (word scores, BMES).
func TestSegmentationPlainText(t *testing.T) {
	data := dataDir(t)
	out := filepath.Join(t.TempDir(), "run")
	mustRun(t, bin.trellis, "run", "../../specs/msr-cws.hcl", "--var", "data_dir="+data, "--learner", "hmm", "--out", out)
	m := filepath.Join(out, "models", "hmm.model")
	plain := head(t, filepath.Join(data, "sighan2005-msr", "msr_test.utf8"), 300)
	prefix := filepath.Join(t.TempDir(), "seg")
	mustRun(t, bin.beam, "--model", m, "--input", plain, "--output", prefix, "--shards", "2")
	want := mustRun(t, bin.trellis, "tag", "--model", m, plain)
	if strings.Count(want, "\n") != 300 {
		t.Fatalf("trellis tag wrote %d lines for 300", strings.Count(want, "\n"))
	}
	sameUnits(t, shards(t, prefix, 2), want, "\n")

	gold := head(t, filepath.Join(data, "sighan2005-msr", "msr_test_gold.utf8"), 300)
	prefix = filepath.Join(t.TempDir(), "scored")
	mustRun(t, bin.beam, "--model", m, "--input", gold, "--output", prefix, "--shards", "2", "--eval")
	got, err := os.ReadFile(prefix + evalTextSuffix)
	if err != nil {
		t.Fatal(err)
	}
	if want := mustRun(t, bin.trellis, "eval", "--model", m, gold); string(got) != want || !strings.Contains(want, "words: precision") {
		t.Errorf("%s differs from trellis eval (or has no word scores)\n--- beam ---\n%s--- trellis ---\n%s", evalTextSuffix, got, want)
	}
}

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestRefusesDocumentFeatures: a model with document features (whose
// values depend on the other sentences of a document) is refused before
// the run (exit 1, the reason named), and nothing is written.
func TestRefusesDocumentFeatures(t *testing.T) {
	sample, err := filepath.Abs("../../specs/data/ud-ewt-sample")
	if err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(t.TempDir(), "doc.hcl")
	src := `experiment "doc" { seed = 1 }
corpus "train" {
  path   = "` + sample + `/train.conllu"
  format = "conllu"
}
corpus "test" {
  path   = "` + sample + `/test.conllu"
  format = "conllu"
}
labels {
  column = "upos"
  scheme = "none"
}
features {
  document "doc" {
    column = "form"
  }
  transition "trans" {}
}
learner "perceptron" {
  type   = "perceptron"
  epochs = 1
}
evaluation {
  train = "train"
  test  = "test"
}
`
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m := train(t, spec, "perceptron")
	prefix := filepath.Join(t.TempDir(), "out")
	code, _, stderr := command(t, bin.beam, "--model", m, "--input", sample+"/test.conllu", "--output", prefix)
	if code != 1 || !strings.Contains(stderr, "document features") {
		t.Errorf("exit %d, want 1 with a message about document features:\n%s", code, lastLines(stderr, 10))
	}
	if found, _ := filepath.Glob(prefix + "*"); len(found) > 0 {
		t.Errorf("files written: %v", found)
	}
}
