package run

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/progress"
	"github.com/trellis-nlp/trellis/framework/rundir"
	"github.com/trellis-nlp/trellis/framework/spec"
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

// ArgumentError is a mistake in what the caller asked for — a learner the
// spec lacks, no sentences to train on — rather than a failure of the
// work: the caller can fix the request (cmd/trellis makes it exit code 2).
type ArgumentError struct{ Msg string }

func (e *ArgumentError) Error() string { return e.Msg }
