package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// stageSpecSrc is a two-stage spec on the UD sample (documents from
// "# newdoc"): a perceptron on the words, then a perceptron that also
// reads its jackknifed predictions (the column "pred": the tags around
// the token, and the history of the word's other occurrences).
const stageSpecSrc = `experiment "stages" { seed = 1 }
corpus "train" {
  path   = "SAMPLE/train.conllu"
  format = "conllu"
}
corpus "test" {
  path   = "SAMPLE/test.conllu"
  format = "conllu"
}
labels {
  column = "upos"
  scheme = "none"
}
features {
  emission "w" {
    column  = "form"
    offsets = [-1, 0, 1]
  }
  suffix "suf" {
    column  = "form"
    lengths = [1, 2, 3]
  }
  emission "p" {
    column  = "pred"
    offsets = [-1, 0, 1]
  }
  history "h" {
    column    = "form"
    predicted = "pred"
  }
  transition "trans" {}
}
learner "first" {
  type   = "perceptron"
  epochs = 3
}
learner "second" {
  type   = "perceptron"
  epochs = 3
  stage {
    from   = "first"
    column = "pred"
    folds  = 3
  }
}
evaluation {
  train = "train"
  test  = "test"
}
`

// TestTwoStageEndToEnd trains a two-stage spec with `trellis run` at 1 and
// 2 threads (the same model bytes), then tags with the saved second-stage
// model alone: `trellis tag` runs the first stage it carries and gives the
// run's predictions, with --threads too, and plain text works since both
// stages read only the words.
func TestTwoStageEndToEnd(t *testing.T) {
	sample, err := filepath.Abs("../../specs/data/ud-ewt-sample")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	spec := filepath.Join(tmp, "stages.hcl")
	if err := os.WriteFile(spec, []byte(strings.ReplaceAll(stageSpecSrc, "SAMPLE", sample)), 0o644); err != nil {
		t.Fatal(err)
	}
	one, two := filepath.Join(tmp, "one"), filepath.Join(tmp, "two")
	table, _ := mustRun(t, "", "run", spec, "--out", one, "--threads", "1")
	mustRun(t, "", "run", spec, "--out", two, "--threads", "2")
	if !strings.Contains(table, "first vs second") {
		t.Errorf("no comparison of the stages in the table:\n%s", table)
	}
	model := filepath.Join(one, "models", "second.model")
	if !bytes.Equal(readFile(t, model), readFile(t, filepath.Join(two, "models", "second.model"))) {
		t.Error("the second stage's model differs between --threads 1 and 2")
	}

	want := string(readFile(t, filepath.Join(one, "predictions", "second.txt")))
	got, _ := mustRun(t, "", "tag", "--model", model, ewtTest)
	if got != want {
		t.Fatalf("tag output (%d bytes) differs from the run's predictions (%d bytes)", len(got), len(want))
	}
	if par, _ := mustRun(t, "", "tag", "--model", model, "--threads", "3", ewtTest); par != want {
		t.Error("tag --threads 3 differs from the run's predictions")
	}
	text, _ := mustRun(t, "The dog barks .\n", "tag", "--model", model, "--input", "text", "--tokenizer", "lines")
	if lines := strings.Split(strings.TrimSpace(text), "\n"); len(lines) != 4 || !strings.HasPrefix(lines[0], "The\t") {
		t.Errorf("plain text tagged as:\n%s", text)
	}

	var man struct {
		Learners map[string]struct {
			Stage *struct {
				Column, Learner, By string
				Folds               int
				SHA256              string `json:"sha256"`
			} `json:"stage"`
		} `json:"learners"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(one, "manifest.json")), &man); err != nil {
		t.Fatal(err)
	}
	if st := man.Learners["second"].Stage; st == nil || st.Column != "pred" || st.Learner != "first" || st.Folds != 3 || st.By != "document" || len(st.SHA256) != 64 {
		t.Errorf("manifest stage %+v", st)
	}
	// The first stage is recorded in the model, pinned.
	info, _ := mustRun(t, "", "inspect", model)
	if !strings.Contains(info, "pred") {
		t.Errorf("inspect does not mention the stage column:\n%s", info)
	}

	// A misspelt first stage is a spec error at its place, exit 2.
	bad := filepath.Join(tmp, "bad.hcl")
	if err := os.WriteFile(bad, []byte(strings.Replace(strings.ReplaceAll(stageSpecSrc, "SAMPLE", sample), `from   = "first"`, `from   = "frist"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := trellis(t, "", "validate", bad)
	if code != exitUsage || !strings.Contains(stderr, bad+":41:14: error: Unknown learner") || !strings.Contains(stderr, `Did you mean "first"?`) {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}

// TestModelStageFromWords: a chunker whose POS comes from a model stage
// (the shipped en-xpos) labels a corpus file, its words alone and raw text
// alike, and never reads the corpus's gold POS column.
func TestModelStageFromWords(t *testing.T) {
	model := filepath.Join(sharedRunAll(t, "testdata/chunk-xpos-stage.hcl"), "models", "perceptron.model")
	tagged, _ := mustRun(t, "", "tag", "--model", model, chunkTest)
	tokens, want := taggedColumns(tagged, 0)

	// The gold POS column garbled: the same labels.
	src, err := os.ReadFile(chunkTest)
	if err != nil {
		t.Fatal(err)
	}
	var garbled strings.Builder
	for _, line := range strings.Split(string(src), "\n") {
		if f := strings.Fields(line); len(f) == 3 {
			line = f[0] + " XX " + f[2]
		}
		garbled.WriteString(line + "\n")
	}
	out, _ := mustRun(t, garbled.String(), "tag", "--model", model)
	if _, got := taggedColumns(out, 0); !reflect.DeepEqual(got, want) {
		t.Error("the labels depend on the corpus's gold POS column")
	}
	// The words alone.
	out, _ = mustRun(t, asTokens(tokens), "tag", "--model", model, "--input", "tokens")
	if _, got := taggedColumns(out, 0); !reflect.DeepEqual(got, want) {
		t.Error("tagging the words alone differs from tagging the corpus file")
	}
	// Raw text: tokens with offsets, and chunks as spans.
	text := "A big dog moves. It barks."
	js, _ := mustRun(t, text, "tag", "--model", model, "--input", "text", "--tokenizer", "rules", "--output", "json")
	rs := []rune(text)
	spans := 0
	for _, j := range parseJSONLines(t, js) {
		for _, tok := range j.Tokens {
			if tok.Start == nil || string(rs[*tok.Start:*tok.End]) != tok.Text || tok.Label == "" {
				t.Errorf("token %+v", tok)
			}
		}
		for _, sp := range j.Spans {
			if sp.Start == nil || string(rs[*sp.Start:*sp.End]) != sp.Text {
				t.Errorf("span %+v", sp)
			}
		}
		spans += len(j.Spans)
	}
	if spans == 0 {
		t.Errorf("no spans:\n%s", js)
	}
}
