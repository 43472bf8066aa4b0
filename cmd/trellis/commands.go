package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/plugin"
	"github.com/trellis-nlp/trellis/framework/plural"
	"github.com/trellis-nlp/trellis/framework/pretrained"
	"github.com/trellis-nlp/trellis/framework/progress"
	"github.com/trellis-nlp/trellis/framework/run"
	"github.com/trellis-nlp/trellis/framework/rundir"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/spec"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

func version() string { return run.Version() }

// loadSpec decodes a spec and prints its diagnostics. Plugin templates
// start their plugins while the spec is decoded (the plugin declares the
// schema its config block is decoded against), so the caller must close
// the returned host, which kills them; on error it is closed already.
func (a *app) loadSpec(ctx context.Context, path string, vars map[string]string) (*spec.Spec, spec.Registries, *plugin.Host, error) {
	host := a.newPluginHost(ctx)
	templates, learners := builtin.Registries()
	host.Register(templates)
	reg := spec.Registries{Templates: templates, Learners: learners}
	s, diags := spec.LoadFile(path, vars, reg)
	if len(diags) > 0 {
		src, _ := os.ReadFile(path)
		spec.WriteDiagnostics(a.stderr, diags, map[string][]byte{path: src})
	}
	if diags.HasErrors() {
		host.Close()
		if s == nil && len(diags) == 1 && diags[0].Subject == nil && diags[0].Summary == "Cannot read spec" {
			return nil, reg, nil, usagef("cannot read spec %s", path)
		}
		// A plugin that cannot start or crashes is a failure (exit 1),
		// not a mistake in the spec (exit 2).
		if err := plugin.Failure(diags); err != nil {
			return nil, reg, nil, err
		}
		return nil, reg, nil, specError{}
	}
	return s, reg, host, nil
}

func validateCommand() command {
	return command{
		Name:        "validate",
		Usage:       []string{"SPEC [--var name=value]... [--no-data]"},
		Summary:     "check a spec, and read its corpora as a run would",
		Description: "Decodes SPEC and reports every mistake with file:line:col, the source line and a suggestion; then reads the corpora it names as a run would, listing up to 10 data errors (file:line and the line), and checks their gold labels against the declared scheme, printing each corpus's sentences, tokens and labels. --no-data reads no corpus. Exit 0 when the spec would run, 2 when the spec or the data has errors.",
		Run:         (*app).cmdValidate,
	}
}

func (a *app) cmdValidate(ctx context.Context, args []string) error {
	fs := newFlagSet("validate", a.stderr)
	vars := spec.Vars{}
	fs.Var(vars, "var", "set a spec variable: `name=value` (repeatable)")
	noData := fs.Bool("no-data", false, "check the spec only, without reading the corpora")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("validate takes one spec file")
	}
	s, _, host, err := a.loadSpec(ctx, pos[0], vars)
	if err != nil {
		return err
	}
	defer host.Close()
	if !*noData {
		if err := a.checkData(s); err != nil {
			return err
		}
	}
	fmt.Fprintf(a.stdout, "%s: ok (experiment %q, %s, %s, %s)\n", pos[0], s.Name,
		plural.Count(len(s.Corpora), "corpus"), plural.Count(len(s.Features.Templates), "template"), plural.Count(len(s.Learners), "learner"))
	return nil
}

// checkData reads the corpora of s as a run would and prints each one's
// figures, or what is wrong with them.
func (a *app) checkData(s *spec.Spec) error {
	stats, diags, err := run.CheckData(s, nil)
	a.printDiagnostics(s, diags)
	switch {
	case err != nil:
		return a.listDataErrors(s, err)
	case diags.HasErrors():
		return specError{}
	}
	for _, st := range stats {
		fmt.Fprintf(a.stdout, "corpus %q: %s: %s, %s, %s\n", st.Name, st.Path,
			plural.Count(st.Sentences, "sentence"), plural.Count(st.Tokens, "token"), plural.Count(st.Labels, "label"))
	}
	return nil
}

// maxDataErrors bounds the data errors validate lists: enough to show
// whether one line is wrong or a whole file, few enough to read.
const maxDataErrors = 10

// listDataErrors prints the errors CheckData met reading the corpora of
// s, which are each corpus's first, with the data errors after them in
// the same file, up to maxDataErrors in all. It returns corpusErrors when
// all are data errors; a file that could not be read is a failure.
func (a *app) listDataErrors(s *spec.Spec, err error) error {
	var listed, failures []error
	read := map[string]bool{} // files read on past their first error
	for _, e := range unjoin(err) {
		var ce *corpus.Error
		switch {
		case errors.As(e, &ce):
			if read[ce.File] {
				continue // a second corpus of the same file, with the same error
			}
			read[ce.File] = true
			listed = append(listed, ce)
			c := corpusAt(s, ce.File)
			if c == nil {
				continue
			}
			more, err := moreDataErrors(c, ce.Line, maxDataErrors+1-len(listed))
			listed = append(listed, more...)
			if err != nil {
				failures = append(failures, err)
			}
		case errors.Unwrap(e) == nil:
			// CheckData's own findings (a corpus without sentences, a
			// training token without a label) wrap nothing; the
			// failures to read wrap their cause.
			listed = append(listed, e)
		default:
			failures = append(failures, e)
		}
	}
	for i, e := range listed {
		if i == maxDataErrors {
			fmt.Fprintf(a.stderr, "trellis: more data errors follow; these are the first %d\n", maxDataErrors)
			break
		}
		fmt.Fprintln(a.stderr, "trellis: error:", e)
	}
	if len(failures) > 0 {
		return errors.Join(failures...)
	}
	return corpusErrors{}
}

// unjoin returns the errors joined in err (errors.Join), or err alone.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// corpusAt returns the corpus of s read from path (the name its data
// errors give), nil if none is.
func corpusAt(s *spec.Spec, path string) *spec.Corpus {
	for _, c := range s.Corpora {
		if c.Path == path {
			return c
		}
	}
	return nil
}

// moreDataErrors returns the data errors of corpus c's file after line
// from, up to limit. A reader stops at its first error, so each is found
// by a fresh reader started on the line after the previous one, its line
// numbers shifted back to the file's. A file that cannot be read again
// from its start (a pipe) yields none.
func moreDataErrors(c *spec.Corpus, from, limit int) ([]error, error) {
	f, err := corpus.New(c.Format)
	if err != nil {
		return nil, err
	}
	fh, err := os.Open(c.Path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var errs []error
	for len(errs) < limit {
		if _, err := fh.Seek(0, io.SeekStart); err != nil {
			return errs, nil
		}
		in := bufio.NewReader(fh)
		if err := skipLines(in, from); err != nil {
			return errs, ignoreEOF(err)
		}
		err := readThrough(f.NewReader(in, c.Path, corpus.ReadOptions{}))
		var ce *corpus.Error
		if !errors.As(err, &ce) {
			return errs, ignoreEOF(err)
		}
		shifted := *ce
		shifted.Line += from
		errs = append(errs, &shifted)
		from = shifted.Line
	}
	return errs, nil
}

// readThrough reads r to its end: io.EOF, or the error that stopped it.
func readThrough(r corpus.Reader) error {
	for {
		if _, err := r.Read(); err != nil {
			return err
		}
	}
}

// skipLines reads n lines of in, however long.
func skipLines(in *bufio.Reader, n int) error {
	for range n {
		for {
			_, err := in.ReadSlice('\n')
			if err == nil {
				break
			}
			if err != bufio.ErrBufferFull {
				return err
			}
		}
	}
	return nil
}

func ignoreEOF(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

func runCommand() command {
	return command{
		Name: "run",
		Usage: []string{
			"SPEC [--out DIR] [--var name=value]... [--learner NAME]... [--threads N]",
			"SPEC --ablate LEARNER [--ablate-alone]",
			"SPEC --checkpoint-every N",
			"--resume DIR [--threads N]",
		},
		Summary:     "train and compare the learners a spec describes",
		Description: "Reads the corpora of SPEC, extracts the features once, trains every learner (or those named by --learner), tags the test set with each saved model and prints the comparison table with confidence intervals and significance tests. Everything lands in the run directory (default runs/<experiment>), which replaces DIR's previous run as a whole only when the run succeeds. A spec with folds = N in its evaluation block is cross-validated.",
		Run:         (*app).cmdRun,
	}
}

// checkpointTypes lists the learner types that save their training state
// (learn.CanCheckpoint), for --checkpoint-every's help.
func checkpointTypes() string {
	_, learners := builtin.Registries()
	return strings.Join(learn.Types(learners.Able(learn.CanCheckpoint)), ", ")
}

func (a *app) cmdRun(ctx context.Context, args []string) error {
	fs := newFlagSet("run", a.stderr)
	vars := spec.Vars{}
	var learners listFlag
	fs.Var(vars, "var", "set a spec variable: `name=value` (repeatable)")
	fs.Var(&learners, "learner", "run only the learner `NAME` (repeatable)")
	out := fs.String("out", "", "run directory `DIR` (default runs/<experiment name>)")
	threads := fs.Int("threads", runtime.NumCPU(), "`N` worker threads for training (default: the number of cores)")
	ablate := fs.String("ablate", "", "feature ablation: rerun `LEARNER` once per feature template with the template removed")
	alone := fs.Bool("ablate-alone", false, "with --ablate, also run each template on its own")
	every := fs.Int("checkpoint-every", 0, "save the training state of the learners that iterate ("+checkpointTypes()+") every `N` epochs or iterations (in DIR/checkpoints, for --resume)")
	resume := fs.String("resume", "", "continue the interrupted run in `DIR` (made with --checkpoint-every)")
	force := fs.Bool("force", false, "replace an --out folder that holds files trellis did not write: they are set aside (the folder renamed beside it), never deleted")
	df := addDatasetFlags(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if *resume != "" {
		if len(pos) != 0 || *every != 0 || *ablate != "" || *out != "" || len(learners) > 0 || len(vars) > 0 || *force || df.set() {
			return usagef("--resume DIR takes no spec and no other setting than --threads: the run continues as it was started")
		}
		return a.resumeRun(ctx, *resume, fs)
	}
	if len(pos) != 1 {
		return usagef("run takes one spec file")
	}
	if *threads < 1 {
		return usagef("--threads must be at least 1")
	}
	if *every < 0 {
		return usagef("--checkpoint-every must be at least 1")
	}
	where, err := df.settings() // checked before anything is read
	if err != nil {
		return err
	}
	s, reg, host, err := a.loadSpec(ctx, pos[0], vars)
	if err != nil {
		return err
	}
	defer host.Close()
	if (*every > 0 || a.resuming) && (s.Evaluation.Folds > 1 || *ablate != "") {
		return usagef("checkpoints apply to a plain run, not to cross-validation or ablation")
	}
	switch {
	case s.Evaluation.Folds > 1 && *ablate != "":
		return usagef("--ablate does not combine with cross-validation (folds in the spec)")
	case *alone && *ablate == "":
		return usagef("--ablate-alone needs --ablate LEARNER")
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("runs", s.Name)
	}
	rd, err := rundir.Open(dir, rundir.Options{Resume: a.resuming, Force: *force, Command: a.args})
	if err != nil {
		return runDirError(err)
	}
	if rd.Discarded {
		a.log.Warn().Str("partial", rd.Work).Msg("discarded the state of an interrupted run into the same folder (trellis run --resume DIR would have continued it)")
	}
	opts := run.Options{
		Spec: s, Templates: reg.Templates, OutDir: rd.Work, Learners: learners,
		Threads: *threads, Log: a.log, Command: a.args, Stdout: a.stdout,
		Progress: a.progress, CheckpointEvery: *every, Resume: a.resuming,
		Warn:           func(d hcl.Diagnostics) { a.printDiagnostics(s, d) },
		PhaseGCPercent: phaseGCPercent(),
		Dataset:        where.place, MemoryBudget: where.budget, DatasetDir: where.dir,
	}
	switch {
	case s.Evaluation.Folds > 1:
		_, err = run.CrossValidate(ctx, opts)
	case *ablate != "":
		_, err = run.Ablation(ctx, opts, *ablate, *alone)
	default:
		_, err = run.Run(ctx, opts)
	}
	if err != nil {
		keep := run.Resumable(rd.Work)
		if abortErr := rd.Abort(keep); abortErr != nil {
			a.log.Error().Err(abortErr).Str("partial", rd.Work).Msg("removing the failed run's partial folder")
		}
		if keep {
			a.log.Warn().Str("partial", rd.Work).Msg("the run's checkpoints are kept; trellis run --resume " + dir + " continues it")
		}
		return a.runError(s, err)
	}
	setAside, err := rd.Commit()
	if err != nil {
		return runDirError(err)
	}
	if setAside != "" {
		a.log.Warn().Str("set_aside", setAside).Msg("--force: the folder's earlier content was renamed, not deleted")
	}
	a.log.Info().Str("dir", dir).Msg("run complete")
	return nil
}

// datasetFlags are run's settings of where the training set is kept,
// over the spec's features.dataset and memory_budget.
type datasetFlags struct{ place, budget, dir *string }

func addDatasetFlags(fs *flag.FlagSet) datasetFlags {
	return datasetFlags{
		place:  fs.String("dataset", "", "keep the encoded training set in `memory`, on disk, or auto (on disk past --memory-budget); default: the spec's features.dataset, else memory"),
		budget: fs.String("memory-budget", "", "the memory `SIZE` (such as 4GiB) the encoded training set may take: auto moves it to disk past that (default a quarter of the machine's memory), disk keeps that much of it mapped (default 512MiB); default: the spec's memory_budget"),
		dir:    fs.String("dataset-dir", "", "write a training set kept on disk under `DIR` (default: beside the run directory); the run removes what it wrote there"),
	}
}

// set reports whether any of the flags was given.
func (f datasetFlags) set() bool { return *f.place != "" || *f.budget != "" || *f.dir != "" }

// datasetSettings are the dataset flags, checked.
type datasetSettings struct {
	place  string // a spec.Dataset* value, "" for the spec's
	budget int64  // 0 for the spec's
	dir    string
}

// settings checks the flags.
func (f datasetFlags) settings() (datasetSettings, error) {
	d := datasetSettings{place: *f.place, dir: *f.dir}
	switch d.place {
	case "", spec.DatasetMemory, spec.DatasetDisk, spec.DatasetAuto:
	default:
		return d, usagef("--dataset must be memory, disk or auto, got %q", d.place)
	}
	if *f.budget != "" {
		n, err := spec.ParseBytes(*f.budget)
		if err != nil || n <= 0 {
			return d, usagef("--memory-budget is a size such as 4GiB or 512MB, got %q", *f.budget)
		}
		d.budget = n
	}
	return d, nil
}

// runError maps what stopped a run to its exit code: a usage mistake or
// data contradicting the spec (printed as diagnostics on it) exit with 2.
func (a *app) runError(s *spec.Spec, err error) error {
	var de *run.DiagnosticsError
	if errors.As(err, &de) {
		a.printDiagnostics(s, de.Diags)
		return specError{}
	}
	if ae := (*run.ArgumentError)(nil); errors.As(err, &ae) {
		return usagef("%s", ae.Msg)
	}
	return err
}

// printDiagnostics prints diagnostics on spec s with its source lines.
func (a *app) printDiagnostics(s *spec.Spec, diags hcl.Diagnostics) {
	spec.WriteDiagnostics(a.stderr, diags, map[string][]byte{s.File: s.Source})
}

// runDirError makes a run directory holding the user's files a usage
// error (exit 2): the user picks another --out or adds --force.
func runDirError(err error) error {
	var fe *rundir.ForeignError
	if errors.As(err, &fe) && !fe.Finished {
		return usagef("%s", fe.Error())
	}
	return err
}

// openInput opens FILE, or stdin when there is none, counting what is
// read into a progress line named what (its size known for a file).
func (a *app) openInput(pos []string, what string) (io.Reader, string, func(), error) {
	if len(pos) == 1 && pos[0] == "-" {
		pos = nil
	}
	switch len(pos) {
	case 0:
		bar := a.progress.Start(what+" <stdin>", 0, "read").Bytes()
		return progress.Reader{R: a.stdin, T: bar}, "<stdin>", bar.Done, nil
	case 1:
		f, err := os.Open(pos[0])
		if err != nil {
			return nil, "", nil, err
		}
		size := int64(0)
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
		bar := a.progress.Start(what+" "+pos[0], size, "read").Bytes()
		return progress.Reader{R: f, T: bar}, pos[0], func() { bar.Done(); f.Close() }, nil
	}
	return nil, "", nil, usagef("at most one input file")
}

// loadTagger loads a model and starts the plugins it was trained with;
// the tagger's Close stops them.
func (a *app) loadTagger(ctx context.Context, path string, opt tagger.Options) (*tagger.Tagger, error) {
	tg, _, err := a.loadTaggerRegistry(ctx, path, opt)
	return tg, err
}

// loadTaggerRegistry is loadTagger that also returns the template
// registry the tagger was built from (its plugin type bound to the
// tagger's plugin host), for the tagger's Replicas.
func (a *app) loadTaggerRegistry(ctx context.Context, path string, opt tagger.Options) (*tagger.Tagger, *feature.Registry, error) {
	if path == "" {
		return nil, nil, usagef("--model is required")
	}
	defer pauseGC()()
	m, err := pretrained.Open(path)
	if err != nil {
		return nil, nil, err
	}
	templates, learners := builtin.Registries()
	host := a.newPluginHost(ctx)
	host.Register(templates)
	opt.Learners = learners
	tg, err := tagger.New(m, templates, opt)
	if err != nil {
		host.Close()
		return nil, nil, err
	}
	tg.OnClose(host.Close)
	return tg, templates, nil
}

// gcPause counts the loads in progress that pauseGC paused the collector
// for, and keeps the user's GOGC setting to restore after the last.
var gcPause struct {
	sync.Mutex
	n       int
	percent int
}

// pauseGC stops the garbage collector's pacing by GOGC until the function
// it returns is called. A model load builds structures that live as long
// as the tagger (attribute names, their index, weights) and little
// garbage besides the file's bytes, so the collections its growth from an
// empty heap sets off each mark the same live data and free almost
// nothing (docs/results.md, "Measurements behind design choices in the
// code"). The user's GOGC is restored after the
// load, and GOMEMLIMIT still bounds it (the runtime collects at the limit
// whatever the percent).
func pauseGC() (resume func()) {
	gcPause.Lock()
	defer gcPause.Unlock()
	if gcPause.n == 0 {
		gcPause.percent = debug.SetGCPercent(-1)
	}
	gcPause.n++
	return func() {
		gcPause.Lock()
		defer gcPause.Unlock()
		gcPause.n--
		if gcPause.n == 0 {
			debug.SetGCPercent(gcPause.percent)
		}
	}
}

func evalCommand() command {
	return command{
		Name:        "eval",
		Usage:       []string{"--model MODEL FILE [--json] [--decode viterbi|greedy|beam|posterior|labelpath] [--beam N] [--consistency token|span [--penalty X]] [--constraint TYPE<=N]"},
		Summary:     "score a model on a labelled file",
		Description: "Tags FILE (in the model's corpus format, with gold labels) and prints a conlleval-style report for span schemes, accuracy otherwise, and word precision, recall and F1 for segmentation; --json prints the full metrics. --decode and --beam choose the decoding method as in trellis tag; --consistency and --constraint decode each document jointly as in trellis tag, and log how many documents were certified optimal.",
		Run:         (*app).cmdEval,
	}
}

func (a *app) cmdEval(ctx context.Context, args []string) error {
	fs := newFlagSet("eval", a.stderr)
	modelPath := fs.String("model", "", "the `MODEL` file")
	asJSON := fs.Bool("json", false, "print the metrics as JSON")
	decode := addDecodeFlags(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("eval takes one labelled file")
	}
	var opt tagger.Options
	if err := decode.apply(&opt, 1); err != nil {
		return err
	}
	tg, err := a.loadTagger(ctx, *modelPath, opt)
	if err != nil {
		return err
	}
	defer tg.Close()
	in, name, done, err := a.openInput(pos, "evaluating")
	if err != nil {
		return err
	}
	defer done()
	labelCol := tg.Format.LabelColumn()
	if labelCol < 0 {
		return fmt.Errorf("the model's format has no label column to evaluate against")
	}
	sch, err := scheme.Parse(tg.Model.Output())
	if err != nil {
		return err
	}
	var sents []eval.Sentence
	vocab := tg.Vocabulary()
	cols := eval.Columns{Label: labelCol, Word: tg.WordColumn(), Segmentation: sch.IsSegmentation()}
	if vocab != nil {
		cols.Vocabulary = vocab
	}
	_, err = tg.Stream(ctx, tg.Format.NewReader(in, name, corpus.ReadOptions{}), nil, nil,
		func(s *corpus.Sentence, pred []string) {
			sents = append(sents, eval.NewSentence(s.Tokens, pred, cols))
		})
	if err != nil {
		return err
	}
	if len(sents) == 0 {
		return fmt.Errorf("%s: no sentences to evaluate", name)
	}
	res := eval.Evaluate(sents, eval.Options{Scheme: sch})
	a.logJoint(tg, opt.Joint)
	if *asJSON {
		return writeEvalJSON(a.stdout, res, vocab)
	}
	return writeEvalText(a.stdout, res, sch, vocab)
}
