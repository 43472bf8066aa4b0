// One learner's run: train, save, evaluate (learnerRun), the learn.Problem
// it trains on, and the model file its weights become.

package run

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"time"

	"github.com/rs/zerolog"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/fileio"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/neural"
	"github.com/trellis-nlp/trellis/framework/progress"
	"github.com/trellis-nlp/trellis/framework/rundir"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/spec"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// learnerResult is what training and testing one learner gave.
type learnerResult struct {
	metrics *LearnerMetrics
	test    []eval.Sentence // the evaluated test sentences
}

// learnerRun is one learner's part of a run: what it trains on, where its
// model goes, and the metrics its steps fill in. The steps are methods:
// train, then save, then evaluate, each calling the next.
type learnerRun struct {
	ss         *session
	enc        *encoded
	li         *spec.LearnerInstance
	dataHashes map[string]string // by corpus name, for the model's provenance
	log        zerolog.Logger
	modelPath  string
	lm         *LearnerMetrics
	ck         *checkpointer // nil: no checkpoints
}

// newLearnerRun is learner li's run on enc in session ss.
func newLearnerRun(ss *session, enc *encoded, li *spec.LearnerInstance, dataHashes map[string]string) *learnerRun {
	return &learnerRun{ss: ss, enc: enc, li: li, dataHashes: dataHashes,
		log: ss.log.With().Str("learner", li.Name).Logger(), modelPath: rundir.ModelPath(ss.outDir, li.Name),
		lm: &LearnerMetrics{Learner: li.Type}}
}

// train trains the learner (or takes pre, the model tuning already
// trained with the same settings on the same corpus, or the model a
// resumed run finished before), then saves and tests it.
func (r *learnerRun) train(ctx context.Context, pre *trained) (*learnerResult, error) {
	ss, lm := r.ss, r.lm
	p, err := newProblem(ss, r.enc, r.li, r.log)
	if err != nil {
		return nil, err
	}
	p.Observe = func(pt learn.Point) { lm.Curve = append(lm.Curve, pt) }
	if pre != nil {
		lm.Curve, lm.TrainSeconds = pre.curve, pre.seconds
		r.log.Info().Msg("the tuning's winner, trained on the same corpus: keeping its model")
		return r.save(ctx, pre.res)
	}
	if ss.opts.CheckpointEvery > 0 || ss.opts.Resume {
		if r.ck, err = newCheckpointer(ss, r.li, r.dataHashes); err != nil {
			return nil, err
		}
		if done, err := r.finishedBefore(); err != nil || done {
			if err != nil {
				return nil, err
			}
			r.log.Info().Msg("trained before the interruption: keeping its model")
			return r.evaluate(ctx)
		}
		if p.Checkpoints, err = r.ck.checkpoints(ss.opts.Resume); err != nil {
			return nil, err
		}
	}
	r.log.Info().Str("type", r.li.Type).Msg("training")
	res, seconds, err := ss.fit(ctx, r.li, p)
	if err != nil {
		return nil, err
	}
	lm.TrainSeconds = seconds
	// Same reason as in prepare: the optimizer's buffers die here.
	debug.FreeOSMemory()
	r.log.Info().Float64("seconds", lm.TrainSeconds).Msg("trained")
	return r.save(ctx, res)
}

// finishedBefore reports whether a resumed run's learner had finished
// before the interruption, taking its training figures if so.
func (r *learnerRun) finishedBefore() (bool, error) {
	if !r.ss.opts.Resume {
		return false, nil
	}
	done, err := r.ck.finished(r.modelPath)
	if err != nil || done == nil {
		return false, err
	}
	r.lm.TrainSeconds, r.lm.Info, r.lm.Curve = done.TrainSeconds, done.Info, done.Curve
	return true, nil
}

// save writes the trained learner's model (with its reranker, trained
// now), marks its checkpoints finished and tests it.
func (r *learnerRun) save(ctx context.Context, res *learn.Result) (*learnerResult, error) {
	r.lm.Info = res.Info
	m, err := newModel(r.ss.spec, r.enc, r.li, res, r.dataHashes)
	if err != nil {
		return nil, err
	}
	// The reranker trains after the first pass (whose dev scoring was
	// its own), on lists from its jackknifed copies.
	if r.lm.RerankSeconds, err = attachReranker(ctx, r.ss, r.li, m); err != nil {
		return nil, err
	}
	if err := model.Save(r.modelPath, m); err != nil {
		return nil, err
	}
	if r.ck != nil {
		if err := r.ck.finish(r.lm); err != nil {
			return nil, err
		}
	}
	return r.evaluate(ctx)
}

// fit trains li on p, times it and checks the weights: the one call of a
// learner's Train (a run's learners, Train, tuning candidates).
func (ss *session) fit(ctx context.Context, li *spec.LearnerInstance, p *learn.Problem) (*learn.Result, float64, error) {
	t0 := time.Now()
	res, err := ss.spec.LearnerTypes.Train(ctx, li.Type, li.Learner, p)
	if err != nil {
		return nil, 0, err
	}
	seconds := time.Since(t0).Seconds()
	if err := checkFinite(res.Model.W); err != nil {
		return nil, 0, fmt.Errorf("%s produced %w; no model written", li.Type, err)
	}
	return res, seconds, nil
}

// newProblem is what learner li of the run may use: the encoded training
// (and dev) data, the mapper, the constraints, the model it continues
// from (init_model) and the run's settings. It is the one place a
// learn.Problem is built (runs, Train, tuning candidates).
func newProblem(ss *session, enc *encoded, li *spec.LearnerInstance, log zerolog.Logger) (*learn.Problem, error) {
	s := ss.spec
	if err := checkJoint(enc, s, li, log); err != nil {
		return nil, err
	}
	// Again for the learners a run did not check up front (Train, folds,
	// tuning candidates, continued and staged encodings).
	if err := checkShards([]*spec.LearnerInstance{li}, enc.train); err != nil {
		return nil, err
	}
	constraints := enc.constraints(s)
	p := &learn.Problem{
		Train: enc.train, NumAttrs: enc.mapper.Attrs().Len(), NumLabels: enc.mapper.Labels().Len(),
		Mapper: enc.mapper, Transitions: enc.mapper.Transitions(), Pairs: enc.mapper.PairAttrs(), Order: enc.mapper.Order(),
		Constraints: constraints, Seed: s.Seed, Threads: ss.threads, Log: log, Progress: ss.progress,
	}
	if li.InitModel != nil {
		p.Init = li.InitModel.Model.Linear
	}
	if learn.SearchBeam(li.Learner) > 0 {
		p.History = enc.history
	}
	var net *neural.Network
	if li.Encoder != nil {
		var err error
		if p.Encoder, err = enc.encoderProblem(s, li, p.NumLabels); err != nil {
			return nil, err
		}
		net = p.Encoder.Net
	}
	if enc.dev != nil {
		p.Dev = enc.dev
		p.DevScore = devScorer(enc, s.Labels.Training(), constraints, li, net, ss.threads)
	}
	return p, nil
}

// newModel is the model file of weights trained by learner li: the
// weights with the mapper, format, scheme and provenance they go with.
func newModel(s *spec.Spec, enc *encoded, li *spec.LearnerInstance, res *learn.Result, dataHashes map[string]string) (*model.Model, error) {
	cfg, err := json.Marshal(li.Config)
	if err != nil {
		return nil, err
	}
	trainFormat := s.Corpus(s.Evaluation.Train).Format
	m := &model.Model{
		Header: model.Header{
			Scheme: s.Labels.Training().String(), Constrained: s.Labels.Constrained,
			Format: trainFormat, LabelColumn: s.Labels.Column, WordColumn: enc.wordColumnName(),
			Learner:    model.Learner{Name: li.Name, Type: li.Type, Config: cfg},
			Provenance: model.Provenance{Experiment: s.Name, SpecHash: s.Hash, DataHashes: dataHashes, Seed: s.Seed, Trellis: Version()},
		},
		Linear:  res.Model,
		Network: res.Network,
	}
	if s.Labels.Encode != scheme.None {
		m.OutputScheme = s.Labels.Scheme.String()
	}
	if enc.stage != nil {
		m.Stages, m.StageModels = []model.Stage{enc.stage.info}, []*model.Model{enc.stage.model}
	}
	m.SetMapper(enc.mapper)
	if len(res.ExtraAttrs) > 0 {
		// A copy: the mapper's names are its dictionary's.
		m.Attrs = append(append([]string(nil), m.Attrs...), res.ExtraAttrs...)
	}
	if res.SearchBeam > 0 {
		m.Search = &model.Search{Method: model.SearchTransition, Beam: res.SearchBeam}
	}
	return m, nil
}

// checkFinite reports the first weight that is NaN or infinite.
func checkFinite(w []float64) error {
	for f, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("a non-finite weight (%v, weight %d of %d)", v, f, len(w))
		}
	}
	return nil
}

// evaluate tags the test corpus with the saved model, exactly as
// `trellis tag` would, and fills in the learner's test metrics.
func (r *learnerRun) evaluate(ctx context.Context) (*learnerResult, error) {
	ss, lm := r.ss, r.lm
	if st, err := os.Stat(r.modelPath); err == nil {
		lm.ModelBytes = st.Size()
	}
	// The loaded model sits beside the training encoding, so this phase,
	// like encoding, is held to a tighter GC target (tightenGC).
	// TagSeconds is timed under it too, which `trellis tag` is not; the
	// tagger allocates little (docs/results.md, the tagging section).
	defer tightenGC(ss.opts.PhaseGCPercent)()
	loaded, err := model.Load(r.modelPath)
	if err != nil {
		return nil, err
	}
	tg, err := tagger.New(loaded, ss.opts.Templates, tagger.Options{Decode: r.li.Decode, Beam: r.li.Beam, Joint: r.li.Joint})
	if err != nil {
		return nil, err
	}
	defer tg.Close()
	// Loading left the model file's bytes and the decoder's buffers as
	// garbage, which the runtime would return to the system only slowly,
	// making this the run's peak RSS.
	debug.FreeOSMemory()
	t1 := time.Now()
	sents, tokens, err := r.tagTest(ctx, tg)
	if err != nil {
		return nil, err
	}
	lm.TagSeconds = time.Since(t1).Seconds()
	testJoint(lm, r.li, tg.JointStats(), ss.spec.Evaluation.Test, r.log)
	if loaded.Reranker != nil {
		if lm.Rerank, err = rerankFigures(ss, loaded); err != nil {
			return nil, fmt.Errorf("rerank figures: %w", err)
		}
	}
	if lm.TagSeconds > 0 {
		lm.TagTokensPerSecond = float64(tokens) / lm.TagSeconds
	}
	if lm.UnknownTestLabels = r.unknownLabels(sents); lm.UnknownTestLabels != nil {
		r.log.Warn().Interface("labels", lm.UnknownTestLabels).Msg("test corpus has labels unseen in training; those tokens cannot be tagged correctly")
	}
	sch := ss.spec.Labels.Scheme
	lm.Result = eval.Evaluate(sents, eval.Options{Scheme: sch, Vocabulary: segmentationVocabulary(sch, r.enc)})
	if err := rundir.WriteEvalTSV(rundir.EvalPath(ss.outDir, r.li.Name), sents); err != nil {
		return nil, err
	}
	r.log.Info().Float64("accuracy", lm.Accuracy).Float64("tokens_per_second", lm.TagTokensPerSecond).Msg("evaluated")
	return &learnerResult{metrics: lm, test: sents}, nil
}

// unknownLabels counts the test corpus's gold labels that the training
// encoding lacks (nil for none).
func (r *learnerRun) unknownLabels(sents []eval.Sentence) map[string]int {
	var unknown map[string]int
	var gold []string
	labels := r.ss.spec.Labels
	for _, es := range sents {
		// The mapper's labels are in the training encoding.
		gold = scheme.Convert(gold[:0], es.Gold, labels.Scheme, labels.Training())
		for _, g := range gold {
			if _, ok := r.enc.mapper.Labels().LookupString(g); !ok {
				if unknown == nil {
					unknown = map[string]int{}
				}
				unknown[g]++
			}
		}
	}
	return unknown
}

// tagTest tags the test corpus with tg into the learner's predictions file
// and returns the evaluated sentences and the number of tokens tagged.
func (r *learnerRun) tagTest(ctx context.Context, tg *tagger.Tagger) ([]eval.Sentence, int, error) {
	ss, learner := r.ss, r.li.Name
	testC := ss.spec.Corpus(ss.spec.Evaluation.Test)
	ss.trace("tag " + testC.Name + " " + learner)
	f, err := corpus.New(testC.Format)
	if err != nil {
		return nil, 0, err
	}
	in, err := os.Open(testC.Path)
	if err != nil {
		return nil, 0, err
	}
	defer in.Close()
	out, err := fileio.Create(rundir.PredictionsPath(ss.outDir, learner))
	if err != nil {
		return nil, 0, err
	}
	defer out.Close()
	bw := bufio.NewWriterSize(out, 1<<16)
	var sents []eval.Sentence
	var src io.Reader = in
	var bar *progress.Task
	if st, err := in.Stat(); err == nil {
		bar = ss.progress.Start("tagging "+testC.Name+" with "+learner, st.Size(), "read").Bytes()
		src = progress.Reader{R: in, T: bar}
	}
	cols := eval.Columns{Label: f.LabelColumn(), Word: r.enc.wordColumn, Segmentation: r.enc.words != nil}
	// IV/OOV accuracy counts the words the saved model knows, as `trellis
	// eval` does from the model file alone, so the two report the same
	// figures (tagger.Vocabulary says why those words rather than the
	// training corpus's). nil: the model does not tell, no figures.
	if vocab := tg.Vocabulary(); vocab != nil {
		cols.Vocabulary = vocab
	}
	tokens, err := tg.Stream(ctx, f.NewReader(src, testC.Path, corpus.ReadOptions{}), f.NewWriter(bw), testC.Split.Keep,
		func(st *corpus.Sentence, pred []string) {
			sents = append(sents, eval.NewSentence(st.Tokens, pred, cols))
		})
	bar.Done()
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = out.Commit()
	}
	return sents, tokens, err
}

// segmentationVocabulary returns the words of the training corpus, for
// OOV word recall in segmentation (nil for other schemes).
func segmentationVocabulary(sch scheme.Scheme, enc *encoded) map[string]bool {
	if !sch.IsSegmentation() {
		return nil
	}
	return enc.words
}
