// Run and its Options, the session that holds one run's state, and the
// loop over the learners.

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

// Options configure one run. They are input only: the run reads them and
// never writes them; what it derives lives in its session.
type Options struct {
	// Spec is the experiment. Required.
	Spec *spec.Spec
	// Templates compile the saved models' templates when the run tags
	// with them (the registry the spec was decoded with). Required.
	Templates *feature.Registry
	// OutDir is the run directory, which the caller has made safe to
	// write (framework/rundir). Not read by Train and TrainSentences.
	OutDir string
	// Learners, when non-empty, restricts the run to these learner names.
	Learners []string
	// Threads bounds the goroutines of training, dev scoring and
	// tagging; 0 means one per CPU. The bytes of every model do not
	// depend on it.
	Threads int
	// Log receives the run's progress as structured events.
	Log zerolog.Logger
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
	// DatasetDir is the folder under which a training set kept on disk
	// (features.dataset) is written, in a new folder of its own that the
	// run removes at its end; "" writes it beside OutDir (in the system's
	// temporary folder without one).
	DatasetDir string
	// Dataset, when set, overrides the spec's features.dataset (a
	// spec.Dataset* value); MemoryBudget > 0 overrides its
	// memory_budget. Neither changes a model's bytes.
	Dataset      string
	MemoryBudget int64
}

// session is one run's state: the spec it runs and the folder it writes
// (the caller's, or a fold's, a variant's, a tuning encoding's, a
// jackknifing fold's), with what the run derived from Options. A nested
// run gets a copy from one of the methods below; a session is not written
// once its run has started.
type session struct {
	opts     *Options // as the caller gave them; read only
	spec     *spec.Spec
	outDir   string
	log      zerolog.Logger
	threads  int // Options.Threads, or the number of CPUs for 0
	learners []string
	stdout   io.Writer       // nil: print nothing
	progress *progress.Meter // nil: no progress line
	// dataChecked is set on the runs of a cross-validation or ablation,
	// whose corpora checkUpFront checked once, and on the encodings
	// derived from a checked corpus (a tuning's, a stage's, a fold's).
	dataChecked bool
	// base, when set, is the mapper of the model a learner continues
	// (continue.go): the training encoding keeps its IDs.
	base *feature.MapperRecord
	// onTrace, when set (by tests), hears which corpus is read when and
	// where a tuning search starts and ends.
	onTrace func(event string)
	// scratch is what the run removes at its end (on-disk datasets),
	// shared with the sessions derived from this one.
	scratch *scratch
}

// newSession is the session of a run asked for with o.
func newSession(o *Options) *session {
	threads := o.Threads
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	return &session{opts: o, spec: o.Spec, outDir: o.OutDir, log: o.Log, threads: threads,
		learners: o.Learners, stdout: o.Stdout, progress: o.Progress, scratch: &scratch{}}
}

// checked is a copy of ss for sp, a spec derived from ss's whose corpora
// ss has checked (another min_count, a tuning fold).
func (ss *session) checked(sp *spec.Spec) *session {
	c := *ss
	c.spec, c.dataChecked = sp, true
	return &c
}

// inner is checked for the models a run trains on the way (a stage's
// first stage, a reranker's jackknifing folds): they log with log and
// show no progress of their own.
func (ss *session) inner(sp *spec.Spec, log zerolog.Logger) *session {
	c := ss.checked(sp)
	c.log, c.progress = log, nil
	return c
}

// nested is checked for a whole run inside this one (a cross-validation
// fold, an ablation variant) into folder dir: it logs with log and prints
// nothing, since the outer run prints the summary.
func (ss *session) nested(sp *spec.Spec, dir string, log zerolog.Logger) *session {
	c := ss.checked(sp)
	c.outDir, c.log, c.stdout = dir, log, nil
	return c
}

// continuing is ss for learner li, which continues its init_model (nil:
// ss itself): encodings keep the model's IDs.
func (ss *session) continuing(li *spec.LearnerInstance) *session {
	if li.InitModel == nil {
		return ss
	}
	c := *ss
	c.base = baseRecord(li)
	return &c
}

// trace passes event to onTrace, if set.
func (ss *session) trace(event string) {
	if ss.onTrace != nil {
		ss.onTrace(event)
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
	ss := newSession(&o)
	defer ss.scratch.close()
	return ss.run(ctx)
}

// run carries out the session's experiment.
func (ss *session) run(ctx context.Context) (*Result, error) {
	s := ss.spec
	learners, err := selectLearners(s, ss.learners)
	if err != nil {
		return nil, err
	}
	dataHashes, err := hashData(s)
	if err != nil {
		return nil, err
	}
	enc, err := prepare(ctx, ss)
	if err != nil {
		return nil, err
	}
	if err := checkShards(learners, enc.train); err != nil {
		return nil, err
	}
	sch := s.Labels.Scheme
	res := &Result{Dir: ss.outDir, Metrics: rundir.Metrics{}, tests: map[string][]eval.Sentence{}}
	manifestLearners := map[string]rundir.ManifestLearner{}
	staged := stagedEncodings{}
	defer staged.close()
	for _, li := range learners {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		lenc, err := staged.get(ctx, ss, enc, li)
		if err != nil {
			return nil, fmt.Errorf("learner %q: %w", li.Name, err)
		}
		ml, err := tuneAndRun(ctx, ss, lenc, li, dataHashes, res)
		if err != nil {
			return nil, fmt.Errorf("learner %q: %w", li.Name, err)
		}
		manifestLearners[li.Name] = *ml
	}
	if err := compareLearners(res, sch, s.Seed); err != nil {
		return nil, err
	}
	manifest, err := newManifest(ss, enc, dataHashes, manifestLearners)
	if err != nil {
		return nil, err
	}
	if err := writeResults(ss, res, manifest); err != nil {
		return nil, err
	}
	return res, nil
}

// tuneAndRun tunes a learner if the spec says so, trains it (or keeps
// the tuning's winner), tests it, and adds its figures to res.
func tuneAndRun(ctx context.Context, ss *session, enc *encoded, li *spec.LearnerInstance, dataHashes map[string]string, res *Result) (*rundir.ManifestLearner, error) {
	if li.InitModel != nil {
		// Its own encoding, from the model's mapper; a tuning's
		// re-encodings keep the model's IDs too.
		var err error
		if enc, err = continuedEncoding(ctx, ss, li); err != nil {
			return nil, err
		}
		ss = ss.continuing(li)
	}
	tu, err := tuneLearner(ctx, ss, enc, li)
	if err != nil {
		return nil, err
	}
	lr, err := newLearnerRun(ss, tu.enc, tu.li, dataHashes).train(ctx, tu.pre)
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
		if err := rundir.WriteTuning(ss.outDir, tu.record); err != nil {
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
