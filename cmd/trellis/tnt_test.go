package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	trellisapi "github.com/trellis-nlp/trellis/framework/trellis"
)

// tntSpec is a POS tagger of the tiny chunking corpus's pos column with
// the tnt learner; extra goes into the features block, learner is the
// learner block's body after its type.
func tntSpec(extra, learner string) string {
	return `experiment "tnt" {
  seed = 1
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
  column = "pos"
  scheme = "none"
}

features {
  emission "word" {
    column = "word"
  }
  suffix_trie "suffix" {
    column = "word"
  }
` + extra + `  transition "trans" {
    order = 2
  }
}

learner "tnt" {
  type = "tnt"
` + learner + `}

evaluation {
  train = "train"
  test  = "test"
}
`
}

func writeTNT(t *testing.T, src string) string {
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"spec.hcl": []byte(src), "chunk-train.txt": readFile(t, "testdata/chunk-train.txt"), "chunk-test.txt": readFile(t, chunkTest),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestTnT trains TnT through the CLI: the model is a format-version-3
// (second-order) file, `trellis tag` with it reproduces the run's
// predictions, on the corpus and on plain text (it reads only the words),
// the run is reproducible to the byte, and it tags better than chance.
func TestTnT(t *testing.T) {
	dir := writeTNT(t, tntSpec("", ""))
	spec := filepath.Join(dir, "spec.hcl")
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	mustRun(t, "", "run", spec, "--out", a)
	mustRun(t, "", "run", spec, "--out", b, "--threads", "2")
	model := filepath.Join(a, "models", "tnt.model")
	if string(readFile(t, model)) != string(readFile(t, filepath.Join(b, "models", "tnt.model"))) {
		t.Error("the model differs between two runs")
	}
	if v := binary.LittleEndian.Uint32(readFile(t, model)[8:]); v != 3 {
		t.Errorf("model file format version %d, want 3", v)
	}
	tagged, _ := mustRun(t, "", "tag", "--model", model, chunkTest)
	if want := string(readFile(t, filepath.Join(a, "predictions", "tnt.txt"))); tagged != want {
		t.Fatalf("tag output (%d bytes) differs from the run's predictions (%d bytes)", len(tagged), len(want))
	}
	t.Run("round trip", func(t *testing.T) {
		// The Go API trains the same model; read back from its bytes, it
		// writes the same bytes again.
		m, err := trellisapi.TrainSpecFile(context.Background(), spec, trellisapi.SpecOptions{Learner: "tnt"})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		b, err := m.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, readFile(t, model)) {
			t.Fatal("the API's model differs from the run's model file")
		}
		back, err := trellisapi.LoadBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		defer back.Close()
		if b2, err := back.Bytes(); err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("a loaded model writes other bytes (%v)", err)
		}
	})
	plain, _ := mustRun(t, "A big dog moves .\n", "tag", "--model", model, "--input", "text", "--tokenizer", "lines")
	if n := len(strings.Split(strings.TrimSpace(plain), "\n")); n != 5 {
		t.Errorf("plain text: %d tags for 5 words:\n%s", n, plain)
	}
	var metrics map[string]struct {
		Accuracy float64 `json:"accuracy"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(a, "metrics.json")), &metrics); err != nil {
		t.Fatal(err)
	}
	if acc := metrics["tnt"].Accuracy; !(acc > 0.7) {
		t.Errorf("tnt accuracy %v on the tiny corpus, want above 0.7 (metrics: %s)", acc, readFile(t, filepath.Join(a, "metrics.json")))
	}
}

// TestTnTRefused: templates tnt cannot read, a first-order transition
// template and a bad rare_frequency are spec errors (exit 2) at the line
// that says so.
func TestTnTRefused(t *testing.T) {
	for _, c := range []struct {
		name, src, at, want string
	}{
		{"other template", tntSpec("  shape \"sh\" {\n    column = \"word\"\n  }\n", ""), `learner "tnt"`, `"sh" is of type shape`},
		{"first order", strings.Replace(tntSpec("", ""), "order = 2", "order = 1", 1), `learner "tnt"`, "order = 2"},
		{"rare_frequency", tntSpec("", "  rare_frequency = 0\n"), "rare_frequency = 0", "rare_frequency must be at least 1"},
		{"max_length", strings.Replace(tntSpec("", ""), "suffix_trie \"suffix\" {\n", "suffix_trie \"suffix\" {\n    max_length = 0\n", 1), "max_length = 0", "max_length must be between 1 and 64"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeTNT(t, c.src)
			line := 1 + strings.Count(c.src[:strings.Index(c.src, c.at)], "\n")
			code, _, stderr := trellis(t, "", "validate", filepath.Join(dir, "spec.hcl"))
			if code != 2 || !strings.Contains(stderr, "spec.hcl:"+strconv.Itoa(line)+":") || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit 2 and a diagnostic at line %d saying %q", code, stderr, line, c.want)
			}
		})
	}
}

// TestTnTUDEWT runs the shipped specs/ud-ewt-tnt.hcl on UD English EWT
// and checks the test accuracy docs/results.md reports (23,183 of 25,094
// tokens, 92.38%): the run is deterministic, so any change to the
// learner's estimates shows here. It skips when the shared data is
// absent.
func TestTnTUDEWT(t *testing.T) {
	data, ok := sharedDataDir()
	if _, err := os.Stat(filepath.Join(data, "ud-english-ewt", "en_ewt-ud-train.conllu")); !ok || err != nil {
		t.Skipf("../shared/data/ud-english-ewt not found (set TRELLIS_DATA_DIR): %v", err)
	}
	out := filepath.Join(t.TempDir(), "run")
	mustRun(t, "", "run", "../../specs/ud-ewt-tnt.hcl", "--var", "data_dir="+data, "--out", out)
	var metrics map[string]struct {
		Tokens  int `json:"tokens"`
		Correct int `json:"correct"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(out, "metrics.json")), &metrics); err != nil {
		t.Fatal(err)
	}
	if m := metrics["tnt"]; m.Tokens != 25094 || m.Correct != 23183 {
		t.Errorf("tnt: %d of %d test tokens correct, docs/results.md reports 23183 of 25094", m.Correct, m.Tokens)
	}
}
