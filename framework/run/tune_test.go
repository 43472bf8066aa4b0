package run

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/rundir"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// The quickstart's sample (train, dev and test) and the command-line
// tests' chunk sample (train and test, no dev).
var (
	sampleDir = mustAbs("../../specs/data/ud-ewt-sample")
	chunkDir  = mustAbs("../../cmd/trellis/testdata")
)

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		panic(err)
	}
	return a
}

// posSpec is a small UPOS spec on the sample with a dev corpus; body adds
// learner and tune blocks, evaluation its extra lines.
func posSpec(body, evaluation string) string {
	return `experiment "pos" {
  seed = 5
}
corpus "train" {
  path   = "` + sampleDir + `/train.conllu"
  format = "conllu"
}
corpus "dev" {
  path   = "` + sampleDir + `/dev.conllu"
  format = "conllu"
}
corpus "test" {
  path   = "` + sampleDir + `/test.conllu"
  format = "conllu"
}
labels {
  column = "upos"
}
features {
  emission "w" {
    column = "form"
  }
  suffix "suf" {
    column  = "form"
    lengths = [1, 2]
  }
  transition "trans" {}
}
` + body + `
evaluation {
  train = "train"
` + evaluation + `
}
`
}

// chunkCVSpec is a chunking spec on the chunk sample, without a dev corpus.
func chunkCVSpec(body, evaluation string) string {
	return `experiment "chunk" {
  seed = 3
}
corpus "train" {
  path    = "` + chunkDir + `/chunk-train.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}
corpus "test" {
  path    = "` + chunkDir + `/chunk-test.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}
labels {
  column = "chunk"
  scheme = "iob2"
}
features {
  emission "w" {
    column  = "word"
    offsets = [-1, 0, 1]
  }
  emission "p" {
    column  = "pos"
    offsets = [-1, 0, 1]
  }
  transition "trans" {}
}
` + body + `
evaluation {
  train = "train"
` + evaluation + `
}
`
}

func loadSpec(t *testing.T, src string) *spec.Spec {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spec.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	templates, learners := builtin.Registries()
	s, diags := spec.LoadFile(path, nil, spec.Registries{Templates: templates, Learners: learners})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return s
}

// runSpec runs s into a new folder, recording the trace.
func runSpec(t *testing.T, s *spec.Spec, threads int) (*Result, []string) {
	t.Helper()
	templates, _ := builtin.Registries()
	var events []string
	ss := newSession(&Options{Spec: s, Templates: templates, OutDir: filepath.Join(t.TempDir(), "run"), Threads: threads, Log: zerolog.Nop()})
	ss.onTrace = func(e string) { events = append(events, e) }
	res, err := ss.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res, events
}

func readTuning(t *testing.T, dir, learner string) *rundir.Tuning {
	t.Helper()
	b, err := os.ReadFile(rundir.TunePath(dir, learner))
	if err != nil {
		t.Fatal(err)
	}
	var tu rundir.Tuning
	if err := json.Unmarshal(b, &tu); err != nil {
		t.Fatal(err)
	}
	return &tu
}

// checkNoTestDuringSearch fails if the test corpus is read between a
// tuning search's start and end, or tagged other than once per learner,
// after its search.
func checkNoTestDuringSearch(t *testing.T, events []string, learners ...string) {
	t.Helper()
	searching := ""
	tagged := map[string]int{}
	for _, e := range events {
		switch {
		case strings.HasPrefix(e, "tune start "):
			searching = strings.TrimPrefix(e, "tune start ")
		case strings.HasPrefix(e, "tune end "):
			searching = ""
		case strings.Contains(e, "test"):
			if searching != "" {
				t.Errorf("%q while tuning %s (events %v)", e, searching, events)
			}
			if l, ok := strings.CutPrefix(e, "tag test "); ok {
				tagged[l]++
			}
		}
	}
	for _, l := range learners {
		if tagged[l] != 1 {
			t.Errorf("test corpus tagged %d times for %s, want once (events %v)", tagged[l], l, events)
		}
	}
}

// TestTunePicksBestByDev tunes the HMM's smoothing on the dev corpus and
// checks each candidate's score against a plain run of that setting whose
// test corpus is the dev corpus, the pick against the best of those, and
// the final model against the plain run's model for the pick.
func TestTunePicksBestByDev(t *testing.T) {
	values := []string{"0.001", "0.1", "10"}
	tuned := loadSpec(t, posSpec(`learner "hmm" {
  type = "hmm"
}
tune "hmm" {
  emission_smoothing = [`+strings.Join(values, ", ")+`]
}`, `  dev = "dev"
  test = "test"`))
	res, events := runSpec(t, tuned, 2)
	checkNoTestDuringSearch(t, events, "hmm")
	tu := readTuning(t, res.Dir, "hmm")
	if tu.By != "dev" || tu.Corpus != "dev" || len(tu.Candidates) != len(values) {
		t.Fatalf("tuning record %+v", tu)
	}
	if mt := res.Metrics["hmm"].Tuning; mt == nil || !reflect.DeepEqual(mt.Candidates[0].Settings, tu.Candidates[0].Settings) {
		t.Errorf("metrics.json lacks the tuning record")
	}
	best, bestScore := -1, 0.0
	var bestModel *model.Model
	for i, v := range values {
		plain := loadSpec(t, posSpec(`learner "hmm" {
  type = "hmm"
  emission_smoothing = `+v+`
}`, `  dev = "dev"
  test = "dev"`))
		pres, _ := runSpec(t, plain, 2)
		got := tu.Candidates[i]
		if want := pres.Metrics["hmm"].MainValue; got.Score != want {
			t.Errorf("candidate %v: dev score %v, a plain run scores %v on dev", got.Settings, got.Score, want)
		}
		if best < 0 || got.Score > bestScore {
			best, bestScore = i, got.Score
			m, err := model.Load(rundir.ModelPath(pres.Dir, "hmm"))
			if err != nil {
				t.Fatal(err)
			}
			bestModel = m
		}
	}
	if scores := []float64{tu.Candidates[0].Score, tu.Candidates[1].Score, tu.Candidates[2].Score}; scores[0] == scores[1] && scores[1] == scores[2] {
		t.Fatalf("all candidates score %v: the test cannot tell a pick", scores)
	}
	if tu.Pick != best {
		t.Errorf("picked candidate %d, the best by dev is %d", tu.Pick, best)
	}
	m, err := model.Load(rundir.ModelPath(res.Dir, "hmm"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Linear.W, bestModel.Linear.W) {
		t.Errorf("the final model's weights differ from a plain run with the picked setting")
	}
	man, err := rundir.ReadManifest(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if ml := man.Learners["hmm"]; ml.TunedBy != "dev" || !reflect.DeepEqual(ml.Tuned, tu.Picked()) {
		t.Errorf("manifest learner %+v, want tuned %v by dev", ml, tu.Picked())
	}
	report, err := os.ReadFile(filepath.Join(res.Dir, rundir.ReportMarkdown))
	if err != nil || !strings.Contains(string(report), "## Tuning hmm") {
		t.Errorf("report.md has no tuning section (%v)", err)
	}
	html, err := os.ReadFile(filepath.Join(res.Dir, rundir.ReportHTML))
	if err != nil || !strings.Contains(string(html), `<section id="tuning">`) || !strings.Contains(string(html), "<strong>picked</strong>") {
		t.Errorf("report.html has no tuning section (%v)", err)
	}
}

// TestTuneCV tunes by cross-validation on a spec without a dev corpus and
// checks every candidate's fold scores against `evaluation { folds }`
// cross-validation of the same setting (the same seeded folds), the pick,
// that the search never reads the test corpus, and that the record does
// not depend on the thread count.
func TestTuneCV(t *testing.T) {
	values := []string{"1", "4"}
	src := chunkCVSpec(`learner "perceptron" {
  type = "perceptron"
}
tune "perceptron" {
  epochs    = [`+strings.Join(values, ", ")+`]
  min_count = [1, 2]
}`, `  test = "test"`)
	res, events := runSpec(t, loadSpec(t, src), 2)
	checkNoTestDuringSearch(t, events, "perceptron")
	tu := readTuning(t, res.Dir, "perceptron")
	if tu.By != "cv" || tu.Folds != spec.DefaultTuneFolds || len(tu.Candidates) != 4 {
		t.Fatalf("tuning record %+v", tu)
	}
	for _, c := range tu.Candidates {
		plain := loadSpec(t, chunkCVSpec(`learner "perceptron" {
  type = "perceptron"
  epochs = `+formatFloat(c.Settings["epochs"])+`
}`, `  folds = 3`))
		plain.Features.MinCount = int(c.Settings["min_count"])
		templates, _ := builtin.Registries()
		sums, err := CrossValidate(context.Background(), Options{Spec: plain, Templates: templates,
			OutDir: filepath.Join(t.TempDir(), "cv"), Threads: 1, Log: zerolog.Nop()})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(c.FoldScores, sums[0].Folds) || c.Score != sums[0].Mean {
			t.Errorf("candidate %v: folds %v mean %v; cross-validation gives %v mean %v", c.Settings, c.FoldScores, c.Score, sums[0].Folds, sums[0].Mean)
		}
	}
	for i, c := range tu.Candidates {
		if c.Score > tu.Candidates[tu.Pick].Score || (c.Score == tu.Candidates[tu.Pick].Score && i < tu.Pick) {
			t.Errorf("picked %d (%v), but %d scores %v", tu.Pick, tu.Candidates[tu.Pick].Score, i, c.Score)
		}
	}
	res1, _ := runSpec(t, loadSpec(t, src), 1)
	tu1 := readTuning(t, res1.Dir, "perceptron")
	for i := range tu.Candidates {
		tu.Candidates[i].TrainSeconds, tu1.Candidates[i].TrainSeconds = 0, 0
	}
	if !reflect.DeepEqual(tu, tu1) {
		t.Errorf("the search depends on the thread count:\n%+v\n%+v", tu, tu1)
	}
}

func formatFloat(v float64) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestTuneRandom checks that random search draws the same distinct
// candidates from the spec's seed, and others from another seed.
func TestTuneRandom(t *testing.T) {
	tu := &spec.Tune{Learner: "crf", Method: "random", Trials: 4, Settings: []spec.TuneSetting{
		{Name: "c1", Values: []float64{0, 0.1, 1}}, {Name: "c2", Values: []float64{0.1, 0.3, 1, 3}},
	}}
	a, b, c := tu.Candidates(1), tu.Candidates(1), tu.Candidates(2)
	if len(a) != 4 || !reflect.DeepEqual(a, b) {
		t.Fatalf("random candidates %v then %v", a, b)
	}
	if reflect.DeepEqual(a, c) {
		t.Errorf("seeds 1 and 2 draw the same candidates %v", a)
	}
	seen := map[string]bool{}
	for _, x := range a {
		k := formatFloat(x["c1"]) + "/" + formatFloat(x["c2"])
		if seen[k] {
			t.Errorf("candidate %s drawn twice", k)
		}
		seen[k] = true
	}
	tu.Method = "grid"
	if g := tu.Candidates(1); len(g) != 12 || g[0]["c1"] != 0 || g[0]["c2"] != 0.1 || g[1]["c2"] != 0.3 || g[11]["c1"] != 1 {
		t.Errorf("grid %v", g)
	}
}

// TestTuneThreads tunes the CRF, whose gradient is spread over the
// threads, by cross-validation with 1 and with 2 threads: the same record
// and the same final model bytes.
func TestTuneThreads(t *testing.T) {
	src := chunkCVSpec(`learner "crf" {
  type = "crf"
}
tune "crf" {
  c2    = [0.1, 30]
  folds = 2
}`, `  test = "test"`)
	var records []*rundir.Tuning
	var models [][]byte
	for _, threads := range []int{1, 2} {
		res, _ := runSpec(t, loadSpec(t, src), threads)
		tu := readTuning(t, res.Dir, "crf")
		for i := range tu.Candidates {
			tu.Candidates[i].TrainSeconds = 0
		}
		records = append(records, tu)
		b, err := os.ReadFile(rundir.ModelPath(res.Dir, "crf"))
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, b)
	}
	if !reflect.DeepEqual(records[0], records[1]) {
		t.Errorf("the search depends on the thread count:\n%+v\n%+v", records[0], records[1])
	}
	if string(models[0]) != string(models[1]) {
		t.Errorf("the tuned model's bytes depend on the thread count")
	}
	if c := records[0].Candidates; c[0].Score == c[1].Score {
		t.Errorf("both candidates score %v: a search that cannot tell them apart proves little", c[0].Score)
	}
}
