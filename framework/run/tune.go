// Tuning: a learner's tune block searched by dev or cross-validation.

package run

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/rundir"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// trained is a model a learner made before its learnerRun: the tuning
// candidate that won on the dev corpus, which is exactly what the final
// training would make again (same encoded corpus, settings and seed).
type trained struct {
	res     *learn.Result
	seconds float64
	curve   []learn.Point
}

// tuned is what a learner's tune block decided.
type tuned struct {
	enc    *encoded
	li     *spec.LearnerInstance
	pre    *trained
	record *rundir.Tuning
}

// tuneLearner searches the settings of li's tune block, if it has one, by
// the dev corpus's score or by cross-validation on the train corpus, and
// returns the learner with the pick (li itself without a tune block) and
// the corpus encoded as the pick's min_count asks. The test corpus is not
// read.
func tuneLearner(ctx context.Context, ss *session, enc *encoded, li *spec.LearnerInstance) (*tuned, error) {
	s := ss.spec
	t := s.Tune(li.Name)
	if t == nil {
		return &tuned{enc: enc, li: li}, nil
	}
	ss.trace("tune start " + li.Name)
	defer ss.trace("tune end " + li.Name)
	rec := &rundir.Tuning{Learner: li.Name, Method: t.Method, Metric: eval.MetricName(s.Labels.Scheme), Seed: s.Seed}
	for _, c := range t.Candidates(s.Seed) {
		rec.Candidates = append(rec.Candidates, rundir.TuningCandidate{Settings: c})
	}
	log := ss.log.With().Str("learner", li.Name).Logger()
	log.Info().Int("candidates", len(rec.Candidates)).Str("method", t.Method).Msg("tuning")
	encs := map[int]*encoded{s.Features.MinCount: enc}
	var pre *trained
	var err error
	if s.Evaluation.Dev != "" {
		rec.By, rec.Corpus = "dev", s.Evaluation.Dev
		pre, err = searchDev(ctx, ss, encs, li, rec)
	} else {
		rec.By, rec.Corpus, rec.Folds = "cv", s.Evaluation.Train, t.Folds
		err = searchCV(ctx, ss, li, rec)
	}
	if err != nil {
		return nil, err
	}
	pick := rec.Picked()
	log.Info().Interface("picked", pick).Float64("score", rec.Candidates[rec.Pick].Score).Str("by", rec.By).Msg("tuned")
	final, err := s.NewLearner(li, pick)
	if err != nil {
		return nil, err
	}
	fenc, err := encodingFor(ctx, ss, encs, minCount(s, pick))
	if err != nil {
		return nil, err
	}
	return &tuned{enc: fenc, li: final, pre: pre, record: rec}, nil
}

// minCount is the candidate's feature cut-off, or the spec's.
func minCount(s *spec.Spec, c spec.Candidate) int {
	if v, ok := c[spec.MinCountSetting]; ok {
		return int(v)
	}
	return s.Features.MinCount
}

// encodingFor returns the spec's train (and dev) corpus encoded with
// feature cut-off mc, encoding it the first time.
func encodingFor(ctx context.Context, ss *session, encs map[int]*encoded, mc int) (*encoded, error) {
	if e, ok := encs[mc]; ok {
		return e, nil
	}
	fs := *ss.spec
	fs.Features.MinCount = mc
	e, err := encodeTraining(ctx, ss.checked(&fs))
	if err != nil {
		return nil, err
	}
	encs[mc] = e
	return e, nil
}

// searchDev trains every candidate on the train corpus, scores it on the
// dev corpus, fills in rec and returns the winner's model.
func searchDev(ctx context.Context, ss *session, encs map[int]*encoded, li *spec.LearnerInstance, rec *rundir.Tuning) (*trained, error) {
	var best *trained
	for i := range rec.Candidates {
		c := &rec.Candidates[i]
		e, err := encodingFor(ctx, ss, encs, minCount(ss.spec, c.Settings))
		if err != nil {
			return nil, err
		}
		tr, score, err := trainCandidate(ctx, ss, e, li, c.Settings, seeDev)
		if err != nil {
			return nil, err
		}
		c.Score, c.TrainSeconds = score, tr.seconds
		if i == 0 || score > rec.Candidates[rec.Pick].Score {
			rec.Pick, best = i, tr
		}
	}
	// Another min_count's winner needs its own encoding, which
	// encodingFor keeps; the model is that encoding's.
	return best, nil
}

// searchCV scores every candidate by K-fold cross-validation on the train
// corpus (the folds of `evaluation { folds }`, seeded by the spec): each
// fold's training part is encoded once per min_count value and every
// candidate with that value trains on it and is scored on the held-out
// fold. A candidate's score is the mean over the folds.
func searchCV(ctx context.Context, ss *session, li *spec.LearnerInstance, rec *rundir.Tuning) error {
	s := ss.spec
	var counts []int
	for _, c := range rec.Candidates {
		if mc := minCount(s, c.Settings); !slices.Contains(counts, mc) {
			counts = append(counts, mc)
		}
	}
	sort.Ints(counts)
	for _, mc := range counts {
		for f := 0; f < rec.Folds; f++ {
			e, err := encodeFold(ctx, ss, f, rec.Folds, mc)
			if err != nil {
				return fmt.Errorf("tuning %s, fold %d: %w", li.Name, f, err)
			}
			for i := range rec.Candidates {
				c := &rec.Candidates[i]
				if minCount(s, c.Settings) != mc {
					continue
				}
				tr, score, err := trainCandidate(ctx, ss, e, li, c.Settings, holdOut)
				if err != nil {
					return fmt.Errorf("tuning %s, fold %d: %w", li.Name, f, err)
				}
				c.FoldScores = append(c.FoldScores, score)
				c.TrainSeconds += tr.seconds
			}
		}
	}
	for i := range rec.Candidates {
		c := &rec.Candidates[i]
		c.Score, _ = meanStd(c.FoldScores)
		if i == 0 || c.Score > rec.Candidates[rec.Pick].Score {
			rec.Pick = i
		}
	}
	return nil
}

// encodeFold encodes fold f of k of the train corpus as a training part
// (the other folds) and a held-out part in the dev slot.
func encodeFold(ctx context.Context, ss *session, f, k, mc int) (*encoded, error) {
	s := ss.spec
	fs := *s
	train := s.Corpus(s.Evaluation.Train)
	trainPart, heldOut := *train, *train
	trainPart.Name, heldOut.Name = "tune-train", "tune-heldout"
	trainPart.Split = &spec.Split{Folds: k, Fold: f, Take: "rest", Seeded: true, Seed: s.Seed}
	heldOut.Split = &spec.Split{Folds: k, Fold: f, Take: "fold", Seeded: true, Seed: s.Seed}
	fs.Corpora = append(append([]*spec.Corpus(nil), s.Corpora...), &trainPart, &heldOut)
	fs.Evaluation = spec.Evaluation{Train: trainPart.Name, Dev: heldOut.Name}
	fs.Features.MinCount = mc
	return encodeTraining(ctx, ss.checked(&fs))
}

// devUse says what a tuning candidate may see of the corpus in its
// encoding's dev slot while it trains.
type devUse int

const (
	// seeDev: the dev corpus, as the final learner will (best epoch,
	// early stopping); tuning by dev.
	seeDev devUse = iota
	// holdOut: nothing; the slot holds the held-out fold of a
	// cross-validation, unseen until it scores the model.
	holdOut
)

// trainCandidate trains li with the candidate's settings on e's training
// corpus and scores the model on e's dev part, which the learner sees
// while training as use says.
func trainCandidate(ctx context.Context, ss *session, e *encoded, li *spec.LearnerInstance, c spec.Candidate, use devUse) (*trained, float64, error) {
	s := ss.spec
	cli, err := s.NewLearner(li, c)
	if err != nil {
		return nil, 0, err
	}
	tr := &trained{}
	p, err := newProblem(ss, e, cli, ss.log.With().Str("learner", li.Name).Interface("candidate", c).Logger())
	if err != nil {
		return nil, 0, err
	}
	p.Observe = func(pt learn.Point) { tr.curve = append(tr.curve, pt) }
	score := p.DevScore
	p.Dev, p.DevScore = nil, nil
	if use == seeDev {
		p.Dev, p.DevScore = e.dev, score
	}
	if tr.res, tr.seconds, err = ss.fit(ctx, cli, p); err != nil {
		return nil, 0, err
	}
	v := score(tr.res.Model)
	p.Log.Info().Float64("score", v).Float64("seconds", tr.seconds).Msg("tuning candidate")
	return tr, v, nil
}
