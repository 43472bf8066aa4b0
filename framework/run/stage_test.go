package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/rundir"
	"github.com/trellis-nlp/trellis/framework/spec"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// nerDocs writes a small CoNLL corpus of documents: each mentions its own
// person and place several times, with filler words between.
func nerDocs(docs, seed int) string {
	var b strings.Builder
	for d := range docs {
		b.WriteString("-DOCSTART- O\n\n")
		per, loc := fmt.Sprintf("Smith%d", (d*7+seed)%5), fmt.Sprintf("Paris%d", (d*3+seed)%4)
		for k := range 3 {
			fmt.Fprintf(&b, "%s B-PER\nvisited O\n%s B-LOC\non O\nday%d O\n\n", per, loc, k)
			fmt.Fprintf(&b, "Mr O\n%s B-PER\nleft O\n\n", per)
		}
	}
	return b.String()
}

const stageSpecSrc = `experiment "stages" {
  seed = 3
}
corpus "train" {
  path    = "train.txt"
  format  = "conll"
  columns = ["word", "ner"]
}
corpus "test" {
  path    = "test.txt"
  format  = "conll"
  columns = ["word", "ner"]
}
labels {
  column = "ner"
  scheme = "iob2"
}
features {
  emission "w" {
    column  = "word"
    offsets = [-1, 0, 1]
  }
  document "doc" {
    column = "word"
  }
  emission "p" {
    column  = "pred"
    offsets = [-1, 0, 1]
  }
  history "h" {
    column    = "word"
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

func stageSpec(t *testing.T) *spec.Spec { return nerDocsSpec(t, stageSpecSrc) }

// nerDocsSpec loads spec source src beside a train.txt and a test.txt of
// nerDocs documents.
func nerDocsSpec(t *testing.T, src string) *spec.Spec {
	return specBeside(t, src, nerDocs(9, 0), nerDocs(3, 1))
}

// specBeside loads spec source src from a new folder that also holds
// train.txt and test.txt with the given texts.
func specBeside(t *testing.T, src, train, test string) *spec.Spec {
	t.Helper()
	s, diags := specWith(t, t.TempDir(), map[string]string{"spec.hcl": src, "train.txt": train, "test.txt": test})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return s
}

// specWith writes files (name to contents) into dir and loads the spec
// dir/spec.hcl.
func specWith(t *testing.T, dir string, files map[string]string) (*spec.Spec, hcl.Diagnostics) {
	t.Helper()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	templates, learners := builtin.Registries()
	return spec.LoadFile(filepath.Join(dir, "spec.hcl"), nil, spec.Registries{Templates: templates, Learners: learners})
}

// runTwice runs s with 1 and 2 threads, checks that the two run
// directories are identical to the byte, and returns them by thread
// count with the 1-thread run's trace lines that begin with prefix.
func runTwice(t *testing.T, s *spec.Spec, prefix string) (map[int]string, []string) {
	t.Helper()
	templates, _ := builtin.Registries()
	dirs := map[int]string{}
	var traces []string
	for _, threads := range []int{1, 2} {
		dirs[threads] = filepath.Join(t.TempDir(), strconv.Itoa(threads))
		var mu sync.Mutex
		ss := newSession(&Options{Spec: s, Templates: templates, OutDir: dirs[threads], Threads: threads, Log: zerolog.Nop()})
		ss.onTrace = func(e string) {
			mu.Lock()
			defer mu.Unlock()
			if threads == 1 && strings.HasPrefix(e, prefix) {
				traces = append(traces, e)
			}
		}
		if _, err := ss.run(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	checks, err := CheckRerun(dirs[1], dirs[2])
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if !c.Identical {
			t.Errorf("%s differs between 1 and 2 threads: %s", c.File, c.Detail)
		}
	}
	return dirs, traces
}

// TestStageRun runs a two-stage spec with 1 and 2 threads: the runs are
// identical to the byte; no fold model predicts a sentence it trained on,
// every train sentence is predicted once, folds hold whole documents; the
// second stage's model carries the first stage, pinned, and the manifest
// and metrics record it.
func TestStageRun(t *testing.T) {
	s := stageSpec(t)
	dirs, traces := runTwice(t, s, "stage ")

	sents, err := readCorpus(s.Corpus("train"))
	if err != nil {
		t.Fatal(err)
	}
	checkJackknifeTrace(t, traces, sents, 3)

	man, err := rundir.ReadManifest(dirs[1])
	if err != nil {
		t.Fatal(err)
	}
	st := man.Learners["second"].Stage
	if st == nil || st.Column != "pred" || st.Learner != "first" || st.Folds != 3 || st.By != "document" || st.Seed != 3 || len(st.SHA256) != 64 {
		t.Errorf("manifest stage %+v", st)
	}
	if man.Learners["first"].Stage != nil {
		t.Error("the first stage has a stage in the manifest")
	}
	report, err := os.ReadFile(filepath.Join(dirs[1], rundir.ReportMarkdown))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), "## Stages") || !strings.Contains(string(report), "| second | first (perceptron) | pred | 3 folds by document, seed 3 |") {
		t.Errorf("report.md without the stage:\n%s", report)
	}
	metrics, err := rundir.ReadMetrics(dirs[1])
	if err != nil {
		t.Fatal(err)
	}
	if metrics["second"].StageSeconds <= 0 || metrics["first"].StageSeconds != 0 {
		t.Errorf("stage seconds: first %v, second %v", metrics["first"].StageSeconds, metrics["second"].StageSeconds)
	}

	second, err := model.Load(rundir.ModelPath(dirs[1], "second"))
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Stages) != 1 || second.Stages[0].SHA256 != st.SHA256 {
		t.Fatalf("model stages %+v, manifest %+v", second.Stages, st)
	}
	names := func(m *model.Model) (out []string) {
		for _, ts := range m.Templates {
			out = append(out, ts.Name)
		}
		return out
	}
	if got := names(second.StageModels[0]); !slices.Equal(got, []string{"w", "doc", "trans"}) {
		t.Errorf("first stage templates %v", got)
	}
	if got := names(second); !slices.Equal(got, []string{"w", "doc", "p", "h", "trans"}) {
		t.Errorf("second stage templates %v", got)
	}
	checkStageTagger(t, second, s, nil)
}

// checkStageTagger tags the test corpus with a second-stage model's
// tagger and its replica (the service's pool): the same labels, the
// sentences' rows given back as they were; the input the model asks for
// is the words and the columns extra (the stage column is not the
// caller's to give).
func checkStageTagger(t *testing.T, m *model.Model, s *spec.Spec, extra []string) {
	t.Helper()
	templates, _ := builtin.Registries()
	tg, err := tagger.New(m, templates, tagger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	rep, err := tg.Replica(templates)
	if err != nil {
		t.Fatal(err)
	}
	defer rep.Close()
	test, err := readCorpus(s.Corpus("test"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := tg.Tag(test)
	if err != nil {
		t.Fatal(err)
	}
	b, err := rep.Tag(test)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(a, b, slices.Equal) {
		t.Error("the replica tags otherwise")
	}
	width := len(s.Corpus("test").Columns)
	for _, st := range test {
		for _, row := range st.Tokens {
			if len(row) != width {
				t.Fatalf("a row of %d columns after tagging: %q", len(row), row)
			}
		}
	}
	// The same sentence twice in one batch: its rows come back its own,
	// not the tagger's buffer (which the next batch would overwrite).
	dup := test[0]
	own := slices.Clone(dup.Tokens)
	if _, err := tg.Tag([]*corpus.Sentence{dup, dup}); err != nil {
		t.Fatal(err)
	}
	for i, row := range dup.Tokens {
		if len(row) != width || &row[0] != &own[i][0] {
			t.Fatalf("token %d after a batch with its sentence twice: row %q, not the caller's", i, row)
		}
	}
	in, err := tg.TokenInput()
	if err != nil || !slices.Equal(in.ExtraNames, extra) {
		t.Errorf("token input %+v, %v: want the words and %q", in, err, extra)
	}
}

// checkJackknifeTrace reads the "stage pred fold F trains|predicts i j …"
// events of a run and checks them.
func checkJackknifeTrace(t *testing.T, traces []string, sents []*corpus.Sentence, k int) {
	t.Helper()
	trains, predicts := map[int][]int{}, map[int][]int{}
	for _, e := range traces {
		var f int
		var verb string
		fields := strings.Fields(e)
		if _, err := fmt.Sscanf(strings.Join(fields[:5], " "), "stage pred fold %d %s", &f, &verb); err != nil {
			t.Fatalf("trace %q: %v", e, err)
		}
		var idx []int
		for _, x := range fields[5:] {
			i, _ := strconv.Atoi(x)
			idx = append(idx, i)
		}
		if verb == "trains" {
			trains[f] = idx
		} else {
			predicts[f] = idx
		}
	}
	if len(trains) != k || len(predicts) != k {
		t.Fatalf("%d folds trained, %d predicted; want %d", len(trains), len(predicts), k)
	}
	seen := make([]int, len(sents))
	for f := range k {
		for _, i := range predicts[f] {
			if slices.Contains(trains[f], i) {
				t.Errorf("fold %d predicts sentence %d, which it trained on", f, i)
			}
			seen[i]++
		}
		if len(trains[f])+len(predicts[f]) != len(sents) {
			t.Errorf("fold %d: %d trained + %d predicted of %d sentences", f, len(trains[f]), len(predicts[f]), len(sents))
		}
	}
	foldOfDoc := map[int]int{}
	for f := range k {
		for _, i := range predicts[f] {
			if g, ok := foldOfDoc[sents[i].Document]; ok && g != f {
				t.Errorf("document %d is in folds %d and %d", sents[i].Document, g, f)
			}
			foldOfDoc[sents[i].Document] = f
		}
	}
	for i, n := range seen {
		if n != 1 {
			t.Errorf("sentence %d predicted %d times", i, n)
		}
	}
}

// TestJackknife: the folds' predictions land on their sentences, and a
// fold's predictor is never asked about a sentence its model trained on.
func TestJackknife(t *testing.T) {
	folds := []int{2, 0, 1, 1, 0, 2, 2}
	out, err := jackknife(folds, 3, func(f int, train []int) (predictor[[]string], error) {
		return func(held []int) ([][]string, error) {
			var labels [][]string
			for _, i := range held {
				if slices.Contains(train, i) {
					t.Errorf("fold %d asked to predict sentence %d, which it trained on", f, i)
				}
				labels = append(labels, []string{fmt.Sprint("fold", f)})
			}
			return labels, nil
		}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range folds {
		if want := fmt.Sprint("fold", f); len(out[i]) != 1 || out[i][0] != want {
			t.Errorf("sentence %d labelled %v, want %s", i, out[i], want)
		}
	}
	if _, err := jackknife[[]string]([]int{0, 0, 0}, 2, nil); err == nil {
		t.Error("an empty fold accepted")
	}
	if _, err := jackknife[[]string]([]int{0, 1, 3}, 3, nil); err == nil {
		t.Error("a sentence in fold 3 of 3 accepted")
	}
}

// TestStageFolds: documents stay whole, folds are balanced, the dealing is
// the seed's, and too few units is an error.
func TestStageFolds(t *testing.T) {
	var sents []*corpus.Sentence
	for d := range 20 {
		for range 3 {
			sents = append(sents, &corpus.Sentence{File: "f", Document: d})
		}
	}
	a, err := dealFolds(sents, 4, spec.StageByDocument, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := dealFolds(sents, 4, spec.StageByDocument, 1)
	c, _ := dealFolds(sents, 4, spec.StageByDocument, 2)
	if !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Errorf("seed 1 twice %v %v, seed 2 %v", a, b, c)
	}
	count := make([]int, 4)
	for i, f := range a {
		if f != a[i/3*3] {
			t.Errorf("document %d split across folds", i/3)
		}
		count[f]++
	}
	for f, n := range count {
		if n != 15 {
			t.Errorf("fold %d has %d sentences, want 15", f, n)
		}
	}
	bySent, _ := dealFolds(sents, 4, spec.StageBySentence, 1)
	if slices.Equal(bySent, a) {
		t.Error("by sentence deals like by document")
	}
	if _, err := dealFolds(sents[:3], 2, spec.StageByDocument, 1); err == nil {
		t.Error("one document in 2 folds accepted")
	}
}
