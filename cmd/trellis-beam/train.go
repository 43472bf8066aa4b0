package main

// This file holds `trellis-beam train`: an online learner (perceptron,
// PA, AROW) trained by iterative parameter mixing, or a CRF-family
// learner (SGD by parameter mixing, L-BFGS/OWL-QN on the sharded
// gradient), whose shards' work runs on Beam, one pipeline run per epoch
// or evaluation (trainexec.go), into the run directory `trellis run`
// writes. The run itself is framework/run's, the same code as `trellis
// run`'s; only the shards' work runs elsewhere (online.WithExecutor,
// crf.WithExecutor), so the models are the same bytes.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/crf"
	"github.com/trellis-nlp/trellis/framework/learn/online"
	"github.com/trellis-nlp/trellis/framework/plugin"
	trellisrun "github.com/trellis-nlp/trellis/framework/run"
	"github.com/trellis-nlp/trellis/framework/rundir"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// trainUsage is the train command's synopsis.
const trainUsage = "usage: trellis-beam train SPEC --shards S [--learner NAME] [--out DIR] [--var name=value]... [--workers W] [--threads N] [--checkpoint-every N] [--force] [--runner prism|flink|spark|dataflow|…]\n" +
	"       trellis-beam train --resume DIR [--workers W] [--threads N] [--runner …]\n"

// trainOptions are train's flags, as given.
type trainOptions struct {
	spec    string
	shards  int // 0: as the spec says
	learner string
	out     string
	vars    spec.Vars
	workers int // 0: min(shards, CPUs)
	threads int
	every   int
	resume  string
	force   bool
	// resumed, set by resume (not a flag), is the command line the
	// interrupted run recorded, which the resumed one records again.
	resumed []string
}

// trainFlags registers train's flags on fs into o.
func trainFlags(fs *flag.FlagSet, o *trainOptions) {
	o.vars = spec.Vars{}
	fs.IntVar(&o.shards, "shards", 0, "the learner's `S` fixed shards (its shards setting in the spec, which must say the same; default: the spec's)")
	fs.StringVar(&o.learner, "learner", "", "train the learner `NAME` (required when the spec has several)")
	fs.StringVar(&o.out, "out", "", "run directory `DIR` (default runs/<experiment name>)")
	fs.Var(o.vars, "var", "set a spec variable: `name=value` (repeatable)")
	fs.IntVar(&o.workers, "workers", 0, "deal the shards into `W` work elements, which the runner spreads over its workers (default: min(S, CPUs)); the bytes do not depend on it")
	fs.IntVar(&o.threads, "threads", runtime.NumCPU(), "`N` threads for dev scoring and tagging the test corpus, as trellis run's")
	fs.IntVar(&o.every, "checkpoint-every", 0, "save the training state every `N` epochs (in DIR/checkpoints, for --resume)")
	fs.StringVar(&o.resume, "resume", "", "continue the interrupted run in `DIR` (made with --checkpoint-every)")
	fs.BoolVar(&o.force, "force", false, "replace an --out folder that holds files trellis did not write (set aside, never deleted)")
}

// parseInterspersed parses fs's flags wherever they stand among the
// positional arguments, which it returns.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, &usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional, args = append(positional, args[0]), args[1:]
	}
}

// runTrain is `trellis-beam train` after the flags: the exit code.
func runTrain(ctx context.Context, o trainOptions, stdout, stderr io.Writer) int {
	zerolog.DurationFieldUnit = time.Second
	log := zerolog.New(zerolog.ConsoleWriter{Out: stderr, TimeFormat: "15:04:05"}).Level(zerolog.InfoLevel).With().Timestamp().Logger()
	err := startTrain(ctx, o, stdout, stderr, log)
	if err == nil {
		return exitOK
	}
	var se specError
	if !errors.As(err, &se) {
		fmt.Fprintf(stderr, "trellis-beam train: %v\n", err)
	}
	var ue *usageError
	if errors.As(err, &ue) || errors.As(err, &se) {
		return exitUsage
	}
	if errors.Is(err, context.Canceled) {
		return 130
	}
	return exitFailure
}

// specError is a spec or data mistake already printed as diagnostics.
type specError struct{}

func (specError) Error() string { return "the spec has errors" }

// startTrain checks the options, loads the spec and runs it.
func startTrain(ctx context.Context, o trainOptions, stdout, stderr io.Writer, log zerolog.Logger) error {
	if o.resume != "" {
		if o.spec != "" || o.shards != 0 || o.learner != "" || o.out != "" || len(o.vars) > 0 || o.every != 0 || o.force {
			return usagef("--resume DIR takes no spec and no other setting than --workers, --threads and the runner's: the run continues as it was started")
		}
		return resume(ctx, o, stdout, stderr, log)
	}
	switch {
	case o.spec == "":
		return usagef("train takes one spec file\n%s", trainUsage)
	case o.shards < 0 || o.workers < 0 || o.every < 0:
		return usagef("--shards, --workers and --checkpoint-every must be at least 1")
	case o.threads < 1:
		return usagef("--threads must be at least 1")
	}
	host := plugin.NewHost(plugin.Options{Log: log, Path: filepath.SplitList(os.Getenv("TRELLIS_PLUGIN_PATH")),
		AllowVersionChange: os.Getenv("TRELLIS_ALLOW_PLUGIN_VERSION_CHANGE") == "1"})
	host.KillOnDone(ctx)
	defer host.Close()
	templates, learners := builtin.Registries()
	host.Register(templates)
	s, diags := spec.LoadFile(o.spec, o.vars, spec.Registries{Templates: templates, Learners: learners})
	if len(diags) > 0 {
		src, _ := os.ReadFile(o.spec)
		spec.WriteDiagnostics(stderr, diags, map[string][]byte{o.spec: src})
	}
	if diags.HasErrors() {
		if err := plugin.Failure(diags); err != nil {
			return err
		}
		return specError{}
	}
	li, shards, err := pickLearner(s, &o)
	if err != nil {
		return err
	}
	if o.workers == 0 {
		o.workers = min(shards, runtime.NumCPU())
	}
	return trainRun(ctx, &o, s, li, runSetup{templates: templates, stdout: stdout, stderr: stderr, log: log})
}

// pickLearner returns the learner the run trains and its shards setting,
// refusing what trellis-beam cannot train as `trellis run` would.
func pickLearner(s *spec.Spec, o *trainOptions) (*spec.LearnerInstance, int, error) {
	var li *spec.LearnerInstance
	switch {
	case o.learner != "":
		if li = s.Learner(o.learner); li == nil {
			return nil, 0, usagef("--learner %q: the spec has no such learner", o.learner)
		}
	case len(s.Learners) == 1:
		li = s.Learners[0]
	default:
		return nil, 0, usagef("the spec has %d learners: name the one to train with --learner", len(s.Learners))
	}
	o.learner = li.Name
	shards, err := shardsOf(li)
	if err != nil {
		return nil, 0, err
	}
	switch {
	case s.Evaluation.Folds > 1:
		return nil, 0, usagef("the spec cross-validates (folds = %d): trellis-beam train runs a plain train/test run", s.Evaluation.Folds)
	case s.Tune(li.Name) != nil || li.Stage != nil || li.Rerank != nil || li.Encoder != nil:
		return nil, 0, usagef("learner %q is tuned, staged, reranked or has an encoder: trellis-beam train trains a plain learner", li.Name)
	case shards < 2:
		return nil, 0, usagef("learner %q has no shards setting: add `shards = %d` to its block in %s (trellis run and trellis reproduce then train the same model)",
			li.Name, max(o.shards, 2), s.File)
	case o.shards != 0 && o.shards != shards:
		return nil, 0, usagef("--shards %d, but learner %q says shards = %d in %s: the spec is the record of the run, so they must agree",
			o.shards, li.Name, shards, s.File)
	}
	return li, shards, nil
}

// shardsOf is li's shards setting, for the learners trellis-beam trains:
// the online ones (mixed epochs) and the CRF family (SGD's mixed epochs,
// L-BFGS's and OWL-QN's sharded gradient), not latent.
func shardsOf(li *spec.LearnerInstance) (int, error) {
	if m, ok := li.Learner.(online.Mixable); ok {
		return m.OnlineConfig().Shards, nil
	}
	if _, ok := li.Learner.(*crf.Learner); !ok {
		return 0, usagef("learner %q is a %s: trellis-beam train trains the online learners (perceptron, pa, arow) by iterative parameter mixing and the CRF family (crf, maxent, memm) on sharded data", li.Name, li.Type)
	}
	if c, ok := li.Learner.Config().(*crf.Config); ok && c.HiddenStates > 1 {
		return 0, usagef("learner %q is a latent CRF (hidden_states = %d): trellis-beam train trains the CRF without hidden states", li.Name, c.HiddenStates)
	}
	sh, ok := li.Learner.Config().(learn.Sharded)
	if !ok {
		return 0, fmt.Errorf("learner %q: its settings have no shards", li.Name)
	}
	return sh.ShardCount(), nil
}

// runSetup is what the run gets besides the spec.
type runSetup struct {
	templates      *feature.Registry
	stdout, stderr io.Writer
	log            zerolog.Logger
}

// recordedCommand is the `trellis run` command line that trains the same
// run in process: the manifest and the checkpoints record it, so that
// `trellis reproduce` and `trellis run --resume` take the run, and
// `trellis-beam train --resume` reads it back (resume).
func recordedCommand(o *trainOptions, dir string) []string {
	c := []string{"trellis", "run", "--learner", o.learner, "--out", dir, "--threads", strconv.Itoa(o.threads)}
	for _, k := range slices.Sorted(maps.Keys(o.vars)) {
		c = append(c, "--var", k+"="+o.vars[k])
	}
	if o.every > 0 {
		c = append(c, "--checkpoint-every", strconv.Itoa(o.every))
	}
	return append(c, o.spec)
}

// resume continues the interrupted run in o.resume from the command its
// checkpoints recorded.
func resume(ctx context.Context, o trainOptions, stdout, stderr io.Writer, log zerolog.Logger) error {
	abs, err := filepath.Abs(o.resume)
	if err != nil {
		return err
	}
	rec, err := trellisrun.ReadRunRecord(abs)
	if err != nil {
		return err
	}
	if len(rec.Command) < 3 || rec.Command[1] != "run" {
		return fmt.Errorf("%s: its checkpoints record no trellis run command", abs)
	}
	var r trainOptions
	fs := flag.NewFlagSet("resume", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	trainFlags(fs, &r)
	pos, err := parseInterspersed(fs, rec.Command[2:])
	if err != nil || len(pos) != 1 {
		return fmt.Errorf("%s: its checkpoints record a command trellis-beam train cannot continue: %s", abs, strings.Join(rec.Command, " "))
	}
	if rec.Dir != "" {
		if err := os.Chdir(rec.Dir); err != nil {
			return fmt.Errorf("the run was started in %s: %w", rec.Dir, err)
		}
	}
	r.spec, r.out, r.resumed = pos[0], abs, rec.Command
	r.workers, r.threads = o.workers, o.threads
	log.Info().Strs("command", rec.Command).Str("dir", abs).Msg("resuming")
	return startTrain(ctx, r, stdout, stderr, log)
}

// trainRun opens the run directory, runs the spec's learner with the
// Beam executor, and commits the directory, as `trellis run` does.
func trainRun(ctx context.Context, o *trainOptions, s *spec.Spec, li *spec.LearnerInstance, rs runSetup) error {
	dir := o.out
	if dir == "" {
		dir = filepath.Join("runs", s.Name)
	}
	command, resuming := recordedCommand(o, dir), o.resumed != nil
	if resuming {
		command = o.resumed
	}
	rd, err := rundir.Open(dir, rundir.Options{Resume: resuming, Force: o.force, Command: command})
	if err != nil {
		var fe *rundir.ForeignError
		if errors.As(err, &fe) && !fe.Finished {
			return usagef("%s", fe.Error())
		}
		return err
	}
	cfg, err := json.Marshal(li.Config)
	if err != nil {
		return err
	}
	ex := &beamExecutor{work: rd.Work, learner: li.Type, config: cfg, workers: o.workers, log: rs.log.With().Str("learner", li.Name).Logger()}
	opts := trellisrun.Options{
		Spec: s, Templates: rs.templates, OutDir: rd.Work, Learners: []string{li.Name},
		Threads: o.threads, Log: rs.log, Command: command, Stdout: rs.stdout,
		CheckpointEvery: o.every, Resume: resuming,
		Warn: func(d hcl.Diagnostics) {
			spec.WriteDiagnostics(rs.stderr, d, map[string][]byte{s.File: s.Source})
		},
		PhaseGCPercent: phaseGCPercent(),
	}
	ctx = crf.WithExecutor(online.WithExecutor(ctx, ex), ex)
	if _, err := trellisrun.Run(ctx, opts); err != nil {
		keep := trellisrun.Resumable(rd.Work)
		if abortErr := rd.Abort(keep); abortErr != nil {
			rs.log.Error().Err(abortErr).Str("partial", rd.Work).Msg("removing the failed run's partial folder")
		}
		if keep {
			rs.log.Warn().Str("partial", rd.Work).Msg("the run's checkpoints are kept; trellis-beam train --resume " + dir + " continues it")
		}
		return runError(s, err, rs.stderr)
	}
	setAside, err := rd.Commit()
	if err != nil {
		return err
	}
	if setAside != "" {
		rs.log.Warn().Str("set_aside", setAside).Msg("--force: the folder's earlier content was renamed, not deleted")
	}
	rs.log.Info().Str("dir", dir).Msg("run complete")
	return nil
}

// runError maps what stopped a run to its exit code, as trellis run.
func runError(s *spec.Spec, err error, stderr io.Writer) error {
	var de *trellisrun.DiagnosticsError
	if errors.As(err, &de) {
		spec.WriteDiagnostics(stderr, de.Diags, map[string][]byte{s.File: s.Source})
		return specError{}
	}
	if ae := (*trellisrun.ArgumentError)(nil); errors.As(err, &ae) {
		return usagef("%s", ae.Msg)
	}
	return err
}

// phaseGCPercent is trellis run's: a tighter collector while encoding,
// unless GOGC is set.
func phaseGCPercent() int {
	if os.Getenv("GOGC") != "" {
		return 0
	}
	return 10
}
