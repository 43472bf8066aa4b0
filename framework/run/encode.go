// The training encoding every learner shares: reading, checking and
// encoding the train and dev corpora, and the GC phases around it.

package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/rundir"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/spec"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

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

// prepare encodes the training side, checks the test corpus and only then
// makes the output folders (and the checkpoint folder), so that a bad
// corpus fails the run before any model is written and leaves nothing.
func prepare(ctx context.Context, ss *session) (*encoded, error) {
	start := time.Now()
	// Until the collection below, which ends the phase.
	defer tightenGC(ss.opts.PhaseGCPercent)()
	enc, err := encodeTraining(ctx, ss)
	if err != nil {
		return nil, err
	}
	if err := checkTest(ss); err != nil {
		return nil, err
	}
	for _, d := range []string{ss.outDir, filepath.Join(ss.outDir, rundir.ModelsDir), filepath.Join(ss.outDir, rundir.PredictionsDir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("output folder: %w", err)
		}
	}
	if ss.opts.CheckpointEvery > 0 || ss.opts.Resume {
		if err := startCheckpoints(ss); err != nil {
			return nil, err
		}
	}
	// The sentences and encoder buffers are garbage now; collecting them
	// before a learner allocates its large buffers keeps the heap (and the
	// peak RSS) near the live size (docs/results.md, "Speed: peak memory of
	// CRF training").
	debug.FreeOSMemory()
	ss.log.Info().Int("sentences", enc.train.NumSentences()).Int("tokens", enc.train.NumTokens()).
		Int("attributes", enc.mapper.Attrs().Len()).Int("labels", enc.mapper.Labels().Len()).
		Dur("elapsed", time.Since(start)).Msg("training corpus encoded")
	return enc, nil
}

// tightenGC lowers the garbage collector's target to percent (if > 0)
// unless it is lower already or switched off (GOGC=off), and returns the
// function that puts the previous setting back. Reading and encoding a
// training corpus holds the corpus text, the attribute map and the growing
// dataset at once and allocates as it goes, so at the command's GOGC its
// heap peaked above any live size training reaches; loading the model
// back puts a second copy of the attribute names beside the training
// encoding. A low target costs these phases a few more collections and
// keeps them below training's peak (docs/results.md, "Speed: peak memory
// of CRF training").
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

// checkTest reads the test corpus through, keeping nothing, so that a data
// error fails the run before any model is written; its gold labels are
// checked against the declared scheme (a warning).
func checkTest(ss *session) error {
	ss.trace("check " + ss.spec.Evaluation.Test)
	_, d, err := checkCorpus(ss.spec, ss.spec.Evaluation.Test)
	if err == nil && !ss.dataChecked {
		ss.warn(d)
	}
	return err
}

// warn passes a diagnostic, if any, to Options.Warn.
func (ss *session) warn(d *hcl.Diagnostic) {
	if d != nil && ss.opts.Warn != nil {
		ss.opts.Warn(hcl.Diagnostics{d})
	}
}

// checkTraining checks the training (or dev) sentences' gold labels
// against the declared scheme: a contradiction that constrained decoding
// would turn against the gold labels stops the run as a spec error.
func checkTraining(ss *session, c *spec.Corpus, labelCol int, sents []*corpus.Sentence, training bool) error {
	if ss.dataChecked {
		return nil
	}
	check := newSchemeCheck(ss.spec, c, labelCol)
	for _, st := range sents {
		check.add(st)
	}
	return schemeVerdict(ss, check, training)
}

// schemeVerdict is what a tally of the training (or dev) sentences says:
// a spec error, a warning passed on, or nothing.
func schemeVerdict(ss *session, check *schemeCheck, training bool) error {
	d := check.diagnostic(ss.spec, training)
	if d != nil && d.Severity == hcl.DiagError {
		return &DiagnosticsError{hcl.Diagnostics{d}}
	}
	ss.warn(d)
	return nil
}

// encodeTraining reads, checks and encodes the spec's training corpus and
// encodes its dev corpus: read whole (Mapper.Fit), or streamed when
// features.dataset puts the training set on disk or lets it spill
// (dataset.go).
func encodeTraining(ctx context.Context, ss *session) (*encoded, error) {
	s := ss.spec
	mp, err := trainingMapper(s)
	if err != nil {
		return nil, err
	}
	if at := ss.datasetPlace(); at.place != inMemory {
		why := streamRefusal(s, mp)
		switch {
		case why == "":
			return encodeOnDisk(ctx, ss, mp, at)
		case at.place == onDisk:
			mp.Close()
			return nil, placeRefused(ss, why)
		}
		ss.log.Info().Str("reason", why).Msg("dataset = \"auto\": the training set stays in memory")
	}
	ss.trace("read " + s.Evaluation.Train)
	sents, err := readCorpus(s.Corpus(s.Evaluation.Train))
	if err != nil {
		mp.Close() // its extractors may hold plugin processes
		return nil, err
	}
	enc, err := encodeSentences(ctx, ss, mp, sents, func() ([]*corpus.Sentence, error) { return readDev(ss) })
	if err != nil {
		mp.Close()
		return nil, err
	}
	return enc, nil
}

// readDev reads the spec's dev corpus (nil without one).
func readDev(ss *session) ([]*corpus.Sentence, error) {
	s := ss.spec
	if s.Evaluation.Dev == "" {
		return nil, nil
	}
	ss.trace("read " + s.Evaluation.Dev)
	return readCorpus(s.Corpus(s.Evaluation.Dev))
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
func encodeSentences(ctx context.Context, ss *session, mp *feature.Mapper, sents []*corpus.Sentence, readDev func() ([]*corpus.Sentence, error)) (*encoded, error) {
	s, meter := ss.spec, ss.progress
	trainC := s.Corpus(s.Evaluation.Train)
	labelCol := mp.Columns().Label
	enc := &encoded{mapper: mp, wordColumn: corpus.WordColumn(trainC.Format.Name, mp.Columns().Names, labelCol)}
	if err := checkTraining(ss, trainC, labelCol, sents, true); err != nil {
		return nil, err
	}
	encodeLabels(s.Labels, labelCol, sents)
	if err := enc.readVocabulary(s.Labels.Scheme, sents); err != nil {
		return nil, err
	}
	bar := meter.Start("extracting features", int64(len(sents)), "sentences")
	var err error
	enc.train, err = mp.Fit(ctx, sents, feature.FitOptions{
		MinCount: s.Features.MinCount, BatchSize: tagger.BatchSize, Done: func(n int) { bar.Add(int64(n)) }, Base: ss.base,
	})
	bar.Done()
	if err != nil {
		return nil, err
	}
	if err := enc.encodeNeural(s, sents); err != nil {
		return nil, err
	}
	enc.history = newTrainHistory(mp, sents)
	if err := encodeDev(ss, enc, readDev); err != nil {
		return nil, err
	}
	return enc, nil
}

// encodeStreamedWithDev is encodeStreamed followed by the dev corpus's
// encoding, closing mp on error.
func encodeStreamedWithDev(ctx context.Context, ss *session, mp *feature.Mapper, at streamPlace, readDev func() ([]*corpus.Sentence, error)) (*encoded, error) {
	enc, err := encodeStreamed(ctx, ss, mp, at)
	if err == nil {
		err = encodeDev(ss, enc, readDev)
	}
	if err != nil {
		mp.Close()
		return nil, err
	}
	return enc, nil
}

// encodeDev reads the dev sentences readDev returns (none when it returns
// nil), checks them and encodes them with the fitted mapper.
func encodeDev(ss *session, enc *encoded, readDev func() ([]*corpus.Sentence, error)) error {
	s, log, mp := ss.spec, ss.log, enc.mapper
	labelCol := mp.Columns().Label
	var err error
	if enc.devSents, err = readDev(); err != nil {
		return err
	}
	// From here on the attributes are only counted and saved (or looked
	// up, for dev): the slim index costs a fraction of the map's memory,
	// which would otherwise sit beside the optimizer's vectors at the
	// run's peak (docs/results.md, "Speed: hot rows and memory").
	defer mp.Attrs().Compact()
	if enc.devSents == nil {
		return nil
	}
	if err := checkTraining(ss, s.Corpus(s.Evaluation.Dev), labelCol, enc.devSents, false); err != nil {
		return err
	}
	encodeLabels(s.Labels, labelCol, enc.devSents)
	var unknownLabels map[string]int
	if enc.dev, unknownLabels, err = mp.Encode(enc.devSents); err != nil {
		return err
	}
	if len(unknownLabels) > 0 {
		log.Warn().Interface("labels", unknownLabels).Msg("dev corpus has labels unseen in training")
	}
	return nil
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
	if enc.words == nil { // a streamed encoding reads batch after batch
		enc.words = map[string]bool{}
	}
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

// constraints are the bigrams the spec's scheme forbids, over enc's
// labels (in the training encoding: encodeSentences), when the spec
// decodes constrained; nil otherwise.
func (enc *encoded) constraints(s *spec.Spec) *lattice.Constraints {
	if !s.Labels.Constrained {
		return nil
	}
	return scheme.Constraints(enc.mapper.Labels().Names(), s.Labels.Training())
}
