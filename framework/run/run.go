package run

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/dual"
	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/fileio"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/linear"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/neural"
	"github.com/trellis-nlp/trellis/framework/progress"
	htmlreport "github.com/trellis-nlp/trellis/framework/report"
	"github.com/trellis-nlp/trellis/framework/rundir"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/spec"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// Options configure one run.
type Options struct {
	Spec      *spec.Spec
	Templates *feature.Registry
	OutDir    string
	// Learners, when non-empty, restricts the run to these learner names.
	Learners []string
	Threads  int
	Log      zerolog.Logger
	// Command is the command line, recorded in the manifest.
	Command []string
	// Stdout receives the comparison table.
	Stdout io.Writer
	// Progress, when set, shows extraction, training and tagging progress
	// on a terminal.
	Progress *progress.Meter
	// CheckpointEvery > 0 makes learners that can (learn.CanCheckpoint) save
	// their training state every so many epochs or iterations under
	// OutDir/checkpoints, which the run removes when it ends.
	CheckpointEvery int
	// Resume continues the interrupted run in OutDir: learners that had
	// finished keep their models, the one that was training continues
	// from its last checkpoint, and the result is the same, to the byte,
	// as an uninterrupted run's.
	Resume bool
	// Warn receives what the data check warns about (gold labels of the
	// dev or test corpus that contradict the declared scheme, and the
	// like) as diagnostics on the spec, to print with its source.
	Warn func(hcl.Diagnostics)
	// PhaseGCPercent, when > 0, is the garbage collector's target
	// (debug.SetGCPercent) while the training corpus is read and encoded
	// and while a trained model is loaded back to tag the test corpus:
	// the phases that set a run's peak memory (see tightenGC). The command
	// sets it; 0 leaves the collector alone, since the setting is the
	// whole process's, which a program running trainings side by side
	// should not see changed under it.
	PhaseGCPercent int

	// dataChecked is set on the runs of a cross-validation or ablation,
	// whose corpora CheckData has checked once up front.
	dataChecked bool
	// base, when set, is the mapper of the model a learner continues
	// (continue.go): the training encoding keeps its IDs.
	base *feature.MapperRecord
	// onTrace, when set (by tests), hears which corpus is read when and
	// where a tuning search starts and ends.
	onTrace func(event string)
}

// trace passes event to onTrace, if set.
func (o Options) trace(event string) {
	if o.onTrace != nil {
		o.onTrace(event)
	}
}

// LearnerMetrics and Comparison are the run directory's types.
type (
	LearnerMetrics = rundir.LearnerMetrics
	Comparison     = rundir.Comparison
)

// BootstrapSamples is the number of resamples behind every confidence
// interval and p-value a run reports.
const BootstrapSamples = 1000

// Result is what a run produced.
type Result struct {
	Dir         string
	Metrics     rundir.Metrics
	Order       []string
	Comparisons []Comparison
	// tests are the evaluated test sentences of each learner, for the
	// comparisons.
	tests map[string][]eval.Sentence
}

// Version is trellis's version as recorded in manifests and models.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func vcsRevision() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return ""
}

// encoded is the training side of an experiment, built once and shared by
// every learner: the fitted feature mapper with the train and dev sets it
// encoded, and what only a run needs beside them.
type encoded struct {
	mapper *feature.Mapper
	train  *feature.Dataset
	dev    *feature.Dataset
	// devSents are the dev sentences, whose gold labels devScorer reads.
	devSents []*corpus.Sentence
	// words are the training words rebuilt from gold character labels
	// (segmentation only).
	words map[string]bool
	// wordColumn indexes the column whose values are the word
	// (corpus.WordColumn), -1 for a format without words (crfsuite).
	wordColumn int
	// stage is the first stage of a second stage's encoding (stage.go).
	stage *stageRun
	// neural holds each encoder block's inputs, by name (neural.go).
	neural map[string]*neuralInputs
	// history is the training data's decision-history inputs for a
	// transition learner (transition.go).
	history *learn.History
}

// wordColumnName is the word column's name, as the model records it ("" for
// none).
func (enc *encoded) wordColumnName() string {
	if enc.wordColumn < 0 {
		return ""
	}
	return enc.mapper.Columns().Names[enc.wordColumn]
}

// Run carries out the experiment.
func Run(ctx context.Context, o Options) (*Result, error) {
	s := o.Spec
	learners, err := selectLearners(s, o.Learners)
	if err != nil {
		return nil, err
	}
	if o.Threads <= 0 {
		o.Threads = runtime.NumCPU()
	}
	dataHashes, err := hashData(s)
	if err != nil {
		return nil, err
	}
	enc, err := prepare(ctx, o)
	if err != nil {
		return nil, err
	}
	sch := s.Labels.Scheme
	res := &Result{Dir: o.OutDir, Metrics: rundir.Metrics{}, tests: map[string][]eval.Sentence{}}
	manifestLearners := map[string]rundir.ManifestLearner{}
	staged := stagedEncodings{}
	defer staged.close()
	for _, li := range learners {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		lenc, err := staged.get(ctx, o, enc, li)
		if err != nil {
			return nil, fmt.Errorf("learner %q: %w", li.Name, err)
		}
		ml, err := tuneAndRun(ctx, o, lenc, li, dataHashes, res)
		if err != nil {
			return nil, fmt.Errorf("learner %q: %w", li.Name, err)
		}
		manifestLearners[li.Name] = *ml
	}
	if err := compareLearners(res, sch, s.Seed); err != nil {
		return nil, err
	}
	manifest, err := newManifest(o, enc, dataHashes, manifestLearners)
	if err != nil {
		return nil, err
	}
	if err := writeResults(o, res, manifest); err != nil {
		return nil, err
	}
	return res, nil
}

// tuneAndRun tunes a learner if the spec says so, trains it (or keeps
// the tuning's winner), tests it, and adds its figures to res.
func tuneAndRun(ctx context.Context, o Options, enc *encoded, li *spec.LearnerInstance, dataHashes map[string]string, res *Result) (*rundir.ManifestLearner, error) {
	if li.InitModel != nil {
		// Its own encoding, from the model's mapper; a tuning's
		// re-encodings keep the model's IDs too.
		var err error
		if enc, err = continuedEncoding(ctx, o, li); err != nil {
			return nil, err
		}
		o.base = baseRecord(li)
	}
	tu, err := tuneLearner(ctx, o, enc, li)
	if err != nil {
		return nil, err
	}
	lr, err := runLearner(ctx, o, tu.enc, tu.li, dataHashes, tu.pre)
	if err != nil {
		return nil, err
	}
	cfg, err := json.Marshal(tu.li.Config)
	if err != nil {
		return nil, err
	}
	ml := &rundir.ManifestLearner{Type: li.Type, Config: cfg, InitModel: manifestInitModel(li)}
	if st := tu.enc.stage; st != nil {
		ml.Stage = &st.info
		lr.metrics.StageSeconds = st.seconds
	}
	if tu.record != nil {
		if err := rundir.WriteTuning(o.OutDir, tu.record); err != nil {
			return nil, err
		}
		lr.metrics.Tuning = tu.record
		ml.Tuned, ml.TunedBy = tu.record.Picked(), tu.record.By
	}
	res.Metrics[li.Name], res.tests[li.Name] = lr.metrics, lr.test
	res.Order = append(res.Order, li.Name)
	return ml, nil
}

// selectLearners returns the spec's learners, or those --learner names.
func selectLearners(s *spec.Spec, names []string) ([]*spec.LearnerInstance, error) {
	if len(names) == 0 {
		return s.Learners, nil
	}
	var learners []*spec.LearnerInstance
	for _, name := range names {
		l := s.Learner(name)
		if l == nil {
			var have []string
			for _, l := range s.Learners {
				have = append(have, l.Name)
			}
			return nil, &ArgumentError{fmt.Sprintf("--learner %q: the spec has no such learner (it has %s)", name, strings.Join(have, ", "))}
		}
		learners = append(learners, l)
	}
	return learners, nil
}

// hashData returns the SHA-256 of the train, dev and test files by corpus
// name, for the manifest, the models' provenance and the checkpoints.
func hashData(s *spec.Spec) (map[string]string, error) {
	hashes := map[string]string{}
	for _, c := range s.Corpora {
		if c.Name != s.Evaluation.Train && c.Name != s.Evaluation.Test && c.Name != s.Evaluation.Dev {
			continue
		}
		h, err := fileio.SHA256File(c.Path)
		if err != nil {
			return nil, err
		}
		hashes[c.Name] = h
	}
	return hashes, nil
}

// prepare encodes the training side, checks the test corpus and only then
// makes the output folders (and the checkpoint folder), so that a bad
// corpus fails the run before any model is written and leaves nothing.
func prepare(ctx context.Context, o Options) (*encoded, error) {
	start := time.Now()
	// Until the collection below, which ends the phase.
	defer tightenGC(o.PhaseGCPercent)()
	enc, err := encodeTraining(ctx, o)
	if err != nil {
		return nil, err
	}
	if err := checkTest(o); err != nil {
		return nil, err
	}
	for _, d := range []string{o.OutDir, filepath.Join(o.OutDir, rundir.ModelsDir), filepath.Join(o.OutDir, rundir.PredictionsDir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("output folder: %w", err)
		}
	}
	if o.CheckpointEvery > 0 || o.Resume {
		if err := startCheckpoints(o); err != nil {
			return nil, err
		}
	}
	// The sentences and encoder buffers are garbage now; collecting them
	// before a learner allocates its large buffers keeps the heap (and the
	// peak RSS) near the live size instead of twice it.
	debug.FreeOSMemory()
	o.Log.Info().Int("sentences", enc.train.NumSentences()).Int("tokens", enc.train.NumTokens()).
		Int("attributes", enc.mapper.Attrs().Len()).Int("labels", enc.mapper.Labels().Len()).
		Dur("elapsed", time.Since(start)).Msg("training corpus encoded")
	return enc, nil
}

// tightenGC lowers the garbage collector's target to percent (if > 0)
// unless it is lower already or switched off (GOGC=off), and returns the
// function that puts the previous setting back. Reading and encoding a
// training corpus holds the corpus text, the attribute map and the growing
// dataset at once and allocates as it goes, so at the command's GOGC of 50
// its heap peaked at 1.5 times a live size training never reaches again
// (CoNLL-2000's CRF run: 150 MB of RSS against 145 MB in training); loading
// the model back puts a second copy of the attribute names beside the
// training encoding. At 10 these phases cost a few more collections (a
// tenth of a CPU second on CoNLL-2000) and stay below training's peak.
func tightenGC(percent int) (restore func()) {
	if percent <= 0 {
		return func() {}
	}
	old := debug.SetGCPercent(percent)
	if old < percent {
		debug.SetGCPercent(old)
	}
	return func() { debug.SetGCPercent(old) }
}

// writeResults writes the run's metrics, manifest, comparisons and
// reports, removes its finished checkpoints and prints the table.
func writeResults(o Options, res *Result, manifest *rundir.Manifest) error {
	s := o.Spec
	if err := rundir.WriteMetrics(o.OutDir, res.Metrics); err != nil {
		return err
	}
	if err := rundir.WriteManifest(o.OutDir, manifest); err != nil {
		return err
	}
	if len(res.Comparisons) > 0 {
		if err := rundir.WriteComparisons(o.OutDir, res.Comparisons); err != nil {
			return err
		}
	}
	// Both reports render the run as written, loaded once.
	loaded, err := htmlreport.Load(o.OutDir)
	if err != nil {
		return fmt.Errorf("report.html: %w", err)
	}
	var table bytes.Buffer
	WriteTable(&table, res, s.Labels.Scheme)
	report := fmt.Sprintf("# %s\n\n%s\n```\n%s```\n", s.Name, s.Description, table.String())
	report += htmlreport.TuningMarkdown(loaded, res.Order)
	report += stagesMarkdown(res, manifest)
	report += rerankMarkdown(res)
	if err := fileio.WriteFile(filepath.Join(o.OutDir, rundir.ReportMarkdown), []byte(report)); err != nil {
		return err
	}
	if err := htmlreport.WriteRun(o.OutDir, loaded); err != nil {
		return fmt.Errorf("report.html: %w", err)
	}
	// Finished: nothing is left to resume. The folder is this run's own
	// (OutDir is a partial folder of rundir's, or a fold's inside one).
	if err := os.RemoveAll(filepath.Join(o.OutDir, CheckpointDir)); err != nil {
		return err
	}
	if o.Stdout != nil {
		io.Copy(o.Stdout, &table)
	}
	return nil
}

// newManifest records where the run came from.
func newManifest(o Options, enc *encoded, dataHashes map[string]string, learners map[string]rundir.ManifestLearner) (*rundir.Manifest, error) {
	s := o.Spec
	specJSON, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return &rundir.Manifest{
		Experiment: s.Name, Description: s.Description,
		SpecFile: s.File, SpecSHA256: s.Hash, Spec: specJSON, SpecSource: string(s.Source),
		DataSHA256: dataHashes, TrellisVersion: Version(), VCSRevision: vcsRevision(),
		GoVersion: runtime.Version(), OSArch: runtime.GOOS + "/" + runtime.GOARCH,
		Seed: s.Seed, Threads: o.Threads, Command: o.Command, WorkingDirectory: workingDirectory(),
		TrainCorpus: s.Evaluation.Train, DevCorpus: s.Evaluation.Dev, TestCorpus: s.Evaluation.Test,
		LabelColumn: s.Labels.Column, Scheme: s.Labels.Scheme, Encode: s.Labels.Encode,
		Learners: learners, Plugins: manifestPlugins(enc.mapper.Templates()),
		Attributes: enc.mapper.Attrs().Len(), Labels: enc.mapper.Labels().Names(),
	}, nil
}

// ArgumentError is a mistake in what the caller asked for — a learner the
// spec lacks, no sentences to train on — rather than a failure of the
// work: the caller can fix the request (cmd/trellis makes it exit code 2).
type ArgumentError struct{ Msg string }

func (e *ArgumentError) Error() string { return e.Msg }

// checkTest reads the test corpus through, keeping nothing, so that a data
// error fails the run before any model is written; its gold labels are
// checked against the declared scheme (a warning).
func checkTest(o Options) error {
	o.trace("check " + o.Spec.Evaluation.Test)
	_, d, err := checkCorpus(o.Spec, o.Spec.Evaluation.Test)
	if err == nil && !o.dataChecked {
		o.warn(d)
	}
	return err
}

// warn passes a diagnostic, if any, to Options.Warn.
func (o Options) warn(d *hcl.Diagnostic) {
	if d != nil && o.Warn != nil {
		o.Warn(hcl.Diagnostics{d})
	}
}

// checkTraining checks the training (or dev) sentences' gold labels
// against the declared scheme: a contradiction that constrained decoding
// would turn against the gold labels stops the run as a spec error.
func checkTraining(o Options, c *spec.Corpus, labelCol int, sents []*corpus.Sentence, training bool) error {
	if o.dataChecked {
		return nil
	}
	check := newSchemeCheck(o.Spec, c, labelCol)
	for _, st := range sents {
		check.add(st)
	}
	d := check.diagnostic(o.Spec, training)
	if d != nil && d.Severity == hcl.DiagError {
		return &DiagnosticsError{hcl.Diagnostics{d}}
	}
	o.warn(d)
	return nil
}

func encodeTraining(ctx context.Context, o Options) (*encoded, error) {
	s := o.Spec
	mp, err := trainingMapper(s)
	if err != nil {
		return nil, err
	}
	o.trace("read " + s.Evaluation.Train)
	sents, err := readCorpus(s.Corpus(s.Evaluation.Train))
	if err != nil {
		mp.Close() // its extractors may hold plugin processes
		return nil, err
	}
	readDev := func() ([]*corpus.Sentence, error) {
		if s.Evaluation.Dev == "" {
			return nil, nil
		}
		o.trace("read " + s.Evaluation.Dev)
		return readCorpus(s.Corpus(s.Evaluation.Dev))
	}
	enc, err := encodeSentences(ctx, o, mp, sents, readDev)
	if err != nil {
		mp.Close()
		return nil, err
	}
	return enc, nil
}

// trainingMapper compiles the spec's templates against the columns of its
// training corpus's format, the label column resolved by the spec.
func trainingMapper(s *spec.Spec) (*feature.Mapper, error) {
	f, err := corpus.New(s.Corpus(s.Evaluation.Train).Format)
	if err != nil {
		return nil, err
	}
	// The templates that read no stage column: a second stage's encoding
	// is its own (stage.go).
	return newMapper(s, s.TemplatesFor(nil), feature.Columns{Names: f.Columns(), Label: f.LabelColumn()})
}

// encodeSentences checks the training sentences against the scheme, fits
// mp on them and encodes the dev sentences that readDev returns (none
// when it returns nil). The sentences come from the spec's corpora
// (encodeTraining) or from a program's memory (TrainSentences).
func encodeSentences(ctx context.Context, o Options, mp *feature.Mapper, sents []*corpus.Sentence, readDev func() ([]*corpus.Sentence, error)) (*encoded, error) {
	s, log, meter := o.Spec, o.Log, o.Progress
	trainC := s.Corpus(s.Evaluation.Train)
	labelCol := mp.Columns().Label
	enc := &encoded{mapper: mp, wordColumn: corpus.WordColumn(trainC.Format.Name, mp.Columns().Names, labelCol)}
	if err := checkTraining(o, trainC, labelCol, sents, true); err != nil {
		return nil, err
	}
	encodeLabels(s.Labels, labelCol, sents)
	if err := enc.readVocabulary(s.Labels.Scheme, sents); err != nil {
		return nil, err
	}
	bar := meter.Start("extracting features", int64(len(sents)), "sentences")
	var err error
	enc.train, err = mp.Fit(ctx, sents, feature.FitOptions{
		MinCount: s.Features.MinCount, BatchSize: tagger.BatchSize, Done: func(n int) { bar.Add(int64(n)) }, Base: o.base,
	})
	bar.Done()
	if err != nil {
		return nil, err
	}
	if err := enc.encodeNeural(s, sents); err != nil {
		return nil, err
	}
	enc.history = newTrainHistory(mp, sents)
	if enc.devSents, err = readDev(); err != nil {
		return nil, err
	}
	// From here on the attributes are only counted and saved (or looked
	// up, for dev): the slim index costs a sixth of the map's memory,
	// which would otherwise sit beside the optimizer's vectors at the
	// run's peak.
	defer mp.Attrs().Compact()
	if enc.devSents == nil {
		return enc, nil
	}
	if err := checkTraining(o, s.Corpus(s.Evaluation.Dev), labelCol, enc.devSents, false); err != nil {
		return nil, err
	}
	encodeLabels(s.Labels, labelCol, enc.devSents)
	var unknownLabels map[string]int
	if enc.dev, unknownLabels, err = mp.Encode(enc.devSents); err != nil {
		return nil, err
	}
	if len(unknownLabels) > 0 {
		log.Warn().Interface("labels", unknownLabels).Msg("dev corpus has labels unseen in training")
	}
	return enc, nil
}

// encodeLabels re-encodes the gold labels of checked sentences in the
// training encoding, in place: from then on the mapper, the learners, the
// constraints and dev scoring see only the encoding. Without one it does
// nothing.
func encodeLabels(l spec.Labels, labelCol int, sents []*corpus.Sentence) {
	if l.Encode == scheme.None {
		return
	}
	var gold, enc []string
	for _, st := range sents {
		gold = gold[:0]
		for _, tok := range st.Tokens {
			gold = append(gold, tok[labelCol])
		}
		enc = scheme.Convert(enc[:0], gold, l.Scheme, l.Encode)
		for i, tok := range st.Tokens {
			tok[labelCol] = enc[i]
		}
	}
}

// newMapper compiles the spec's templates against the training corpus's
// columns; a template that does not compile is reported at its block.
func newMapper(s *spec.Spec, instances []*spec.TemplateInstance, cols feature.Columns) (*feature.Mapper, error) {
	var templates []feature.MapperTemplate
	for _, ti := range instances {
		ts, err := ti.Spec()
		if err != nil {
			return nil, err
		}
		templates = append(templates, feature.MapperTemplate{Spec: ts, Template: ti.Template})
	}
	mp, err := feature.NewMapper(templates, cols)
	// Templates from a program's memory (framework/trellis) have no place
	// in a file to point at.
	if te := (*feature.TemplateError)(nil); errors.As(err, &te) && instances[te.Index].Range.Filename != "" {
		return nil, fmt.Errorf("%s: %w", instances[te.Index].Range, err)
	}
	return mp, err
}

// readVocabulary checks that every training token has a label and, for
// segmentation, notes the words the gold labels make of the characters
// (for OOV word recall). IV/OOV accuracy uses the model's own vocabulary
// instead (tagger.Vocabulary; see tagTest).
func (enc *encoded) readVocabulary(sch scheme.Scheme, sents []*corpus.Sentence) error {
	labelCol := enc.mapper.Columns().Label
	for _, st := range sents {
		for i := 0; i < st.Len(); i++ {
			if st.Tokens[i][labelCol] == "" {
				return fmt.Errorf("%s:%d: training token without a label", st.File, st.TokenLineNo[i])
			}
		}
	}
	if !sch.IsSegmentation() {
		return nil
	}
	enc.words = map[string]bool{}
	for _, st := range sents {
		chars, gold := make([]string, st.Len()), make([]string, st.Len())
		for i := range chars {
			chars[i], gold[i] = st.Tokens[i][enc.wordColumn], st.Tokens[i][labelCol]
		}
		for _, w := range corpus.WordsFromLabels(chars, gold) {
			enc.words[w] = true
		}
	}
	return nil
}

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

// constraints are the bigrams the spec's scheme forbids, over enc's
// labels (in the training encoding: encodeSentences), when the spec
// decodes constrained; nil otherwise.
func (enc *encoded) constraints(s *spec.Spec) *lattice.Constraints {
	if !s.Labels.Constrained {
		return nil
	}
	return scheme.Constraints(enc.mapper.Labels().Names(), s.Labels.Training())
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

// compareLearners adds each learner's confidence interval and every pair's
// significance tests, all seeded from the spec so reruns agree.
func compareLearners(res *Result, sch scheme.Scheme, seed uint64) error {
	o := eval.Options{Scheme: sch}
	for _, name := range res.Order {
		lm := res.Metrics[name]
		lm.MainMetric = eval.MetricName(sch)
		lm.MainValue = MainMetric(lm.Result, sch)
		lo, hi, err := eval.Interval(res.tests[name], o, BootstrapSamples, seed)
		if err != nil {
			return err
		}
		lm.CILow, lm.CIHigh = lo, hi
	}
	for i, a := range res.Order {
		for _, b := range res.Order[i+1:] {
			ta, tb := res.tests[a], res.tests[b]
			c, err := compareTests(ta, tb, sch, seed)
			if err != nil {
				return fmt.Errorf("comparing %s and %s: %w", a, b, err)
			}
			b01, b10, p := eval.McNemar(ta, tb)
			res.Comparisons = append(res.Comparisons, Comparison{A: a, B: b, Comparison: c,
				McNemarAWrongBRight: b01, McNemarARightBWrong: b10, McNemarP: p})
		}
	}
	return nil
}

// segmentationVocabulary returns the words of the training corpus, for
// OOV word recall in segmentation (nil for other schemes).
func segmentationVocabulary(sch scheme.Scheme, enc *encoded) map[string]bool {
	if !sch.IsSegmentation() {
		return nil
	}
	return enc.words
}

// devScorer returns the function learners call to score a model on the
// dev corpus with the experiment's main metric, decoding as the tagger
// will decode the test corpus (devDecoder).
func devScorer(enc *encoded, sch scheme.Scheme, constraints *lattice.Constraints, li *spec.LearnerInstance, net *neural.Network, threads int) func(m *linear.Model) float64 {
	d := newDevDecoder(enc, sch, constraints, li, threads)
	d.net = net
	return func(m *linear.Model) float64 {
		r := eval.Evaluate(d.decode(m), eval.Options{Scheme: sch})
		return MainMetric(r, sch)
	}
}

// devDecoder labels the dev corpus with a model in training the way
// tagger.Tagger labels the test corpus with the saved model: the
// learner's decode method and beam, the scheme's constraints, and the
// same loosening of a lattice without an allowed path
// (lattice.Relaxation). So a candidate or an epoch chosen on dev is
// chosen by the labels tagging would give. Sentences are decoded by up
// to threads goroutines, each writing only its own sentences' slots, and
// evaluated in corpus order, so the score does not depend on the thread
// count. Calls never overlap (they share sents and scorer).
type devDecoder struct {
	enc         *encoded
	constraints *lattice.Constraints
	method      lattice.Method
	beam        int
	threads     int
	sents       []eval.Sentence // Gold from the corpus, Pred rewritten by each decode
	scorer      linear.Scorer   // one packed copy of the state weights
	// net, when set, is the encoder trained with the model: its label
	// scores, under its weights at the call, join the templates'.
	net *neural.Network
	// joint, when set, decodes the documents (docs, [start, end) runs of
	// sentences; words [k] the tokens of sentence k) jointly in the
	// training scheme (joint.go).
	joint  *dual.Config
	scheme scheme.Scheme
	docs   [][2]int
	words  [][]string
	// trans, when set, decodes by transition search as the tagger decodes
	// a transition model (transition.go).
	trans *devTransition
}

func newDevDecoder(enc *encoded, sch scheme.Scheme, constraints *lattice.Constraints, li *spec.LearnerInstance, threads int) *devDecoder {
	n := enc.dev.NumSentences()
	d := &devDecoder{enc: enc, constraints: constraints, method: li.Decode, beam: li.Beam,
		threads: max(1, min(threads, n)), sents: make([]eval.Sentence, n)}
	labelCol := enc.mapper.Columns().Label
	for k := range d.sents {
		st := enc.devSents[k]
		d.sents[k].Gold = make([]string, st.Len())
		d.sents[k].Pred = make([]string, st.Len())
		for i := range d.sents[k].Gold {
			d.sents[k].Gold[i] = st.Tokens[i][labelCol]
		}
	}
	d.setJoint(li.Joint, sch)
	d.setTransition(li)
	return d
}

// decode labels every dev sentence with m and returns them, the
// predictions in the training scheme (valid until the next call).
func (d *devDecoder) decode(m *linear.Model) []eval.Sentence {
	d.scorer.Reset(m, m.W)
	// A latent model decodes over its states (constraints inherited from
	// their labels) and is scored on their labels.
	chain := m.Chain(m.W, d.constraints)
	var relax lattice.Relaxation
	if d.constraints != nil {
		relax.Free = m.Chain(m.W, nil)
	}
	var wg sync.WaitGroup
	for w := 0; w < d.threads; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			switch {
			case d.trans != nil:
				d.decodeTransitionShare(m, chain, w)
			case d.joint != nil:
				d.decodeJointShare(m, chain, relax, w)
			default:
				d.decodeShare(m, chain, relax, w)
			}
		}(w)
	}
	wg.Wait()
	return d.sents
}

// adder is a goroutine's Adder of the network's scores, nil without one.
func (d *devDecoder) adder() *neural.Adder {
	if d.net == nil {
		return nil
	}
	a, err := d.net.NewAdder(d.enc.mapper.Columns().Names)
	if err != nil {
		// The run checked the columns against the training corpus's
		// format, which the dev corpus shares.
		panic(err)
	}
	return a
}

// decodeShare decodes the dev sentences w, w+threads, … with m.
func (d *devDecoder) decodeShare(m *linear.Model, chain *lattice.Chain, relax lattice.Relaxation, w int) {
	labels := d.enc.mapper.Labels().Names()
	dec := lattice.NewDecoder(lattice.NewWorkspace(m.NumLabels), d.method, d.beam)
	dec.States = m.States() // posterior decoding sums a latent model's states
	var sc, decoded lattice.Scores
	chain.Attach(&sc)
	var path []int32
	add := d.adder()
	for k := w; k < len(d.sents); k += d.threads {
		d.scorer.Lattice(&sc, d.enc.dev, k)
		if add != nil {
			if err := add.Add(&sc, d.enc.devSents[k]); err != nil {
				panic(err) // the vocabulary maps every value to an ID
			}
		}
		path = append(path[:0], make([]int32, sc.N)...)
		if sc.N > 0 {
			decoded = sc
			dec.DecodeRelaxed(path, &decoded, relax)
		}
		m.ToLabels(path)
		for i, y := range path {
			d.sents[k].Pred[i] = labels[y]
		}
	}
}

// MainMetric is span F1 for span schemes, word F1 for segmentation, token
// accuracy otherwise.
func MainMetric(r *eval.Result, sch scheme.Scheme) float64 {
	switch {
	case sch.HasSpans() && r.F1 != nil:
		return *r.F1
	case r.Words != nil:
		return r.Words.F1
	}
	return r.Accuracy
}

// WriteTable prints the learner comparison.
func WriteTable(w io.Writer, res *Result, sch scheme.Scheme) {
	names := append([]string(nil), res.Order...)
	if len(names) == 0 {
		for n := range res.Metrics {
			names = append(names, n)
		}
		sort.Strings(names)
	}
	seg := sch.IsSegmentation()
	width := 14
	for _, n := range names {
		width = max(width, len(n))
	}
	fmt.Fprintf(w, "%-*s %9s", width, "learner", "accuracy")
	if sch.HasSpans() || seg {
		fmt.Fprintf(w, " %9s %9s %9s", "precision", "recall", "F1")
	}
	fmt.Fprintf(w, " %15s %9s %9s %10s %12s %10s\n", "95% CI", "IV acc", "OOV acc", "train s", "tokens/s", "model MB")
	for _, n := range names {
		m := res.Metrics[n]
		fmt.Fprintf(w, "%-*s %9.2f", width, n, 100*m.Accuracy)
		switch {
		case sch.HasSpans() && m.F1 != nil:
			fmt.Fprintf(w, " %9.2f %9.2f %9.2f", 100**m.Precision, 100**m.Recall, 100**m.F1)
		case seg && m.Words != nil:
			fmt.Fprintf(w, " %9.2f %9.2f %9.2f", 100*m.Words.Precision, 100*m.Words.Recall, 100*m.Words.F1)
		case sch.HasSpans() || seg:
			fmt.Fprintf(w, " %9s %9s %9s", "-", "-", "-")
		}
		fmt.Fprintf(w, " %15s %9s %9s %10.2f %12.0f %10.2f\n", fmt.Sprintf("[%.2f, %.2f]", 100*m.CILow, 100*m.CIHigh),
			pctOf(m.IVAccuracy, m.IVTokens), pctOf(m.OOVAccuracy, m.OOVTokens), m.TrainSeconds, m.TagTokensPerSecond, float64(m.ModelBytes)/(1<<20))
	}
	if len(res.Comparisons) == 0 {
		return
	}
	fmt.Fprintf(w, "\npairwise significance on %s (%d bootstrap / randomization samples over test sentences):\n",
		res.Comparisons[0].Metric, BootstrapSamples)
	pairWidth := 2*width + 4
	fmt.Fprintf(w, "%-*s %8s %17s %10s %12s\n", pairWidth, "A vs B", "A - B", "95% CI of A - B", "p (AR)", "McNemar p")
	for _, c := range res.Comparisons {
		fmt.Fprintf(w, "%-*s %+8.2f %17s %10.4f %12.4g\n", pairWidth, c.A+" vs "+c.B, 100*c.Diff,
			fmt.Sprintf("[%+.2f, %+.2f]", 100*c.CILow, 100*c.CIHigh), c.PValue, c.McNemarP)
	}
}

func workingDirectory() string {
	d, err := os.Getwd()
	if err != nil {
		return ""
	}
	return d
}

func compareTests(a, b []eval.Sentence, sch scheme.Scheme, seed uint64) (*eval.Comparison, error) {
	return eval.Compare(a, b, eval.Options{Scheme: sch}, BootstrapSamples, seed)
}

// manifestPlugins lists, by template name, the plugin, version, checksum,
// binary and config of every plugin template.
func manifestPlugins(templates []feature.TemplateSpec) map[string]model.Plugin {
	out := map[string]model.Plugin{}
	for _, p := range (&model.Header{Templates: templates}).Plugins() {
		out[p.Template] = p
	}
	return out
}

// pctOf renders an accuracy over n tokens as a percentage, "-" when there
// were none (a test set without unseen words has no OOV accuracy, not 0).
func pctOf(acc float64, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", 100*acc)
}
