package run

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/rerank"
	"github.com/trellis-nlp/trellis/framework/rundir"
	"github.com/trellis-nlp/trellis/framework/spec"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

const rerankSpecSrc = `experiment "rerank" {
  seed = 5
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
    offsets = [0]
  }
  transition "trans" {}
}
learner "first" {
  type   = "perceptron"
  epochs = 2
  rerank {
    k       = 4
    folds   = 3
    trainer = "perceptron"
    epochs  = 3
  }
}
evaluation {
  train = "train"
  test  = "test"
}
`

func rerankSpec(t *testing.T) *spec.Spec { return nerDocsSpec(t, rerankSpecSrc) }

// TestRerankRun runs a reranked learner with 1 and 2 threads: the runs
// are identical to the byte; no fold model lists a sentence it trained
// on, folds hold whole documents; the model file carries the reranker,
// pinned; the metrics hold the oracle and first-pass F1 and the
// reranker's time; tagging the test corpus with the saved model (and a
// replica) gives the run's predictions file to the byte.
func TestRerankRun(t *testing.T) {
	s := rerankSpec(t)
	dirs, traces := runTwice(t, s, "rerank ")
	sents, err := readCorpus(s.Corpus("train"))
	if err != nil {
		t.Fatal(err)
	}
	// The trace reads "rerank first fold F trains|lists i j …"; the
	// stage check reads the same shape after its own prefix.
	for i, e := range traces {
		traces[i] = strings.Replace(strings.Replace(e, "rerank first", "stage pred", 1), " lists", " predicts", 1)
	}
	checkJackknifeTrace(t, traces, sents, 3)

	metrics, err := rundir.ReadMetrics(dirs[1])
	if err != nil {
		t.Fatal(err)
	}
	lm := metrics["first"]
	if lm.RerankSeconds <= 0 || lm.Rerank == nil || lm.Rerank.K != 4 {
		t.Fatalf("rerank metrics: seconds %v, figures %+v", lm.RerankSeconds, lm.Rerank)
	}
	if f1 := *lm.F1; lm.Rerank.OracleF1 < f1 || lm.Rerank.OracleF1 < lm.Rerank.FirstPassF1 {
		t.Errorf("oracle F1 %v below the reranked %v or the first pass's %v", lm.Rerank.OracleF1, f1, lm.Rerank.FirstPassF1)
	}
	t.Logf("F1 %v, figures %+v, %v s, traces %d", *lm.F1, *lm.Rerank, lm.RerankSeconds, len(traces))
	report, err := os.ReadFile(filepath.Join(dirs[1], rundir.ReportMarkdown))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), "## Reranking") || !strings.Contains(string(report), "| first | 4 | ") {
		t.Errorf("report.md without the reranker:\n%s", report)
	}
	m, err := model.Load(rundir.ModelPath(dirs[1], "first"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Reranker == nil || m.Rerank == nil || m.Rerank.K != 4 || m.Rerank.Folds != 3 || m.Rerank.Seed != 5 || m.Version != model.RerankVersion {
		t.Fatalf("model: version %d, rerank %+v", m.Version, m.Rerank)
	}
	checkRerankTagger(t, m, s, rundir.PredictionsPath(dirs[1], "first"))

	// The Go API's Train gives the run's model file, reranker included;
	// TrainSentences refuses a reranked learner (it jackknifes the corpus).
	templates, _ := builtin.Registries()
	tm, err := Train(context.Background(), Options{Spec: s, Templates: templates, Threads: 1, Log: zerolog.Nop()}, "first")
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := tm.Encode(&got); err != nil {
		t.Fatal(err)
	}
	if want, err := os.ReadFile(rundir.ModelPath(dirs[1], "first")); err != nil || !bytes.Equal(got.Bytes(), want) {
		t.Errorf("Train's model differs from the run's (%v)", err)
	}
	var ae *ArgumentError
	if _, err := TrainSentences(context.Background(), Options{Spec: s, Templates: templates, Log: zerolog.Nop()}, "first", sents, nil); !errors.As(err, &ae) {
		t.Errorf("TrainSentences of a reranked learner: %v", err)
	}
}

// checkRerankTagger tags the test corpus with a reranked model as `trellis
// tag` does, and with StreamParallel (replicas), and compares both with
// the run's predictions; the detail calls refuse the model.
func checkRerankTagger(t *testing.T, m *model.Model, s *spec.Spec, predictions string) {
	t.Helper()
	templates, _ := builtin.Registries()
	want, err := os.ReadFile(predictions)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := tagger.New(m, templates, tagger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	f, err := corpus.New(s.Corpus("test").Format)
	if err != nil {
		t.Fatal(err)
	}
	var replicas []*tagger.Tagger
	for range 2 {
		r, err := tg.Replica(templates)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		replicas = append(replicas, r)
	}
	for _, threads := range []int{1, 3} {
		in, err := os.Open(s.Corpus("test").Path)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		w := bufio.NewWriter(&got)
		r := f.NewReader(in, s.Corpus("test").Path, corpus.ReadOptions{})
		if threads == 1 {
			_, err = tg.Stream(context.Background(), r, f.NewWriter(w), nil, nil)
		} else {
			_, err = tg.StreamParallel(context.Background(), r, f.NewWriter(w), nil, nil, replicas)
		}
		in.Close()
		if err == nil {
			err = w.Flush()
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("tagging with %d threads differs from the run's predictions:\n%s\nwant\n%s", threads, got.Bytes(), want)
		}
	}
	test, err := readCorpus(s.Corpus("test"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.TagDetailed(test, 3); !errors.Is(err, tagger.ErrRerankDetail) {
		t.Errorf("n-best of a reranked model: %v", err)
	}
	if _, err := tagger.New(m, templates, tagger.Options{Decode: lattice.DecodeGreedy}); err == nil {
		t.Error("a reranked model decoded other than by viterbi")
	}
	lists, err := tg.Lists(test, 4)
	if err != nil || len(lists) != len(test) || slices.ContainsFunc(lists, func(l rerank.List) bool { return l.K() < 1 }) {
		t.Errorf("lists: %d for %d sentences, %v", len(lists), len(test), err)
	}
}

// noDocsSpec is nerDocsSpec's corpora without their -DOCSTART- lines: each
// file one document, as CoNLL-2000's are.
func noDocsSpec(t *testing.T, src string) *spec.Spec {
	strip := func(s string) string { return strings.ReplaceAll(s, "-DOCSTART- O\n\n", "") }
	return specBeside(t, src, strip(nerDocs(9, 0)), strip(nerDocs(3, 1)))
}

// TestRerankRunBySentence reranks on a train corpus without document
// boundaries: folds of documents are refused with a hint at by =
// "sentence"; with it, the runs with 1 and 2 threads are identical to the
// byte, no fold model lists a sentence it trained on, every sentence is
// listed once; the lists have no document; the reranker has every feature
// group but doc; the manifest records by; tagging the test file (one
// document) with the saved model gives the run's predictions.
func TestRerankRunBySentence(t *testing.T) {
	templates, _ := builtin.Registries()
	byDoc := noDocsSpec(t, rerankSpecSrc)
	_, err := Run(context.Background(), Options{Spec: byDoc, Templates: templates, OutDir: filepath.Join(t.TempDir(), "doc"), Threads: 1, Log: zerolog.Nop()})
	if err == nil || !strings.Contains(err.Error(), "1 documents, fewer than the 3 folds") || !strings.Contains(err.Error(), `by = "sentence"`) {
		t.Fatalf("folds of documents on one document: %v", err)
	}

	s := noDocsSpec(t, strings.Replace(rerankSpecSrc, "folds   = 3", "folds   = 3\n    by      = \"sentence\"", 1))
	dirs, traces := runTwice(t, s, "rerank ")
	sents, err := readCorpus(s.Corpus("train"))
	if err != nil {
		t.Fatal(err)
	}
	if docs := corpus.GroupDocuments(sents); len(docs) != 1 {
		t.Fatalf("the train corpus has %d documents, want 1", len(docs))
	}
	for i, e := range traces {
		traces[i] = strings.Replace(strings.Replace(e, "rerank first", "stage pred", 1), " lists", " predicts", 1)
	}
	// Each sentence its own document: checkJackknifeTrace's whole-document
	// check then holds trivially, and the rest (disjoint folds, each
	// sentence listed once) is checked as for documents.
	single := copySentences(sents, nil)
	for i, c := range single {
		c.Document = i
	}
	checkJackknifeTrace(t, traces, single, 3)

	m, err := model.Load(rundir.ModelPath(dirs[1], "first"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{rerank.GroupNGram, rerank.GroupTypes, rerank.GroupSpan, rerank.GroupWords, rerank.GroupRank}
	if m.Reranker == nil || m.Rerank == nil || m.Rerank.Folds != 3 || !slices.Equal(m.Reranker.Settings.Features, want) {
		t.Fatalf("model: rerank %+v, reranker %v", m.Rerank, m.Reranker != nil)
	}
	man, err := os.ReadFile(filepath.Join(dirs[1], rundir.ManifestFile))
	if err != nil || !regexp.MustCompile(`"by": *"sentence"`).Match(man) {
		t.Errorf("manifest without by (%v)", err)
	}
	checkRerankTagger(t, m, s, rundir.PredictionsPath(dirs[1], "first"))

	lists, folds, err := JackknifeLists(context.Background(), Options{Spec: s, Templates: templates, Threads: 1, Log: zerolog.Nop()}, "first", sents, s.Learner("first").Rerank)
	if err != nil {
		t.Fatal(err)
	}
	count := make([]int, 3)
	for i, l := range lists {
		if l.Doc != -1 || !slices.Equal(l.Gold, goldLabels(sents[i], 1)) {
			t.Errorf("list %d: doc %d, gold %v", i, l.Doc, l.Gold)
		}
		count[folds[i]]++
	}
	if count[0] != len(sents)/3 || count[1] != len(sents)/3 {
		t.Errorf("fold sizes %v of %d sentences", count, len(sents))
	}
}
