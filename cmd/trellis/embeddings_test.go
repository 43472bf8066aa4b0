// embeddings_test.go: `trellis embeddings` end to end: the file it
// writes (format, dimension, vocabulary, bytes), the input formats and
// normalisation, exit codes, no overwrite, and a neural run initialised
// from its vectors.

package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/embeddings"
	"github.com/trellis-nlp/trellis/framework/fileio"
	"github.com/trellis-nlp/trellis/framework/model"
)

// embeddingsText is a small pre-tokenized text: "rare" occurs once.
func embeddingsText() string {
	var b strings.Builder
	for i := range 300 {
		switch i % 3 {
		case 0:
			b.WriteString("the cat sat on the mat\n")
		case 1:
			b.WriteString("a dog sat on a log in 1996\n")
		default:
			b.WriteString("The cat and the dog 2001\n")
		}
	}
	b.WriteString("rare\n")
	return b.String()
}

func writeTemp(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// onlyFiles fails unless dir holds exactly names (no temporary file).
func onlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(names)
	if !slices.Equal(got, names) {
		t.Errorf("%s holds %q, want %q", dir, got, names)
	}
}

// TestEmbeddingsCommand: the file reads back at --dim with the words seen
// --min-count times, the same command writes the same bytes, an existing
// file is kept without --force, and every output format reads back.
func TestEmbeddingsCommand(t *testing.T) {
	dir := t.TempDir()
	text := writeTemp(t, dir, "text.txt", embeddingsText())
	out := filepath.Join(dir, "vec.txt")
	args := []string{"embeddings", text, "--dim", "12", "--epochs", "2", "--min-count", "2", "--out", out}
	_, stderr := mustRun(t, "", args...)
	if !strings.Contains(stderr, "vectors written") || !strings.Contains(stderr, `"sha256"`) {
		t.Errorf("log lacks the written file:\n%s", stderr)
	}
	v, err := embeddings.Read(out, embeddings.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Format != embeddings.Word2VecText || v.Dim != 12 {
		t.Errorf("format %v dim %d, want word2vec and 12", v.Format, v.Dim)
	}
	want := []string{"the", "a", "cat", "dog", "on", "sat", "1996", "2001", "The", "and", "in", "log", "mat"}
	if !slices.Equal(v.Words, want) {
		t.Errorf("words %q, want %q (by count; rare left out)", v.Words, want)
	}
	first := readFile(t, out)

	code, _, stderr := trellis(t, "", args...)
	if code != exitUsage || !strings.Contains(stderr, "already exists") {
		t.Errorf("existing --out: exit %d, stderr %s", code, stderr)
	}
	if !slices.Equal(readFile(t, out), first) {
		t.Error("the existing file was changed without --force")
	}
	mustRun(t, "", append(args, "--force")...)
	if !slices.Equal(readFile(t, out), first) {
		t.Error("the same command wrote other bytes")
	}
	onlyFiles(t, dir, "text.txt", "vec.txt")

	for _, f := range []string{"word2vec-binary", "glove", "fasttext"} {
		p := filepath.Join(dir, f)
		mustRun(t, "", "embeddings", "--format-out", f, "--dim", "3", "--epochs", "1", "--out", p, text)
		format, _ := embeddings.ParseFormat(f)
		v, err := embeddings.Read(p, embeddings.Options{Format: format})
		if err != nil || v.Dim != 3 || len(v.Words) != len(want) {
			t.Errorf("--format-out %s: %v", f, err)
		}
	}
}

// TestEmbeddingsFormats reads a CoNLL column, CoNLL-U FORMs, stdin and
// gzip, with the encoder's keys (lowercase, digits made 0).
func TestEmbeddingsFormats(t *testing.T) {
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("b a b\nb c\n"))
	zw.Close()
	gzText := writeTemp(t, dir, "text.txt.gz", gz.String())
	for _, c := range []struct {
		name  string
		args  []string
		stdin string
		want  []string
	}{
		{"conll", []string{"--format", "conll", "testdata/chunk-train.txt", "--min-count", "30"}, "", []string{".", "every", "a", "light", "this"}},
		{"conll column 2", []string{"--format", "conll", "--column", "2", "testdata/chunk-train.txt", "--min-count", "60"}, "", []string{"DT", "NN", ".", "VBZ", "JJ"}},
		{"conllu", []string{"--format", "conllu", "../../specs/data/ud-ewt-sample/train.conllu", "--lowercase", "--zero-digits", "--min-count", "3"}, "", nil},
		{"stdin", []string{"-", "--lowercase", "--zero-digits", "--min-count", "1"}, "The the 1996 2001 THE\n", []string{"the", "0000"}},
		{"gzip", []string{gzText, "--min-count", "1"}, "", []string{"b", "a", "c"}},
		// running text split as the CoNLL corpora are (clusters.Tokenize)
		{"tokenize", []string{"-", "--tokenize", "--min-count", "2"}, "Don't go, Mr. Smith.\nWe don't.\n", []string{".", "n't"}},
		{"mixed", []string{"-", "--conll", "testdata/chunk-train.txt", "--conllu", "../../specs/data/ud-ewt-sample/dev.conllu", "--min-count", "1"},
			"zzz\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".vec")
			mustRun(t, c.stdin, append([]string{"embeddings", "--dim", "4", "--epochs", "1", "--out", out}, c.args...)...)
			v, err := embeddings.Read(out, embeddings.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if c.name == "mixed" {
				// zzz from stdin, every from the CoNLL file only, "of"
				// from the CoNLL-U file only.
				for _, w := range []string{"zzz", "every", "of"} {
					if _, ok := v.Lookup(w); !ok {
						t.Errorf("no vector for %q", w)
					}
				}
			}
			if c.want != nil && !slices.Equal(v.Words, c.want) {
				t.Errorf("words %q, want %q", v.Words, c.want)
			}
			if len(v.Words) < 2 {
				t.Errorf("only %d words", len(v.Words))
			}
			for _, w := range v.Words {
				lowered := slices.Contains(c.args, "--lowercase")
				if lowered && (w != strings.ToLower(w) || strings.ContainsAny(w, "123456789")) {
					t.Errorf("--lowercase --zero-digits kept %q", w)
				}
			}
		})
	}
}

// TestEmbeddingsBadInput: each mistake exits 2 with a message saying
// what is wrong, and leaves no file behind.
func TestEmbeddingsBadInput(t *testing.T) {
	dir := t.TempDir()
	text := writeTemp(t, dir, "text.txt", embeddingsText())
	empty := writeTemp(t, dir, "empty.txt", "\n\n")
	conll := writeTemp(t, dir, "short.conll", "EU NNP\nrejects VBZ\n")
	notGzip := writeTemp(t, dir, "plain.gz", "this is plain text, not gzip\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(embeddingsText()))
	zw.Close()
	cut := writeTemp(t, dir, "cut.gz", gz.String()[:gz.Len()/2])
	out := filepath.Join(dir, "out.vec")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{notGzip, "--out", out}, "plain.gz: gzip: invalid header"},
		{[]string{cut, "--out", out}, "cut.gz: unexpected EOF"},
		{[]string{"--out", out}, "at least one TEXT, --conll or --conllu file"},
		{[]string{"--conll", filepath.Join(dir, "missing.conll"), "--out", out}, "missing.conll: no such file"},
		{[]string{text}, "needs --out"},
		{[]string{filepath.Join(dir, "missing.txt"), "--out", out}, "missing.txt: no such file"},
		{[]string{dir, "--out", out}, "is a folder"},
		{[]string{empty, "--out", out}, "no words to train on"},
		{[]string{text, "--min-count", "1000", "--out", out}, "occurs 1000 times"},
		{[]string{text, "--dim", "0", "--out", out}, "--dim 0"},
		{[]string{text, "--window", "0", "--out", out}, "--window 0"},
		{[]string{text, "--negative", "0", "--out", out}, "--negative 0"},
		{[]string{text, "--epochs", "0", "--out", out}, "--epochs 0"},
		{[]string{text, "--sample", "-1", "--out", out}, "--sample -1"},
		{[]string{text, "--threads", "0", "--out", out}, "--threads 0"},
		{[]string{text, "--min-count", "0", "--out", out}, "--min-count 0"},
		{[]string{text, "--dim", "x", "--out", out}, "invalid value"},
		{[]string{text, "--format-out", "auto", "--out", out}, "--format-out"},
		{[]string{text, "--format", "csv", "--out", out}, "--format \"csv\""},
		{[]string{text, "--column", "2", "--out", out}, "--column is for CoNLL files"},
		{[]string{"--format", "conll", "--tokenize", conll, "--out", out}, "--tokenize splits running text"},
		{[]string{"--format", "conll", "--column", "3", conll, "--out", out}, "short.conll:1: the line has 2 columns, not the 3rd"},
		{[]string{text, "--out", filepath.Join(dir, "no", "such", "out.vec")}, "does not exist"},
		{[]string{text, "--out", dir}, "is a folder"},
		{[]string{"-", "-", "--out", out}, "once"},
	} {
		code, _, stderr := trellis(t, "", append([]string{"embeddings"}, c.args...)...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("embeddings %q: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
	onlyFiles(t, dir, "cut.gz", "empty.txt", "plain.gz", "short.conll", "text.txt")
}

// TestEmbeddingsInNeuralRun: vectors trained with the encoder's keys
// (zero_digits is its default) initialise a neural run's word table, and
// the model pins them.
func TestEmbeddingsInNeuralRun(t *testing.T) {
	src := strings.Replace(neuralSpec, "word_dim      = 8", "word_dim      = 8\n  vectors       = \"vec.txt\"", 1)
	if src == neuralSpec {
		t.Fatal("neuralSpec no longer sets word_dim = 8: update this test")
	}
	spec := writeNeuralSpec(t, src)
	dir := filepath.Dir(spec)
	vec := filepath.Join(dir, "vec.txt")
	mustRun(t, "", "embeddings", "--format", "conll", filepath.Join(dir, "chunk-train.txt"), "--zero-digits",
		"--dim", "8", "--min-count", "2", "--epochs", "2", "--out", vec)
	run := filepath.Join(dir, "run")
	mustRun(t, "", "run", spec, "--out", run, "--learner", "bilstm_crf")
	m, err := model.Load(filepath.Join(run, "models", "bilstm_crf.model"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := embeddings.Read(vec, embeddings.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Network.VectorsSHA256 != v.SHA256 {
		t.Errorf("the model pins vectors %q, the file is %q", m.Network.VectorsSHA256, v.SHA256)
	}
}

// TestCommitNew: a file that appears at --out while the vectors are
// trained is kept (without --force) and the temporary file is removed;
// with --force it is replaced.
func TestCommitNew(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "vec.txt")
	for _, force := range []bool{false, true} {
		f, err := fileio.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("new\n"); err != nil {
			t.Fatal(err)
		}
		writeTemp(t, dir, "vec.txt", "theirs\n")
		err = commitNew(f, out, force)
		f.Close()
		got := string(readFile(t, out))
		switch {
		case !force && (err == nil || !strings.Contains(err.Error(), "already exists") || got != "theirs\n"):
			t.Errorf("without --force: %v, file %q", err, got)
		case force && (err != nil || got != "new\n"):
			t.Errorf("with --force: %v, file %q", err, got)
		}
		onlyFiles(t, dir, "vec.txt")
	}
	os.Remove(out)
	f, err := fileio.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("mine\n")
	if err := commitNew(f, out, false); err != nil || string(readFile(t, out)) != "mine\n" {
		t.Errorf("a new file: %v", err)
	}
	f.Close()
	onlyFiles(t, dir, "vec.txt")
}
