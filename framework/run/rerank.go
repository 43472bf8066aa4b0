// rerank.go trains a learner's reranker (a rerank block): the learner, the
// first pass, is jackknifed on the train corpus by folds of whole
// documents (or of sentences, by = "sentence"), each fold listed (k best)
// by the learner trained on the others, and a rerank.Model is trained on
// those lists; the model file carries it. It also scores the test
// corpus's k-best lists: their oracle and the first pass's 1-best, beside
// the reranked labels tagging gives.

package run

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/rerank"
	"github.com/trellis-nlp/trellis/framework/rundir"
	"github.com/trellis-nlp/trellis/framework/spec"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// rerankRun is a trained reranker: the model, what the model file's
// header records of it, and the time jackknifing and training took.
type rerankRun struct {
	model   *rerank.Model
	info    model.Rerank
	seconds float64
}

// attachReranker trains li's reranker (when li has a rerank block) and
// puts it into m, the first pass trained on all of train; it returns the
// seconds that took (0 without a rerank block).
func attachReranker(ctx context.Context, ss *session, li *spec.LearnerInstance, m *model.Model) (float64, error) {
	if li.Rerank == nil {
		return 0, nil
	}
	rr, err := trainReranker(ctx, ss, li)
	if err != nil {
		return 0, fmt.Errorf("rerank: %w", err)
	}
	m.Reranker, m.Rerank = rr.model, &rr.info
	return rr.seconds, nil
}

// trainReranker jackknifes learner li on the train corpus and trains its
// reranker on the lists. The fold models train as a stage's first stage
// does (stage.go): on copies of the fold's sentences, without the dev
// corpus, with the block's settings; a fold lists its held-out sentences
// all at once, so documents (by document) stay whole.
func trainReranker(ctx context.Context, ss *session, li *spec.LearnerInstance) (*rerankRun, error) {
	s, rb := ss.spec, li.Rerank
	fs := *s
	fs.Features.Templates, fs.Learners, fs.Tunes = s.TemplatesFor(li), []*spec.LearnerInstance{li}, nil
	fo := ss.inner(&fs, ss.log.With().Str("rerank", li.Name).Logger())

	t0 := time.Now()
	trainC := s.Corpus(s.Evaluation.Train)
	ss.trace("read " + trainC.Name)
	sents, err := readCorpus(trainC)
	if err != nil {
		return nil, err
	}
	lists, _, err := jackknifeLists(ctx, fo, li, sents, rb)
	if err != nil {
		return nil, err
	}
	fo.log.Info().Int("lists", len(lists)).Str("by", rb.FoldUnit()).Str("trainer", rb.Settings.Trainer).Msg("training the reranker")
	rm, err := rerank.Train(ctx, lists, rb.Settings)
	if err != nil {
		return nil, err
	}
	rr := &rerankRun{model: rm, info: model.Rerank{K: rb.K, Folds: rb.Folds, By: rb.By, Seed: s.Seed}, seconds: time.Since(t0).Seconds()}
	ss.log.Info().Str("learner", li.Name).Int("features", len(rm.Features)).Float64("seconds", rr.seconds).Msg("first pass jackknifed, reranker trained")
	return rr, nil
}

// JackknifeLists lists every sentence of sents (whole documents, the
// spec's train corpus format, gold in its label column) with the rb.K best
// paths of the spec's learner trained on the other folds: rb.Folds folds of
// whole documents, or of sentences when rb.By says so, dealt by the spec's
// seed (the result's folds, an [n] slice whose element i is sentence i's
// fold). The lists carry gold labels and the corpus's document keys
// (rerank.DocKeys), or none (Doc −1) when folds are sentences. It is how a
// rerank block's training lists are made, for programs that measure
// rerankers (framework/rerank's experiment); the learner trains without
// its rerank block, and rb's Settings are not read.
func JackknifeLists(ctx context.Context, o Options, learner string, sents []*corpus.Sentence, rb *spec.Rerank) ([]rerank.List, []int, error) {
	ss := newSession(&o)
	li, err := oneLearner(ss.spec, learner)
	if err != nil {
		return nil, nil, err
	}
	return jackknifeLists(ctx, ss, li, sents, rb)
}

// jackknifeLists is JackknifeLists for learner li; ss's spec must hold li.
func jackknifeLists(ctx context.Context, ss *session, li *spec.LearnerInstance, sents []*corpus.Sentence, rb *spec.Rerank) ([]rerank.List, []int, error) {
	s, nFolds, k, by := ss.spec, rb.Folds, rb.K, rb.FoldUnit()
	labelCol, err := labelColumn(s.Corpus(s.Evaluation.Train))
	if err != nil {
		return nil, nil, err
	}
	folds, err := dealFolds(sents, nFolds, by, s.Seed)
	if err != nil {
		return nil, nil, fmt.Errorf("rerank: %w", err)
	}
	lists, err := jackknife(folds, nFolds, func(f int, train []int) (predictor[rerank.List], error) {
		ss.log.Info().Int("fold", f).Int("folds", nFolds).Int("sentences", len(train)).Msg("training a jackknifing fold")
		m, err := trainSentences(ctx, ss, li, copySentences(sents, train), nil)
		if err != nil {
			return nil, fmt.Errorf("fold %d: %w", f, err)
		}
		traceIndices(ss, fmt.Sprintf("rerank %s fold %d trains", li.Name, f), train)
		return func(held []int) ([]rerank.List, error) {
			traceIndices(ss, fmt.Sprintf("rerank %s fold %d lists", li.Name, f), held)
			return listSentences(m, ss, sents, held, k)
		}, nil
	})
	if err != nil {
		return nil, nil, err
	}
	// The lists' document keys were a fold's; the reranker's document
	// features need the corpus's. With folds of sentences a document's
	// other sentences were listed by fold models that trained on this
	// sentence, so their 1-best would echo its gold labels: the lists get
	// no document (Doc −1), and no document feature is learnt from them
	// (spec.Rerank leaves the doc group out for by = "sentence").
	docs := rerank.DocKeys(sents)
	for i := range lists {
		lists[i].Doc = docs[i]
		if by != spec.StageByDocument {
			lists[i].Doc = -1
		}
		lists[i].Gold = goldLabels(sents[i], labelCol)
	}
	return lists, folds, nil
}

// listSentences lists sents[held] with model m's k best paths through the
// tagger, as `trellis tag` decodes them (the corpus's scheme), all at once.
func listSentences(m *model.Model, ss *session, sents []*corpus.Sentence, held []int, k int) ([]rerank.List, error) {
	tg, err := tagger.New(m, ss.opts.Templates, tagger.Options{})
	if err != nil {
		return nil, err
	}
	defer tg.Close()
	part := make([]*corpus.Sentence, len(held))
	for j, i := range held {
		part[j] = sents[i]
	}
	return tg.Lists(part, k)
}

// goldLabels is an [n] slice of s's gold labels (its label column).
func goldLabels(s *corpus.Sentence, labelCol int) []string {
	out := make([]string, s.Len())
	for i, tok := range s.Tokens {
		out[i] = tok[labelCol]
	}
	return out
}

// rerankFigures scores the test corpus's k-best lists of the reranked
// model m: the best corpus F1 any choice among them reaches (the oracle)
// and the first pass's 1-best F1, with the sentences whose reranked choice
// is not the 1-best. The lists come from m's first pass through the tagger,
// in batches of whole documents, as tagging m makes them.
func rerankFigures(ss *session, m *model.Model) (*rundir.RerankFigures, error) {
	s := ss.spec
	testC := s.Corpus(s.Evaluation.Test)
	sents, err := readCorpus(testC)
	if err != nil {
		return nil, err
	}
	labelCol, err := labelColumn(testC)
	if err != nil {
		return nil, err
	}
	first := *m
	first.Reranker, first.Rerank = nil, nil
	tg, err := tagger.New(&first, ss.opts.Templates, tagger.Options{})
	if err != nil {
		return nil, err
	}
	defer tg.Close()
	fig := &rundir.RerankFigures{K: m.Rerank.K}
	var all []rerank.List
	for _, batch := range documentBatches(sents) {
		lists, err := tg.Lists(batch, m.Rerank.K)
		if err != nil {
			return nil, err
		}
		choice, err := m.Reranker.Rerank(lists)
		if err != nil {
			return nil, err
		}
		for j := range lists {
			lists[j].Gold = goldLabels(batch[j], labelCol)
			if choice[j] != 0 {
				fig.Changed++
			}
		}
		all = append(all, lists...)
	}
	// No feature group: the set holds the span counts the oracle reads.
	ex, err := rerank.NewExtractor(rerank.NewDict(), []string{})
	if err != nil {
		return nil, err
	}
	set, err := rerank.Encode(all, ex)
	if err != nil {
		return nil, err
	}
	_, oracle := set.Oracle()
	fig.OracleF1 = oracle.F1()
	res := eval.Evaluate(rerank.Sentences(all, make([]int, len(all))), eval.Options{Scheme: s.Labels.Scheme})
	if res.F1 != nil {
		fig.FirstPassF1 = *res.F1
	}
	return fig, nil
}

// documentBatches cuts sents into batches of about tagger.BatchSize
// sentences that end only between documents (tagger.EndsBatch's rule).
func documentBatches(sents []*corpus.Sentence) [][]*corpus.Sentence {
	var out [][]*corpus.Sentence
	start := 0
	for i := 1; i <= len(sents); i++ {
		if i == len(sents) || (i-start >= tagger.BatchSize && !corpus.SameDocument(sents[i-1], sents[i])) {
			out = append(out, sents[start:i])
			start = i
		}
	}
	return out
}

// rerankMarkdown renders the run's reranked learners as a Markdown section
// ("" when it has none): the test corpus's first-pass 1-best, k-best
// oracle and reranked F1, the sentences reranking changed, and the
// reranker's time.
func rerankMarkdown(res *Result) string {
	var b strings.Builder
	for _, name := range res.Order {
		lm := res.Metrics[name]
		if lm.Rerank == nil {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("\n## Reranking\n\n| learner | k | first pass F1 | k-best oracle F1 | reranked F1 | sentences changed | reranker s |\n|---|---|---|---|---|---|---|\n")
		}
		f1 := 0.0
		if lm.F1 != nil {
			f1 = *lm.F1
		}
		fmt.Fprintf(&b, "| %s | %d | %.2f | %.2f | %.2f | %d | %.1f |\n",
			name, lm.Rerank.K, 100*lm.Rerank.FirstPassF1, 100*lm.Rerank.OracleF1, 100*f1, lm.Rerank.Changed, lm.RerankSeconds)
	}
	return b.String()
}
