package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/serve"
	trellisapi "github.com/trellis-nlp/trellis/framework/trellis"
)

// neuralSpec is the tiny chunking spec with a tiny encoder (word, POS
// and character embeddings, one BiLSTM layer) and three learners over
// it: the BiLSTM-CRF, the BiLSTM-softmax and a hybrid CRF (the encoder
// beside a word template), with the test file as dev.
const neuralSpec = `experiment "chunk-neural" {
  seed = 3
}
corpus "train" {
  path    = "chunk-train.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}
corpus "test" {
  path    = "chunk-test.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}
labels {
  column = "chunk"
  scheme = "iob2"
}
features {
  emission "w" {
    column = "word"
  }
  transition "trans" {}
}
encoder "bilstm" {
  word_dim      = 8
  char_dim      = 4
  char_filters  = 4
  hidden        = 8
  columns       = { pos = 4 }
  epochs        = 6
  batch_size    = 4
  learning_rate = 0.01
}
encoder "cond" {
  word_dim      = 8
  char_dim      = 4
  char_filters  = 4
  hidden        = 8
  columns       = { pos = 4 }
  epochs        = 6
  batch_size    = 4
  learning_rate = 0.01
  transition    = "conditioned"
}
learner "bilstm_crf" {
  type    = "crf"
  encoder = "bilstm"
}
learner "conditioned" {
  type    = "crf"
  encoder = "cond"
}
learner "bilstm_softmax" {
  type    = "maxent"
  encoder = "bilstm"
}
learner "hybrid" {
  type    = "crf"
  encoder = "bilstm"
  c2      = 0.5
}
evaluation {
  train = "train"
  dev   = "test"
  test  = "test"
}
`

// writeNeuralSpec writes src and the chunk sample into a new folder and
// returns the spec's path.
func writeNeuralSpec(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"spec.hcl": []byte(src), "chunk-train.txt": readFile(t, "testdata/chunk-train.txt"), "chunk-test.txt": readFile(t, chunkTest),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "spec.hcl")
}

// TestNeuralModels trains the encoder's learners through the CLI and
// checks that models with a network are reproducible (the same bytes
// with 1 and 2 threads, and after a load and save), that `trellis tag`
// gives the run's predictions, the Go API `trellis tag`'s labels, and
// that explain's token scores, the encoder's included, add up to the
// sentence score.
func TestNeuralModels(t *testing.T) {
	spec := writeNeuralSpec(t, neuralSpec)
	a, b := filepath.Join(filepath.Dir(spec), "a"), filepath.Join(filepath.Dir(spec), "b")
	mustRun(t, "", "run", spec, "--out", a, "--threads", "1")
	mustRun(t, "", "run", spec, "--out", b, "--threads", "2")
	for _, l := range []string{"bilstm_crf", "conditioned", "bilstm_softmax", "hybrid"} {
		path := filepath.Join(a, "models", l+".model")
		if !bytes.Equal(readFile(t, path), readFile(t, filepath.Join(b, "models", l+".model"))) {
			t.Fatalf("%s: the model differs between --threads 1 and 2", l)
		}
		m, err := model.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if m.Network == nil || m.Version != model.NeuralVersion {
			t.Fatalf("%s: no network in the model file (format version %d)", l, m.Version)
		}
		again := filepath.Join(t.TempDir(), "again.model")
		if err := model.Save(again, m); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(readFile(t, path), readFile(t, again)) {
			t.Fatalf("%s: the model file changes in a load and save", l)
		}
		tagged, _ := mustRun(t, "", "tag", "--model", path, chunkTest)
		if want := string(readFile(t, filepath.Join(a, "predictions", l+".txt"))); tagged != want {
			t.Fatalf("%s: trellis tag differs from the run's predictions", l)
		}
		checkAPITags(t, path, tagged)
		checkExplainSums(t, path)
	}
}

// checkAPITags tags the words and POS of tagged (trellis tag's output)
// through the Go API and compares the labels.
func checkAPITags(t *testing.T, path, tagged string) {
	t.Helper()
	m, err := trellisapi.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, sent := range strings.Split(strings.TrimSpace(tagged), "\n\n") {
		var rows [][]string
		var want []string
		for _, line := range strings.Split(sent, "\n") {
			f := strings.Fields(line)
			rows, want = append(rows, f[:2]), append(want, f[len(f)-1])
		}
		got, err := m.TagRows(rows)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: the API tags %q, trellis tag %q", path, got, want)
		}
	}
}

// checkExplainSums checks that each sentence's token scores, which hold
// the encoder's score, add up to its score.
func checkExplainSums(t *testing.T, path string) {
	t.Helper()
	out, _ := mustRun(t, "", "explain", "--model", path, "--json", chunkTest)
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var ex struct {
			Score  float64
			Tokens []struct {
				Score   float64
				Encoder *float64
			}
		}
		if err := dec.Decode(&ex); err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for _, tok := range ex.Tokens {
			if tok.Encoder == nil {
				t.Fatalf("%s: explain gives no encoder score", path)
			}
			sum += tok.Score
		}
		if math.Abs(sum-ex.Score) > 1e-9*math.Max(1, math.Abs(ex.Score)) {
			t.Fatalf("%s: token scores add up to %v, the sentence scores %v", path, sum, ex.Score)
		}
	}
}

// TestNeuralServe serves a BiLSTM-CRF model (a real process on loopback)
// and checks its labels against `trellis tag`'s, the POS column given in
// the request.
func TestNeuralServe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	spec := writeNeuralSpec(t, neuralSpec)
	out := filepath.Join(filepath.Dir(spec), "run")
	mustRun(t, "", "run", spec, "--out", out, "--learner", "bilstm_crf")
	path := filepath.Join(out, "models", "bilstm_crf.model")
	tagged, _ := mustRun(t, "", "tag", "--model", path, chunkTest)
	var words, pos, want [][]string
	for _, sent := range strings.Split(strings.TrimSpace(tagged), "\n\n") {
		var w, p, l []string
		for _, line := range strings.Split(sent, "\n") {
			f := strings.Fields(line)
			w, p, l = append(w, f[0]), append(p, f[1]), append(l, f[len(f)-1])
		}
		words, pos, want = append(words, w), append(pos, p), append(want, l)
	}
	p := startServe(t, "--model", "ewt="+path)
	resp, err := tagOver(p.base, serve.TagRequest{Sentences: words, Columns: map[string][][]string{"pos": pos}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(resp.Labels, want) {
		t.Fatalf("served %q, trellis tag %q", resp.Labels, want)
	}
	if _, err := tagOver(p.base, serve.TagRequest{Sentences: words}); err == nil || !strings.Contains(err.Error(), "pos") {
		t.Fatalf("a request without the POS column the network reads: %v, want an error naming pos", err)
	}
}

// TestNeuralSpecErrors: an encoder on a learner that cannot train one,
// an unknown encoder, a column the corpus lacks, a learner setting the
// encoder's training does not read, and a bad encoder setting are spec
// errors at their line, and nothing is trained.
func TestNeuralSpecErrors(t *testing.T) {
	for _, c := range []struct {
		name, old, new, at, want string
	}{
		{"hmm", "type    = \"maxent\"", "type    = \"hmm\"", "encoder = \"bilstm\"\n}\nlearner \"hybrid\"", "cannot train a neural encoder"},
		{"unknown", "learner \"hybrid\" {\n  type    = \"crf\"\n  encoder = \"bilstm\"", "learner \"hybrid\" {\n  type    = \"crf\"\n  encoder = \"bilstm2\"", "encoder = \"bilstm2\"", "No encoder block is named"},
		{"column", "columns       = { pos = 4 }", "columns       = { tag = 4 }", "columns       = { tag", "lacks"},
		{"setting", "c2      = 0.5", "algorithm = \"sgd\"", "algorithm = \"sgd\"", "does not apply"},
		{"dropout", "epochs        = 6", "dropout       = 1.5", "dropout       = 1.5", "probability"},
		{"conditioned softmax", "type    = \"maxent\"\n  encoder = \"bilstm\"", "type    = \"maxent\"\n  encoder = \"cond\"", "encoder = \"cond\"\n}\nlearner \"hybrid\"", "cannot train"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(neuralSpec, c.old, c.new, 1)
			if src == neuralSpec {
				t.Fatal("the spec did not change")
			}
			spec := writeNeuralSpec(t, src)
			line := 1 + strings.Count(src[:strings.Index(src, c.at)], "\n")
			out := filepath.Join(filepath.Dir(spec), "run")
			code, _, stderr := trellis(t, "", "run", spec, "--out", out)
			if code != exitUsage || !strings.Contains(stderr, "spec.hcl:"+strconv.Itoa(line)+":") || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit 2 and a diagnostic at line %d saying %q", code, stderr, line, c.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Fatal("a run directory was written")
			}
		})
	}
}

// TestNeuralVectors initialises the word table from a vectors file: the
// model pins the file by SHA-256; a file whose dimension disagrees with
// the encoder's, a truncated one and one that is not UTF-8 stop the run
// with the file and line, and nothing is written.
func TestNeuralVectors(t *testing.T) {
	good := "3 8\nthe 1 0 0 0 0 0 0 0\ncar 0 1 0 0 0 0 0 0\nunseenword 0 0 1 0 0 0 0 0\n"
	src := strings.Replace(neuralSpec, "word_dim      = 8", "word_dim      = 8\n  vectors       = \"vec.txt\"", 1)
	for _, c := range []struct {
		name, vectors, want string
	}{
		{"good", good, ""},
		{"dimension", "3 8\nthe 1 0 0 0 0 0 0 0\ncar 0 1 0 0 0 0 0\nx 1 1 1 1 1 1 1 1\n", "vec.txt:3:"},
		{"truncated", "3 8\nthe 1 0 0 0 0 0 0 0\n", "vec.txt"},
		{"not UTF-8", "2 8\nthe 1 0 0 0 0 0 0 0\nc\xffr 0 1 0 0 0 0 0 0\n", "vec.txt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := writeNeuralSpec(t, src)
			if err := os.WriteFile(filepath.Join(filepath.Dir(spec), "vec.txt"), []byte(c.vectors), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(filepath.Dir(spec), "run")
			code, _, stderr := trellis(t, "", "run", spec, "--out", out, "--learner", "bilstm_crf")
			if c.want != "" {
				if code == exitOK || !strings.Contains(stderr, c.want) {
					t.Fatalf("exit %d, stderr:\n%s\nwant a failure naming %q", code, stderr, c.want)
				}
				if _, err := os.Stat(out); err == nil {
					t.Fatal("a run directory was written")
				}
				return
			}
			if code != exitOK {
				t.Fatalf("exit %d:\n%s", code, stderr)
			}
			m, err := model.Load(filepath.Join(out, "models", "bilstm_crf.model"))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256([]byte(c.vectors))
			if m.Network.VectorsSHA256 != hex.EncodeToString(sum[:]) || !slices.Contains(m.Network.Vocab.Words, "unseenword") {
				t.Fatalf("the model pins vectors %q (want %x) and has unseenword %v", m.Network.VectorsSHA256, sum, slices.Contains(m.Network.Vocab.Words, "unseenword"))
			}
		})
	}
}

// TestNeuralSparseFirst: with sparse_first, a hybrid first trains its
// templates' weights alone (the log says so), then jointly with the
// encoder, and ends with another model than training both from the start;
// a neural-only learner has no templates to train first and is unchanged.
func TestNeuralSparseFirst(t *testing.T) {
	plain := writeNeuralSpec(t, neuralSpec)
	first := writeNeuralSpec(t, strings.Replace(neuralSpec, "learning_rate = 0.01\n}\nencoder \"cond\"", "learning_rate = 0.01\n  sparse_first  = true\n}\nencoder \"cond\"", 1))
	if readFile(t, plain) == nil || bytes.Equal(readFile(t, plain), readFile(t, first)) {
		t.Fatal("the spec did not change")
	}
	models := map[string]map[string][]byte{}
	for name, spec := range map[string]string{"plain": plain, "first": first} {
		out := filepath.Join(filepath.Dir(spec), "run")
		_, stderr := mustRun(t, "", "run", spec, "--out", out, "--learner", "hybrid", "--learner", "bilstm_crf")
		if got := strings.Contains(stderr, "training the templates' weights alone first"); got != (name == "first") {
			t.Fatalf("%s: the log says sparse_first %v:\n%s", name, got, stderr)
		}
		models[name] = map[string][]byte{}
		for _, l := range []string{"hybrid", "bilstm_crf"} {
			models[name][l] = readFile(t, filepath.Join(out, "models", l+".model"))
		}
	}
	if bytes.Equal(models["plain"]["hybrid"], models["first"]["hybrid"]) {
		t.Error("sparse_first did not change the hybrid")
	}
	// The spec's text (hence its hash, in the model) differs; the weights
	// must not: compare the tagged output instead.
	for name := range models {
		path := filepath.Join(t.TempDir(), name+".model")
		if err := os.WriteFile(path, models[name]["bilstm_crf"], 0o644); err != nil {
			t.Fatal(err)
		}
		out, _ := mustRun(t, "", "tag", "--model", path, chunkTest)
		models[name]["tagged"] = []byte(out)
	}
	if !bytes.Equal(models["plain"]["tagged"], models["first"]["tagged"]) {
		t.Error("sparse_first changed a neural-only learner")
	}
}
