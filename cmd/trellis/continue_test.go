package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/model"
)

// continueSpec is the chunking spec training on train (a file in the
// spec's folder) with the learner block given, and the w template's
// lowercase setting.
func continueSpec(train, learner string, lowercase bool) string {
	return fmt.Sprintf(`experiment "chunk" {
  seed = 3
}
corpus "train" {
  path    = %q
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
    column    = "word"
    lowercase = %v
  }
  transition "trans" {}
}
%s
evaluation {
  train = "train"
  test  = "test"
}
`, train, lowercase, learner)
}

// withoutLabel keeps the sentences of a CoNLL file that have no token
// labelled label.
func withoutLabel(b []byte, label string) []byte {
	var out []string
	for _, s := range strings.Split(strings.TrimSpace(string(b)), "\n\n") {
		if !strings.Contains(s, " "+label+"\n") && !strings.HasSuffix(s, " "+label) {
			out = append(out, s)
		}
	}
	return []byte(strings.Join(out, "\n\n") + "\n")
}

// TestContinueTraining runs init_model through the CLI: a perceptron
// trained on the chunking sentences without a PP continued for zero
// epochs tags the test corpus as it did; continued on all the sentences,
// it learns the new label B-PP with the old attribute and label IDs kept
// as a prefix, and the manifest records the starting model's path and
// SHA-256.
func TestContinueTraining(t *testing.T) {
	dir := t.TempDir()
	all := readFile(t, "testdata/chunk-train.txt")
	first := withoutLabel(all, "B-PP")
	if bytes.Contains(first, []byte("B-PP")) || len(first) < len(all)/4 {
		t.Fatal("the first part should be a good share of the sentences, without B-PP")
	}
	files := map[string]string{
		"first.txt": string(first), "all.txt": string(all), "chunk-test.txt": string(readFile(t, chunkTest)),
		"a.hcl": continueSpec("first.txt", `learner "p" { type = "perceptron" }`, true),
		"zero.hcl": continueSpec("first.txt", `learner "p" {
  type       = "perceptron"
  init_model = "a/models/p.model"
  epochs     = 0
}`, true),
		"more.hcl": continueSpec("all.txt", `learner "p" {
  type       = "perceptron"
  init_model = "a/models/p.model"
}`, true),
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, "", "run", filepath.Join(dir, "a.hcl"), "--out", filepath.Join(dir, "a"))
	mustRun(t, "", "run", filepath.Join(dir, "zero.hcl"), "--out", filepath.Join(dir, "zero"))
	mustRun(t, "", "run", filepath.Join(dir, "more.hcl"), "--out", filepath.Join(dir, "more"))
	pred := func(run string) []byte { return readFile(t, filepath.Join(dir, run, "predictions", "p.txt")) }
	if !bytes.Equal(pred("a"), pred("zero")) {
		t.Error("continuing for zero epochs changed the predictions")
	}
	a, err := model.Load(filepath.Join(dir, "a", "models", "p.model"))
	if err != nil {
		t.Fatal(err)
	}
	more, err := model.Load(filepath.Join(dir, "more", "models", "p.model"))
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(a.Labels, "B-PP") || !slices.Contains(more.Labels, "B-PP") {
		t.Errorf("labels %v, then %v: want B-PP new", a.Labels, more.Labels)
	}
	if !slices.Equal(more.Labels[:len(a.Labels)], a.Labels) || !slices.Equal(more.Attrs[:len(a.Attrs)], a.Attrs) {
		t.Error("the continued model does not keep the starting model's label and attribute IDs")
	}
	if !bytes.Contains(pred("more"), []byte("B-PP")) {
		t.Error("the continued model never predicts the new label B-PP")
	}
	var manifest struct {
		Learners map[string]struct {
			InitModel struct{ Path, SHA256 string } `json:"init_model"`
		} `json:"learners"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, "more", "manifest.json")), &manifest); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(readFile(t, filepath.Join(dir, "a", "models", "p.model")))
	if got := manifest.Learners["p"].InitModel; got.SHA256 != hex.EncodeToString(sum[:]) || got.Path != filepath.Join(dir, "a", "models", "p.model") {
		t.Errorf("manifest records init_model %+v, want the starting model's path and SHA-256", got)
	}

	// Bad input: spec errors at the init_model line, exit 2.
	if err := os.WriteFile(filepath.Join(dir, "corrupt.model"), []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	latentSpec := filepath.Join(dir, "latent.hcl")
	if err := os.WriteFile(latentSpec, []byte(continueSpec("first.txt", `learner "l" {
  type           = "crf"
  hidden_states  = 2
  max_iterations = 3
}`, true)), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "", "run", latentSpec, "--out", filepath.Join(dir, "latent"))
	for _, tc := range []struct {
		name, learner string
		lowercase     bool
		want          []string
	}{
		{"missing", `learner "p" {
  type       = "perceptron"
  init_model = "nope.model"
}`, true, []string{"Cannot read init_model", "nope.model", "relative to the spec file's folder"}},
		{"corrupt", `learner "p" {
  type       = "crf"
  init_model = "corrupt.model"
}`, true, []string{"Cannot read init_model", "corrupt.model"}},
		{"other templates", `learner "p" {
  type       = "perceptron"
  init_model = "a/models/p.model"
}`, false, []string{"init_model does not fit the spec", `template "w" has config`}},
		{"other scheme", `learner "p" {
  type       = "perceptron"
  init_model = "a/models/p.model"
}`, true, []string{"init_model does not fit the spec", "labels in scheme iob2, not bioes"}},
		{"hmm", `learner "p" {
  type       = "hmm"
  init_model = "a/models/p.model"
}`, true, []string{`Learner type hmm does not take "init_model"`, "arow, crf, maxent, memm, pa and perceptron"}},
		{"tuned", `learner "p" {
  type       = "perceptron"
  init_model = "a/models/p.model"
}

tune "p" {
  epochs = [1, 2]
}`, true, []string{"Tuning a continued learner", `Learner "p" continues from init_model`}},
		{"bigram templates", `learner "p" {
  type       = "perceptron"
  init_model = "a/models/p.model"
}`, true, []string{"init_model with bigram templates", "not supported yet"}},
		{"second order", `learner "p" {
  type       = "perceptron"
  init_model = "a/models/p.model"
}`, true, []string{"init_model with a second-order model", "not supported yet"}},
		{"latent model", `learner "p" {
  type       = "perceptron"
  init_model = "latent/models/l.model"
}`, true, []string{"init_model is a latent CRF", "2 hidden states per label"}},
		{"zero epochs from nothing", `learner "p" {
  type   = "perceptron"
  epochs = 0
}`, true, []string{"0 only with init_model"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := continueSpec("first.txt", tc.learner, tc.lowercase)
			if tc.name == "bigram templates" {
				src = strings.Replace(src, `transition "trans" {}`, `transition "trans" {}
  emission "pb" {
    column = "pos"
    labels = "bigram"
  }`, 1)
			}
			if tc.name == "second order" {
				src = strings.Replace(src, `transition "trans" {}`, "transition \"trans\" {\n    order = 2\n  }", 1)
			}
			if tc.name == "other scheme" {
				src = strings.Replace(src, `scheme = "iob2"`, `scheme = "iob2"
  encode = "bioes"`, 1)
			}
			spec := filepath.Join(dir, "bad-"+strings.ReplaceAll(tc.name, " ", "-")+".hcl")
			if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := trellis(t, "", "run", spec, "--out", filepath.Join(dir, "bad"))
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			at := "init_model"
			switch {
			case tc.name == "tuned":
				at = `tune "p"`
			case !strings.Contains(src, at):
				at = "epochs"
			}
			line := strings.Count(src[:strings.Index(src, at)], "\n") + 1
			want := append([]string{fmt.Sprintf("%s:%d:", filepath.Base(spec), line)}, tc.want...)
			for _, w := range want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "bad")); err == nil {
				t.Error("a spec error left an output folder")
			}
		})
	}
}
