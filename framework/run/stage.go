// Second stages: a first stage jackknifed into a column of the second, or
// a trained model (a model stage) run into it.

package run

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/rundir"
	"github.com/trellis-nlp/trellis/framework/spec"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// stageRun is the first stage of a second stage's encoding: the first
// stage trained on the whole train corpus (what the second stage's model
// file carries and runs before it), what the manifest and the model record
// of it, and the time it took (jackknifing included).
type stageRun struct {
	model   *model.Model
	info    model.Stage
	seconds float64
}

// stagedEncodings are a run's second-stage encodings, one per distinct
// stage, built when a learner first needs one.
type stagedEncodings map[string]*encoded

// get returns the encoding learner li trains on: base for a learner
// without a stage, else its stage's.
func (se stagedEncodings) get(ctx context.Context, ss *session, base *encoded, li *spec.LearnerInstance) (*encoded, error) {
	st := li.Stage
	if st == nil {
		return base, nil
	}
	key := fmt.Sprintf("%q %q %d %q", st.From, st.Column, st.Folds, st.By)
	if st.Source == spec.StageModel {
		key = fmt.Sprintf("model %q %q", st.Model, st.Column)
	}
	if enc, ok := se[key]; ok {
		return enc, nil
	}
	enc, err := stagedEncoding(ctx, ss, li)
	if err != nil {
		return nil, err
	}
	se[key] = enc
	return enc, nil
}

// close releases the encodings' extractors.
func (se stagedEncodings) close() {
	for _, enc := range se {
		enc.mapper.Close()
	}
}

// stageLabels is what a first stage gives its second: the train corpus's
// stage column, a labeller of other sentences (the dev corpus's), and the
// first stage as the second stage's model file carries it.
type stageLabels struct {
	train [][]string
	label func([]*corpus.Sentence) ([][]string, error)
	run   *stageRun
}

// stagedEncoding builds the encoding of second-stage learner li: the
// train and dev corpora with its stage's column (jackknifedStage,
// modelStage) added after the format's, encoded on the spec's templates
// that read no stage column and those that read its own.
func stagedEncoding(ctx context.Context, ss *session, li *spec.LearnerInstance) (*encoded, error) {
	s, st := ss.spec, li.Stage
	t0 := time.Now()
	ss.trace("read " + s.Evaluation.Train)
	sents, err := readCorpus(s.Corpus(s.Evaluation.Train))
	if err != nil {
		return nil, err
	}
	var sl *stageLabels
	if st.Source == spec.StageModel {
		sl, err = modelStage(ss, st, sents)
	} else {
		sl, err = jackknifedStage(ctx, ss, st, sents)
	}
	if err != nil {
		return nil, err
	}
	addColumn(sents, sl.train)
	f, err := corpus.New(s.Corpus(s.Evaluation.Train).Format)
	if err != nil {
		return nil, err
	}
	mp, err := newMapper(s, s.TemplatesFor(li), feature.Columns{Names: append(slices.Clone(f.Columns()), st.Column), Label: f.LabelColumn()})
	if err != nil {
		return nil, err
	}
	readDev := func() ([]*corpus.Sentence, error) {
		if s.Evaluation.Dev == "" {
			return nil, nil
		}
		ss.trace("read " + s.Evaluation.Dev)
		dev, err := readCorpus(s.Corpus(s.Evaluation.Dev))
		if err != nil {
			return nil, err
		}
		p, err := sl.label(dev)
		if err != nil {
			return nil, fmt.Errorf("stage %q on the dev corpus: %w", st.Column, err)
		}
		addColumn(dev, p)
		return dev, nil
	}
	sl.run.seconds = time.Since(t0).Seconds()
	enc, err := encodeSentences(ctx, ss, mp, sents, readDev)
	if err != nil {
		mp.Close()
		return nil, err
	}
	enc.stage = sl.run
	msg := "first stage trained and jackknifed"
	if st.Source == spec.StageModel {
		msg = "stage model run on the train and dev corpora"
	}
	ss.log.Info().Str("learner", li.Name).Str("stage", st.Column).Float64("seconds", sl.run.seconds).Msg(msg)
	return enc, nil
}

// jackknifedStage labels the train corpus sents by K-fold jackknifing:
// fold f's labels are predicted by the first stage trained on the other
// folds, so no sentence is labelled by a model that trained on it. The
// first stage trained on all of train labels the dev corpus (and, inside
// the saved model, the test corpus and whatever `trellis tag` is given).
// The first stage trains on the spec's templates that read no stage
// column, without the dev corpus (as every fold model does), with its
// declared settings (a tune block of its own does not apply here).
func jackknifedStage(ctx context.Context, ss *session, st *spec.Stage, sents []*corpus.Sentence) (*stageLabels, error) {
	s := ss.spec
	first := s.Learner(st.From)
	if first == nil || first.Stage != nil {
		return nil, fmt.Errorf("stage: from = %q is not a first-stage learner of the spec", st.From)
	}
	fs := *s
	fs.Features.Templates, fs.Learners, fs.Tunes = s.TemplatesFor(first), []*spec.LearnerInstance{first}, nil
	fo := ss.inner(&fs, ss.log.With().Str("stage", st.Column).Str("first", first.Name).Logger())
	folds, err := dealFolds(sents, st.Folds, st.By, s.Seed)
	if err != nil {
		return nil, fmt.Errorf("stage: %w", err)
	}
	preds, err := jackknife(folds, st.Folds, func(f int, train []int) (predictor[[]string], error) {
		fo.log.Info().Int("fold", f).Int("folds", st.Folds).Int("sentences", len(train)).Msg("training a jackknifing fold")
		m, err := trainNamedSentences(ctx, fo, first.Name, copySentences(sents, train), nil)
		if err != nil {
			return nil, fmt.Errorf("stage %q, fold %d: %w", st.Column, f, err)
		}
		traceIndices(ss, fmt.Sprintf("stage %s fold %d trains", st.Column, f), train)
		predict := taggerPredictor(m, ss.opts.Templates, sents)
		return func(held []int) ([][]string, error) {
			traceIndices(ss, fmt.Sprintf("stage %s fold %d predicts", st.Column, f), held)
			return predict(held)
		}, nil
	})
	if err != nil {
		return nil, err
	}
	fo.log.Info().Msg("training the first stage on the whole train corpus")
	full, err := trainNamedSentences(ctx, fo, first.Name, copySentences(sents, nil), nil)
	if err != nil {
		return nil, fmt.Errorf("stage %q: %w", st.Column, err)
	}
	info, err := stageInfo(full, model.Stage{Column: st.Column, Learner: first.Name, Type: first.Type, Folds: st.Folds, By: st.By, Seed: s.Seed})
	if err != nil {
		return nil, err
	}
	label := func(part []*corpus.Sentence) ([][]string, error) {
		all := make([]int, len(part))
		for k := range all {
			all[k] = k
		}
		return taggerPredictor(full, ss.opts.Templates, part)(all)
	}
	return &stageLabels{train: preds, label: label, run: &stageRun{model: full, info: info}}, nil
}

// modelStage labels the train corpus sents with a model stage's model,
// which did not train on them, and gives the labeller of the dev corpus
// (the same model, as the saved second stage runs it).
func modelStage(ss *session, st *spec.Stage, sents []*corpus.Sentence) (*stageLabels, error) {
	m := st.Loaded
	if m == nil {
		return nil, fmt.Errorf("stage %q: model %q was not loaded with the spec", st.Column, st.Model)
	}
	label := func(part []*corpus.Sentence) ([][]string, error) {
		tg, err := ss.spec.StageFeed(m, ss.opts.Templates)
		if err != nil {
			return nil, fmt.Errorf("stage %q: %s: %w", st.Column, st.Model, err)
		}
		defer tg.Close()
		return tg.Tag(part)
	}
	ss.log.Info().Str("stage", st.Column).Str("model", st.Model).Msg("labelling the train corpus with the stage model")
	train, err := label(sents)
	if err != nil {
		return nil, err
	}
	info, err := stageInfo(m, model.Stage{Column: st.Column, Model: st.Model, Learner: m.Learner.Name, Type: m.Learner.Type})
	if err != nil {
		return nil, err
	}
	return &stageLabels{train: train, label: label, run: &stageRun{model: m, info: info}}, nil
}

// stageInfo returns info with the size and SHA-256 of m's file, as the
// second stage's model file will carry it.
func stageInfo(m *model.Model, info model.Stage) (model.Stage, error) {
	var buf bytes.Buffer
	if err := m.Encode(&buf); err != nil {
		return info, err
	}
	sum := sha256.Sum256(buf.Bytes())
	info.Bytes, info.SHA256 = buf.Len(), hex.EncodeToString(sum[:])
	return info, nil
}

// traceIndices passes "what i j k…" to Options.onTrace (tests), when set.
func traceIndices(ss *session, what string, idx []int) {
	if ss.onTrace == nil {
		return
	}
	b := []byte(what)
	for _, i := range idx {
		b = fmt.Appendf(b, " %d", i)
	}
	ss.trace(string(b))
}

// stagesMarkdown renders the run's second stages as a Markdown section
// ("" when it has none): each one's first stage (a learner or a model),
// column, folds and time.
func stagesMarkdown(res *Result, man *rundir.Manifest) string {
	var b strings.Builder
	for _, name := range res.Order {
		st := man.Learners[name].Stage
		if st == nil {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("\n## Stages\n\n| learner | first stage | column | jackknifing | first stage s | first-stage model sha256 |\n|---|---|---|---|---|---|\n")
		}
		first, jackknifing := fmt.Sprintf("%s (%s)", st.Learner, st.Type), fmt.Sprintf("%d folds by %s, seed %d", st.Folds, st.By, st.Seed)
		if st.Fed() {
			first, jackknifing = fmt.Sprintf("model %s (%s)", st.Model, st.Type), "none: a trained model"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.1f | %s |\n", name, first, st.Column, jackknifing, res.Metrics[name].StageSeconds, st.SHA256)
	}
	return b.String()
}

// predictor labels the sentences of the given indices: an element of T
// per index, in the order given (a stage's labels, a reranker's k-best
// list).
type predictor[T any] func(held []int) ([]T, error)

// taggerPredictor tags sents[held] with model m, as `trellis tag` would
// (the corpus's scheme), all at once so documents stay whole; the tagger
// is closed after the one call.
func taggerPredictor(m *model.Model, reg *feature.Registry, sents []*corpus.Sentence) predictor[[]string] {
	return func(held []int) ([][]string, error) {
		tg, err := tagger.New(m, reg, tagger.Options{})
		if err != nil {
			return nil, err
		}
		defer tg.Close()
		part := make([]*corpus.Sentence, len(held))
		for j, k := range held {
			part[j] = sents[k]
		}
		return tg.Tag(part)
	}
}

// jackknife runs K-fold jackknifing over sentences assigned to folds
// (folds[k] in [0, K)): for each fold in turn, fit gets the indices of the
// other folds' sentences and returns a predictor, which labels the fold's
// own. The result holds every sentence's prediction (a stage's labels, a
// reranker's lists). A predictor is never asked about a sentence its fit
// was given: held and train partition the sentences by fold (TestStageRun
// and TestRerankRun check a real run's trace of it).
func jackknife[T any](folds []int, k int, fit func(f int, train []int) (predictor[T], error)) ([]T, error) {
	for i, f := range folds {
		if f < 0 || f >= k {
			return nil, fmt.Errorf("jackknifing: sentence %d is in fold %d of %d", i, f, k)
		}
	}
	out := make([]T, len(folds))
	for f := range k {
		var train, held []int
		for i, g := range folds {
			if g == f {
				held = append(held, i)
			} else {
				train = append(train, i)
			}
		}
		if len(held) == 0 || len(train) == 0 {
			return nil, fmt.Errorf("jackknifing: fold %d of %d has %d held-out and %d training sentences", f, k, len(held), len(train))
		}
		predict, err := fit(f, train)
		if err != nil {
			return nil, err
		}
		labels, err := predict(held)
		if err != nil {
			return nil, fmt.Errorf("jackknifing fold %d: %w", f, err)
		}
		if len(labels) != len(held) {
			return nil, fmt.Errorf("jackknifing fold %d: %d sentences labelled, %d held out", f, len(labels), len(held))
		}
		for j, i := range held {
			out[i] = labels[j]
		}
	}
	return out, nil
}

// dealFolds deals sentences to k jackknifing folds (a stage's, a
// reranker's): whole documents (by document;
// corpus.GroupDocuments) or single sentences, each run of k consecutive
// units dealt to the k folds in an order drawn from seed and the run's
// index (spec.Split's seeded dealing), so the folds are balanced and the
// same for any thread count.
func dealFolds(sents []*corpus.Sentence, k int, by string, seed uint64) ([]int, error) {
	index := make(map[*corpus.Sentence]int, len(sents))
	for i, s := range sents {
		index[s] = i
	}
	var units [][]*corpus.Sentence
	if by == spec.StageByDocument {
		units = corpus.GroupDocuments(sents)
	} else {
		for _, s := range sents {
			units = append(units, []*corpus.Sentence{s})
		}
	}
	if len(units) < k {
		hint := ""
		if by == spec.StageByDocument {
			hint = `; a file without document boundaries is one document: by = "sentence" deals sentences`
		}
		return nil, fmt.Errorf("the train corpus has %d %ss, fewer than the %d folds (by = %q%s)", len(units), by, k, by, hint)
	}
	folds := make([]int, len(sents))
	var perm []int
	for u, group := range units {
		if u%k == 0 {
			perm = rand.New(rand.NewPCG(seed, uint64(u/k))).Perm(k)
		}
		for _, s := range group {
			folds[index[s]] = perm[u%k]
		}
	}
	return folds, nil
}

// copySentences returns copies of sents[idx] (all of them when idx is
// nil) whose token rows are their own, so that training (which re-encodes
// gold labels in place) leaves sents as they were.
func copySentences(sents []*corpus.Sentence, idx []int) []*corpus.Sentence {
	if idx == nil {
		idx = make([]int, len(sents))
		for k := range idx {
			idx[k] = k
		}
	}
	out := make([]*corpus.Sentence, len(idx))
	for j, k := range idx {
		c := *sents[k]
		c.Tokens = make([][]string, len(c.Tokens))
		for i, tok := range sents[k].Tokens {
			c.Tokens[i] = slices.Clone(tok)
		}
		out[j] = &c
	}
	return out
}

// addColumn appends labels[k][i] to token i of sents[k] as a new last
// column (each row copied, so rows sharing a backing array stay intact).
func addColumn(sents []*corpus.Sentence, labels [][]string) {
	for k, s := range sents {
		for i, tok := range s.Tokens {
			s.Tokens[i] = append(tok[:len(tok):len(tok)], labels[k][i])
		}
	}
}
