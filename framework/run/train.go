// Training one learner without a run directory (Train, TrainSentences).

package run

import (
	"context"
	"fmt"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// Train trains one learner of the spec (the first when learner is "") on
// the spec's training corpus, and dev corpus if it declares one, and
// returns the model exactly as Run saves it — without a run directory:
// no test set, predictions, reports or checkpoints. OutDir, Command,
// Stdout, CheckpointEvery and Resume are not used. It is how programs that
// embed trellis train from a spec (package framework/trellis).
func Train(ctx context.Context, o Options, learner string) (*model.Model, error) {
	ss := newSession(&o)
	defer ss.scratch.close()
	li, err := oneLearner(ss.spec, learner)
	if err != nil {
		return nil, err
	}
	dataHashes, err := hashData(ss.spec)
	if err != nil {
		return nil, err
	}
	ss = ss.continuing(li)
	var enc *encoded
	if li.Stage != nil {
		enc, err = stagedEncoding(ctx, ss, li)
	} else {
		enc, err = encodeTraining(ctx, ss)
	}
	if err != nil {
		return nil, err
	}
	m, err := trainOne(ctx, ss, enc, li, dataHashes)
	if err != nil {
		return nil, err
	}
	if _, err := attachReranker(ctx, ss, li, m); err != nil {
		return nil, err
	}
	return m, nil
}

// TrainSentences is Train on sentences a program holds in memory instead
// of the spec's corpus files, which are not read (the spec's corpus blocks
// still give the format and columns of the sentences). dev may be nil; if
// not, the spec must declare a dev corpus for its format.
func TrainSentences(ctx context.Context, o Options, learner string, train, dev []*corpus.Sentence) (*model.Model, error) {
	return trainNamedSentences(ctx, newSession(&o), learner, train, dev)
}

// trainNamedSentences is TrainSentences in session ss.
func trainNamedSentences(ctx context.Context, ss *session, learner string, train, dev []*corpus.Sentence) (*model.Model, error) {
	li, err := oneLearner(ss.spec, learner)
	if err != nil {
		return nil, err
	}
	if len(train) == 0 {
		return nil, fmt.Errorf("no training sentences")
	}
	if li.Stage != nil {
		return nil, &ArgumentError{fmt.Sprintf("learner %q is a second stage (a stage block): train it from the spec's corpora (Train), not from sentences", li.Name)}
	}
	if li.Rerank != nil {
		return nil, &ArgumentError{fmt.Sprintf("learner %q is reranked (a rerank block), which jackknifes the train corpus: train it from the spec's corpora (Train), not from sentences", li.Name)}
	}
	return trainSentences(ctx, ss, li, train, dev)
}

// trainSentences is TrainSentences for learner li, which it trains
// without its rerank block (a reranker's jackknifing folds call it).
func trainSentences(ctx context.Context, ss *session, li *spec.LearnerInstance, train, dev []*corpus.Sentence) (*model.Model, error) {
	if dev != nil && ss.spec.Evaluation.Dev == "" {
		return nil, &ArgumentError{"dev sentences given, but the spec declares no dev corpus"}
	}
	mp, err := trainingMapper(ss.spec)
	if err != nil {
		return nil, err
	}
	ss = ss.continuing(li)
	enc, err := encodeSentences(ctx, ss, mp, train, func() ([]*corpus.Sentence, error) { return dev, nil })
	if err != nil {
		mp.Close()
		return nil, err
	}
	return trainOne(ctx, ss, enc, li, map[string]string{})
}

// oneLearner returns the named learner of s, or its first.
func oneLearner(s *spec.Spec, name string) (*spec.LearnerInstance, error) {
	if name == "" {
		if len(s.Learners) == 0 {
			return nil, &ArgumentError{"the spec has no learner"}
		}
		return s.Learners[0], nil
	}
	ls, err := selectLearners(s, []string{name})
	if err != nil {
		return nil, err
	}
	return ls[0], nil
}

// trainOne trains li on the encoded data and returns its model.
func trainOne(ctx context.Context, ss *session, enc *encoded, li *spec.LearnerInstance, dataHashes map[string]string) (*model.Model, error) {
	// The model records the mapper; its extractors are not needed past
	// training (a tagger compiles its own).
	defer enc.mapper.Close()
	p, err := newProblem(ss, enc, li, ss.log.With().Str("learner", li.Name).Logger())
	if err != nil {
		return nil, err
	}
	res, _, err := ss.fit(ctx, li, p)
	if err != nil {
		return nil, fmt.Errorf("learner %q: %w", li.Name, err)
	}
	return newModel(ss.spec, enc, li, res, dataHashes)
}
