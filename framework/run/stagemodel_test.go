// Tests of model stages: a second stage reading the labels of a model
// trained elsewhere, in a format of its own.

package run

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/rundir"
	"github.com/trellis-nlp/trellis/framework/spec"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// firstModelSrc trains the model stage: its own column names (form, tag,
// label) and a template reading the tag column.
const firstModelSrc = `corpus "train" {
  path    = "train.txt"
  format  = "conll"
  columns = ["form", "tag", "label"]
}
labels {
  column = "label"
  scheme = "iob2"
}
features {
  emission "f" {
    column  = "form"
    offsets = [0]
  }
  emission "t" {
    column  = "tag"
    offsets = [-1, 0]
  }
  transition "trans" {}
}
learner "tagger" {
  type   = "perceptron"
  epochs = 1
}
evaluation {
  train = "train"
  test  = "train"
}
experiment "first" {
  seed = 2
}
`

// modelStageSrc is stageSpecSrc over [word tag ner], its second stage
// reading as "pred" the labels of first.model (beside it), not of the
// jackknifed learner "first".
var modelStageSrc = strings.NewReplacer(`["word", "ner"]`, `["word", "tag", "ner"]`,
	"from   = \"first\"\n    column = \"pred\"\n    folds  = 3", "model  = \"first.model\"\n    column = \"pred\"").Replace(stageSpecSrc)

// trainFirstModel trains firstModelSrc on withPOS(nerDocs(4, 2)) and
// writes it to dir/first.model, returning its bytes.
func trainFirstModel(t *testing.T, dir string) []byte {
	t.Helper()
	docs := withPOS(nerDocs(4, 2))
	fs := specBeside(t, firstModelSrc, docs, docs)
	templates, _ := builtin.Registries()
	m, err := Train(context.Background(), Options{Spec: fs, Templates: templates, Log: zerolog.Nop()}, "tagger")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "first.model"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// withPOS adds a middle column to nerDocs text: "C" for a capitalized
// word, "x" otherwise.
func withPOS(text string) string {
	var b strings.Builder
	for line := range strings.Lines(text) {
		f := strings.Fields(line)
		if len(f) != 2 {
			b.WriteString(line)
			continue
		}
		pos := "x"
		if f[0][0] >= 'A' && f[0][0] <= 'Z' {
			pos = "C"
		}
		b.WriteString(f[0] + " " + pos + " " + f[1] + "\n")
	}
	return b.String()
}

// TestModelStageRun runs a second stage over a model stage with 1 and 2
// threads: the runs are identical; the train corpus's stage column is the
// model's own tagging of the words and tags (fed by name into its format);
// the manifest and model pin the model file by its SHA-256 and record no
// jackknifing; the saved model tags from words and tags alone.
func TestModelStageRun(t *testing.T) {
	dir := t.TempDir()
	first := trainFirstModel(t, dir)
	s, diags := specWith(t, dir, map[string]string{"spec.hcl": modelStageSrc,
		"train.txt": withPOS(nerDocs(9, 0)), "test.txt": withPOS(nerDocs(3, 1))})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	sum := sha256.Sum256(first)
	if st := s.Learner("second").Stage; st.Loaded == nil || st.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("spec stage %+v", st)
	}
	checkModelStageLabels(t, s)
	dirs, _ := runTwice(t, s, "")
	man, err := rundir.ReadManifest(dirs[1])
	if err != nil {
		t.Fatal(err)
	}
	st := man.Learners["second"].Stage
	if st == nil || !st.Fed() || st.Model != "first.model" || st.Column != "pred" || st.Learner != "tagger" || st.Folds != 0 || st.By != "" || st.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("manifest stage %+v", st)
	}
	report, err := os.ReadFile(filepath.Join(dirs[1], rundir.ReportMarkdown))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), "| second | model first.model (perceptron) | pred | none: a trained model |") {
		t.Errorf("report.md without the stage:\n%s", report)
	}
	second, err := model.Load(rundir.ModelPath(dirs[1], "second"))
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Stages) != 1 || !second.Stages[0].Fed() || second.StageModels[0].Format.Columns[0] != "form" || strings.Contains(modelStageSrc, "folds") {
		t.Fatalf("model stages %+v", second.Stages)
	}
	checkStageTagger(t, second, s, []string{"tag"})
}

// checkModelStageLabels: the labels modelStage gives the train corpus are
// those the model gives the same sentences read in its own format.
func checkModelStageLabels(t *testing.T, s *spec.Spec) {
	t.Helper()
	templates, _ := builtin.Registries()
	st := s.Learner("second").Stage
	sents, err := readCorpus(s.Corpus("train"))
	if err != nil {
		t.Fatal(err)
	}
	sl, err := modelStage(newSession(&Options{Spec: s, Templates: templates, Log: zerolog.Nop()}), st, sents)
	if err != nil {
		t.Fatal(err)
	}
	f, err := corpus.New(st.Loaded.Format)
	if err != nil {
		t.Fatal(err)
	}
	own, err := corpus.ReadAll(f, s.Corpus("train").Path, corpus.ReadOptions{}) // the same file in the model's layout
	if err != nil {
		t.Fatal(err)
	}
	tg, err := tagger.New(st.Loaded, templates, tagger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	want, err := tg.Tag(own)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(sl.train, want, slices.Equal) {
		t.Error("the stage column is not the model's tagging of the train corpus")
	}
}

// TestModelStageCannotFeed: a model stage whose model reads a column the
// corpus lacks (tag, by name) is refused where the spec names it.
func TestModelStageCannotFeed(t *testing.T) {
	dir := t.TempDir()
	trainFirstModel(t, dir)
	src := strings.ReplaceAll(modelStageSrc, `["word", "tag", "ner"]`, `["word", "ner"]`)
	_, diags := specWith(t, dir, map[string]string{"spec.hcl": src, "train.txt": nerDocs(9, 0), "test.txt": nerDocs(3, 1)})
	if !diags.HasErrors() || diags[0].Summary != "Stage model cannot label this corpus" || !strings.Contains(diags[0].Detail, `the column "tag"`) ||
		diags[0].Subject == nil || diags[0].Subject.Start.Line != 44 {
		t.Errorf("diagnostics %v", diags)
	}
}
