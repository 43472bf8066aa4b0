// experiment_test.go is the CoNLL-2003 reranking measurement, not a unit
// test: it runs only with TRELLIS_RERANK_EXPERIMENT set (see docs). Step
// "lists" trains the spec's first pass jackknifed on eng.train and on all
// of eng.train, and writes the k-best lists of eng.train (jackknifed) and
// eng.testa under TRELLIS_RERANK_DIR; step "rerank" reads them, picks the
// reranker's settings on held-out train lists and scores eng.testa. Other
// specs and corpora by TRELLIS_RERANK_SPEC (its train and test corpora),
// folds of sentences by TRELLIS_RERANK_BY=sentence and IOB2 labels by
// TRELLIS_RERANK_SCHEME=iob2 (CoNLL-2000).
package rerank_test

import (
	"context"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/rerank"
	"github.com/trellis-nlp/trellis/framework/run"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/spec"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// expConfig is the experiment's environment.
type expConfig struct {
	spec, learner, dir string
	folds, k, threads  int
	seed               uint64 // the reranker's (the perceptron's shuffling)
	// by is the fold unit (spec.StageByDocument or StageBySentence);
	// scheme the labels' (IOB1 for CoNLL-2003, IOB2 for CoNLL-2000).
	by     string
	scheme scheme.Scheme
}

func experimentConfig(t *testing.T, step string) expConfig {
	if os.Getenv("TRELLIS_RERANK_EXPERIMENT") != step {
		t.Skipf("set TRELLIS_RERANK_EXPERIMENT=%s to run the measurement", step)
	}
	c := expConfig{spec: "../../specs/conll2003.hcl", learner: "crf", dir: "/tmp/rerank", folds: 5, k: 20, threads: 2}
	if v := os.Getenv("TRELLIS_RERANK_SPEC"); v != "" {
		c.spec = v
	}
	if v := os.Getenv("TRELLIS_RERANK_LEARNER"); v != "" {
		c.learner = v
	}
	if v := os.Getenv("TRELLIS_RERANK_DIR"); v != "" {
		c.dir = v
	}
	if v, err := strconv.Atoi(os.Getenv("TRELLIS_RERANK_FOLDS")); err == nil {
		c.folds = v
	}
	if v, err := strconv.Atoi(os.Getenv("TRELLIS_RERANK_K")); err == nil {
		c.k = v
	}
	if v, err := strconv.Atoi(os.Getenv("TRELLIS_RERANK_THREADS")); err == nil && v > 0 {
		c.threads = v
	}
	c.seed = 1
	if v, err := strconv.ParseUint(os.Getenv("TRELLIS_RERANK_SEED"), 10, 64); err == nil {
		c.seed = v
	}
	c.by, c.scheme = spec.StageByDocument, scheme.IOB1
	if v := os.Getenv("TRELLIS_RERANK_BY"); v != "" {
		c.by = v
	}
	if v := os.Getenv("TRELLIS_RERANK_SCHEME"); v != "" {
		var err error
		if c.scheme, err = scheme.Parse(v); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// TestExperimentLists writes <dir>/<learner>-train.gob (jackknifed) and
// <dir>/<learner>-testa.gob.
func TestExperimentLists(t *testing.T) {
	c := experimentConfig(t, "lists")
	templates, learners := builtin.Registries()
	s, diags := spec.LoadFile(c.spec, nil, spec.Registries{Templates: templates, Learners: learners})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	train, word, label := readCorpus(t, s, s.Evaluation.Train)
	test, _, _ := readCorpus(t, s, s.Evaluation.Test)
	ro := run.Options{Spec: s, Templates: templates, Threads: c.threads, Log: zerolog.Nop()}
	ctx := context.Background()
	fit := func(name string, idx []int) *model.Model {
		t0 := time.Now()
		m, err := run.TrainSentences(ctx, ro, c.learner, copySentences(train, idx), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: trained on %d sentences in %.0fs", name, len(idx), time.Since(t0).Seconds())
		return m
	}
	// The jackknifed lists as a rerank block's run makes them.
	t0 := time.Now()
	trainLists, folds, err := run.JackknifeLists(ctx, ro, c.learner, train, &spec.Rerank{Folds: c.folds, K: c.k, By: c.by})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("jackknifed lists of %d folds in %.0fs", c.folds, time.Since(t0).Seconds())
	full := fit("all of train", indices(len(train)))
	testLists, err := listSentences(full, templates, test, c.k, word, label)
	if err != nil {
		t.Fatal(err)
	}
	testDocs := rerank.DocKeys(test)
	for i := range testLists {
		testLists[i].Doc = testDocs[i]
	}
	// The fold of each train list goes with them, for held-out splits by document.
	writeGob(t, filepath.Join(c.dir, c.learner+"-train.gob"), savedLists{Lists: trainLists, Folds: folds})
	writeGob(t, filepath.Join(c.dir, c.learner+"-testa.gob"), savedLists{Lists: testLists})
}

// savedLists is the file the lists step writes.
type savedLists struct {
	Lists []rerank.List
	Folds []int
}

func readCorpus(t *testing.T, s *spec.Spec, name string) (sents []*corpus.Sentence, word, label int) {
	c := s.Corpus(name)
	f, err := corpus.New(c.Format)
	if err != nil {
		t.Fatal(err)
	}
	sents, err = corpus.ReadAll(f, c.Path, corpus.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return sents, slices.Index(f.Columns(), "word"), f.LabelColumn()
}

func indices(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// copySentences copies sents[idx] with token rows of their own, since
// training may re-encode gold labels in place.
func copySentences(sents []*corpus.Sentence, idx []int) []*corpus.Sentence {
	out := make([]*corpus.Sentence, len(idx))
	for j, i := range idx {
		s := *sents[i]
		s.Tokens = make([][]string, len(s.Tokens))
		for r, row := range sents[i].Tokens {
			s.Tokens[r] = slices.Clone(row)
		}
		out[j] = &s
	}
	return out
}

// listSentences tags sents with model m's k best paths, all at once so
// documents stay whole.
func listSentences(m *model.Model, reg *feature.Registry, sents []*corpus.Sentence, k, word, label int) ([]rerank.List, error) {
	tg, err := tagger.New(m, reg, tagger.Options{})
	if err != nil {
		return nil, err
	}
	defer tg.Close()
	decoded, err := tg.TagDetailed(sents, k)
	if err != nil {
		return nil, err
	}
	out := make([]rerank.List, len(sents))
	for j, s := range sents {
		l := rerank.List{Doc: -1, Labels: decoded[j].Paths, Scores: decoded[j].Scores,
			Words: make([]string, s.Len()), Gold: make([]string, s.Len())}
		for i, tok := range s.Tokens {
			l.Words[i], l.Gold[i] = tok[word], tok[label]
		}
		if err := l.Check(); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", s.File, s.Line, err)
		}
		out[j] = l
	}
	return out, nil
}

func writeGob(t *testing.T, path string, v any) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := gob.NewEncoder(f).Encode(v); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func readGob(t *testing.T, path string, v any) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := gob.NewDecoder(f).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// TestExperimentRerank reads the lists step's files, chooses the
// reranker's settings on the train lists of the first fifth of the
// folds (trained on the other folds' lists), retrains the choice on all train lists and scores
// eng.testa: the first pass's 1-best, the oracles, the reranked choice and
// the paired test of reranked against 1-best.
func TestExperimentRerank(t *testing.T) {
	c := experimentConfig(t, "rerank")
	var train, test savedLists
	readGob(t, filepath.Join(c.dir, c.learner+"-train.gob"), &train)
	readGob(t, filepath.Join(c.dir, c.learner+"-testa.gob"), &test)
	cut(train.Lists, c.k)
	cut(test.Lists, c.k)
	ctx := context.Background()
	grid := settingsGrid(c.seed, c.by)
	best, bestF1 := grid[0], -1.0
	var fitPart, held []rerank.List
	// The held-out part is a fifth of the folds (whole documents).
	heldFolds := max(1, c.folds/5)
	for i, f := range train.Folds {
		if f < heldFolds {
			held = append(held, train.Lists[i])
		} else {
			fitPart = append(fitPart, train.Lists[i])
		}
	}
	for _, s := range grid {
		t0 := time.Now()
		m, err := rerank.Train(ctx, fitPart, s)
		if err != nil {
			t.Fatal(err)
		}
		choice, err := m.Rerank(held)
		if err != nil {
			t.Fatal(err)
		}
		f1 := *evalF1(held, choice, c.scheme).F1
		t.Logf("held-out folds <%d: %-50s F1 %.2f (1-best %.2f) %5.1fs, %d features", heldFolds, describe(s), 100*f1,
			100**evalF1(held, make([]int, len(held)), c.scheme).F1, time.Since(t0).Seconds(), len(m.Features))
		if f1 > bestF1 {
			best, bestF1 = s, f1
		}
	}
	t.Logf("chosen: %s", describe(best))
	if os.Getenv("TRELLIS_RERANK_ABLATION") != "" {
		ablation(t, best, fitPart, held, c.scheme)
	}
	m, err := rerank.Train(ctx, train.Lists, best)
	if err != nil {
		t.Fatal(err)
	}
	report(t, m, test.Lists, c)
}

// ablation trains s without each feature group in turn, and with none,
// on the fit part and scores the held-out lists.
func ablation(t *testing.T, s rerank.Settings, fitPart, held []rerank.List, sch scheme.Scheme) {
	variants := [][]string{{}}
	for _, g := range rerank.Groups {
		variants = append(variants, slices.DeleteFunc(slices.Clone(rerank.Groups), func(h string) bool { return h == g }))
	}
	for _, v := range variants {
		s.Features = v
		m, err := rerank.Train(context.Background(), fitPart, s)
		if err != nil {
			t.Fatal(err)
		}
		choice, err := m.Rerank(held)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("ablation on held-out: %-60s F1 %.2f", describe(s), 100**evalF1(held, choice, sch).F1)
	}
}

// cut keeps the k best candidates of each list.
func cut(lists []rerank.List, k int) {
	for i := range lists {
		if len(lists[i].Labels) > k {
			lists[i].Labels, lists[i].Scores = lists[i].Labels[:k], lists[i].Scores[:k]
		}
	}
}

// settingsGrid is the settings the held-out folds choose among; with
// folds of sentences, every feature group but doc, as a rerank block with
// by = "sentence" has them (spec.Rerank).
// TRELLIS_RERANK_EPOCHS and TRELLIS_RERANK_C2S replace the grid's
// perceptron epochs and maxent c2 values (comma-separated; "-" for none).
func settingsGrid(seed uint64, by string) []rerank.Settings {
	var groups []string
	if by == spec.StageBySentence {
		groups = slices.DeleteFunc(slices.Clone(rerank.Groups), func(g string) bool { return g == rerank.GroupDoc })
	}
	epochs, c2s := []int{5, 10, 20}, []float64{0.1, 1, 10}
	if v := os.Getenv("TRELLIS_RERANK_EPOCHS"); v != "" {
		epochs = nil
		for _, f := range strings.Split(v, ",") {
			if e, err := strconv.Atoi(f); err == nil {
				epochs = append(epochs, e)
			}
		}
	}
	if v := os.Getenv("TRELLIS_RERANK_C2S"); v != "" {
		c2s = nil
		for _, f := range strings.Split(v, ",") {
			if c, err := strconv.ParseFloat(f, 64); err == nil {
				c2s = append(c2s, c)
			}
		}
	}
	var out []rerank.Settings
	for _, e := range epochs {
		s := rerank.DefaultSettings()
		s.Epochs, s.Seed, s.Features = e, seed, groups
		out = append(out, s)
	}
	for _, c2 := range c2s {
		s := rerank.DefaultSettings()
		s.Trainer, s.C2, s.Seed, s.Features = rerank.TrainerMaxEnt, c2, seed, groups
		out = append(out, s)
	}
	return out
}

func describe(s rerank.Settings) string {
	groups := "all"
	if s.Features != nil {
		groups = fmt.Sprint(s.Features)
	}
	if s.Trainer == rerank.TrainerPerceptron {
		return fmt.Sprintf("perceptron epochs=%d features=%s", s.Epochs, groups)
	}
	return fmt.Sprintf("maxent c2=%g features=%s", s.C2, groups)
}

func evalF1(lists []rerank.List, choice []int, sch scheme.Scheme) *eval.Result {
	return eval.Evaluate(rerank.Sentences(lists, choice), eval.Options{Scheme: sch})
}

// report scores m on the test lists against their 1-best and oracles.
func report(t *testing.T, m *rerank.Model, test []rerank.List, c expConfig) {
	t0 := time.Now()
	choice, err := m.Rerank(test)
	if err != nil {
		t.Fatal(err)
	}
	sec := time.Since(t0).Seconds()
	t.Logf("reranking %d lists took %.2fs (%.0f sentences/s), model %d features", len(test), sec, float64(len(test))/sec, len(m.Features))
	first := make([]int, len(test))
	ex, err := rerank.NewExtractor(rerank.NewDict(), nil)
	if err != nil {
		t.Fatal(err)
	}
	set, err := rerank.Encode(test, ex)
	if err != nil {
		t.Fatal(err)
	}
	oracle, oc := set.Oracle()
	sentOracle := set.SentenceOracle()
	rows := []struct {
		name   string
		choice []int
	}{{"first pass 1-best", first}, {fmt.Sprintf("%d-best oracle (corpus)", c.k), oracle},
		{fmt.Sprintf("%d-best oracle (per sentence)", c.k), sentOracle}, {"reranked", choice}}
	for _, r := range rows {
		res := evalF1(test, r.choice, c.scheme)
		lo, hi, err := eval.Interval(rerank.Sentences(test, r.choice), eval.Options{Scheme: c.scheme}, 1000, 1)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("| %s | %.2f | %.2f–%.2f | %.2f | %.2f |", r.name, 100**res.F1, 100*lo, 100*hi, 100**res.Precision, 100**res.Recall)
	}
	t.Logf("oracle counts %+v F1 %.4f", oc, oc.F1())
	cmp, err := eval.Compare(rerank.Sentences(test, choice), rerank.Sentences(test, first), eval.Options{Scheme: c.scheme}, 10000, 1)
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for _, j := range choice {
		if j != 0 {
			changed++
		}
	}
	t.Logf("reranked − 1-best: %+.2f F1, 95%% CI [%+.2f, %+.2f], p = %.4f (AR, 10000 samples); %d of %d sentences changed",
		100*cmp.Diff, 100*cmp.CILow, 100*cmp.CIHigh, cmp.PValue, changed, len(test))
}
