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

// runLearner trains li (or takes pre, the model tuning already trained
// with the same settings on the same corpus), saves the model and tests it.
func runLearner(ctx context.Context, o Options, enc *encoded, li *spec.LearnerInstance, dataHashes map[string]string, pre *trained) (*learnerResult, error) {
	log := o.Log.With().Str("learner", li.Name).Logger()
	lm := &LearnerMetrics{Learner: li.Type}
	p, err := newProblem(o, enc, li, log)
	if err != nil {
		return nil, err
	}
	p.Observe = func(pt learn.Point) { lm.Curve = append(lm.Curve, pt) }
	modelPath := rundir.ModelPath(o.OutDir, li.Name)
	if pre != nil {
		lm.Curve, lm.TrainSeconds = pre.curve, pre.seconds
		log.Info().Msg("the tuning's winner, trained on the same corpus: keeping its model")
		return saveAndEvaluate(ctx, o, enc, li, lm, pre.res, modelPath, dataHashes, nil)
	}
	var ck *checkpointer
	if o.CheckpointEvery > 0 || o.Resume {
		var err error
		if ck, err = newCheckpointer(o, li, dataHashes); err != nil {
			return nil, err
		}
	}
	if o.Resume {
		done, err := ck.finished(modelPath)
		if err != nil {
			return nil, err
		}
		if done != nil {
			lm.TrainSeconds, lm.Info, lm.Curve = done.TrainSeconds, done.Info, done.Curve
			log.Info().Msg("trained before the interruption: keeping its model")
			return evaluateLearner(ctx, o, enc, li, lm, modelPath)
		}
	}
	if ck != nil {
		var err error
		if p.Checkpoints, err = ck.checkpoints(o.Resume); err != nil {
			return nil, err
		}
	}
	log.Info().Str("type", li.Type).Msg("training")
	t0 := time.Now()
	res, err := o.Spec.LearnerTypes.Train(ctx, li.Type, li.Learner, p)
	if err != nil {
		return nil, err
	}
	lm.TrainSeconds = time.Since(t0).Seconds()
	// Same reason: the optimizer's buffers die here.
	debug.FreeOSMemory()
	log.Info().Float64("seconds", lm.TrainSeconds).Msg("trained")
	return saveAndEvaluate(ctx, o, enc, li, lm, res, modelPath, dataHashes, ck)
}

// saveAndEvaluate writes a trained learner's model and tests it.
func saveAndEvaluate(ctx context.Context, o Options, enc *encoded, li *spec.LearnerInstance, lm *LearnerMetrics, res *learn.Result, modelPath string, dataHashes map[string]string, ck *checkpointer) (*learnerResult, error) {
	s := o.Spec
	lm.Info = res.Info
	if err := checkFinite(res.Model.W); err != nil {
		return nil, fmt.Errorf("%s produced %w; no model written", li.Type, err)
	}

	m, err := newModel(s, enc, li, res, dataHashes)
	if err != nil {
		return nil, err
	}
	// The reranker trains after the first pass (whose dev scoring was
	// its own), on lists from its jackknifed copies.
	if lm.RerankSeconds, err = attachReranker(ctx, o, li, m); err != nil {
		return nil, err
	}
	if err := model.Save(modelPath, m); err != nil {
		return nil, err
	}
	if ck != nil {
		if err := ck.finish(lm); err != nil {
			return nil, err
		}
	}
	return evaluateLearner(ctx, o, enc, li, lm, modelPath)
}

// newProblem is what learner li of the run may use: the encoded training
// (and dev) data, the mapper, the constraints, the model it continues
// from (init_model) and the run's settings. It is the one place a
// learn.Problem is built (runs, Train, tuning candidates).
func newProblem(o Options, enc *encoded, li *spec.LearnerInstance, log zerolog.Logger) (*learn.Problem, error) {
	s := o.Spec
	if err := checkJoint(enc, s, li, log); err != nil {
		return nil, err
	}
	constraints := enc.constraints(s)
	p := &learn.Problem{
		Train: enc.train, NumAttrs: enc.mapper.Attrs().Len(), NumLabels: enc.mapper.Labels().Len(),
		Mapper: enc.mapper, Transitions: enc.mapper.Transitions(), Pairs: enc.mapper.PairAttrs(), Order: enc.mapper.Order(),
		Constraints: constraints, Seed: s.Seed, Threads: o.Threads, Log: log, Progress: o.Progress,
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
		p.DevScore = devScorer(enc, s.Labels.Training(), constraints, li, net, o.Threads)
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

// evaluateLearner tags the test corpus with the saved model and fills in
// the learner's metrics.
func evaluateLearner(ctx context.Context, o Options, enc *encoded, li *spec.LearnerInstance, lm *LearnerMetrics, modelPath string) (*learnerResult, error) {
	s := o.Spec
	log := o.Log.With().Str("learner", li.Name).Logger()
	if st, err := os.Stat(modelPath); err == nil {
		lm.ModelBytes = st.Size()
	}

	// Tag the test corpus with the model as saved, end to end, exactly as
	// `trellis tag` would. The loaded model sits beside the training
	// encoding, so this phase, like encoding, is held to a tighter GC
	// target: it was the peak of CoNLL-2000's CRF run once the others were
	// cut. TagSeconds is timed under it too, which `trellis tag` is not;
	// the tagger allocates little, and GOGC 10 to 400 made no measurable
	// difference to its CPU (docs/results.md, the tagging section).
	defer tightenGC(o.PhaseGCPercent)()
	loaded, err := model.Load(modelPath)
	if err != nil {
		return nil, err
	}
	tg, err := tagger.New(loaded, o.Templates, tagger.Options{Decode: li.Decode, Beam: li.Beam, Joint: li.Joint})
	if err != nil {
		return nil, err
	}
	defer tg.Close()
	// Loading left the model file's bytes and the decoder's buffers as
	// garbage, which the runtime would return to the system only slowly:
	// on CoNLL-2000's CRF they made this the run's peak RSS.
	debug.FreeOSMemory()
	t1 := time.Now()
	sents, tokens, err := tagTest(ctx, o, enc, tg, li.Name)
	if err != nil {
		return nil, err
	}
	lm.TagSeconds = time.Since(t1).Seconds()
	testJoint(lm, li, tg.JointStats(), s.Evaluation.Test, log)
	if loaded.Reranker != nil {
		if lm.Rerank, err = rerankFigures(o, loaded); err != nil {
			return nil, fmt.Errorf("rerank figures: %w", err)
		}
	}
	if lm.TagSeconds > 0 {
		lm.TagTokensPerSecond = float64(tokens) / lm.TagSeconds
	}
	unknown := map[string]int{}
	var gold []string
	for _, es := range sents {
		// The mapper's labels are in the training encoding.
		gold = scheme.Convert(gold[:0], es.Gold, s.Labels.Scheme, s.Labels.Training())
		for _, g := range gold {
			if _, ok := enc.mapper.Labels().LookupString(g); !ok {
				unknown[g]++
			}
		}
	}
	if len(unknown) > 0 {
		lm.UnknownTestLabels = unknown
		log.Warn().Interface("labels", unknown).Msg("test corpus has labels unseen in training; those tokens cannot be tagged correctly")
	}
	lm.Result = eval.Evaluate(sents, eval.Options{Scheme: s.Labels.Scheme, Vocabulary: segmentationVocabulary(s.Labels.Scheme, enc)})
	if err := rundir.WriteEvalTSV(rundir.EvalPath(o.OutDir, li.Name), sents); err != nil {
		return nil, err
	}
	log.Info().Float64("accuracy", lm.Accuracy).Float64("tokens_per_second", lm.TagTokensPerSecond).Msg("evaluated")
	return &learnerResult{metrics: lm, test: sents}, nil
}

// tagTest tags the test corpus with tg into the learner's predictions file
// and returns the evaluated sentences and the number of tokens tagged.
func tagTest(ctx context.Context, o Options, enc *encoded, tg *tagger.Tagger, learner string) ([]eval.Sentence, int, error) {
	testC := o.Spec.Corpus(o.Spec.Evaluation.Test)
	o.trace("tag " + testC.Name + " " + learner)
	f, err := corpus.New(testC.Format)
	if err != nil {
		return nil, 0, err
	}
	in, err := os.Open(testC.Path)
	if err != nil {
		return nil, 0, err
	}
	defer in.Close()
	out, err := fileio.Create(rundir.PredictionsPath(o.OutDir, learner))
	if err != nil {
		return nil, 0, err
	}
	defer out.Close()
	bw := bufio.NewWriterSize(out, 1<<16)
	labelCol := f.LabelColumn()
	var sents []eval.Sentence
	// IV/OOV accuracy counts the words the saved model knows, as `trellis
	// eval` does from the model file alone, so the two report the same
	// figures (tagger.Vocabulary says why those words rather than the
	// training corpus's). nil: the model does not tell, no figures.
	vocab := tg.Vocabulary()
	var src io.Reader = in
	var bar *progress.Task
	if st, err := in.Stat(); err == nil {
		bar = o.Progress.Start("tagging "+testC.Name+" with "+learner, st.Size(), "read").Bytes()
		src = progress.Reader{R: in, T: bar}
	}
	cols := eval.Columns{Label: labelCol, Word: enc.wordColumn, Segmentation: enc.words != nil}
	if vocab != nil {
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
