package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/plugin"
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

func (a *app) cmdValidate(ctx context.Context, args []string) error {
	fs := newFlagSet("validate", a.stderr)
	vars := varFlags{}
	fs.Var(vars, "var", "set a spec variable: name=value (repeatable)")
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
		stats, diags, err := run.CheckData(s, nil)
		a.printDiagnostics(s, diags)
		switch {
		case err != nil:
			return err
		case diags.HasErrors():
			return specError{}
		}
		for _, st := range stats {
			fmt.Fprintf(a.stdout, "corpus %q: %s: %d sentences, %d tokens, %d labels\n", st.Name, st.Path, st.Sentences, st.Tokens, st.Labels)
		}
	}
	fmt.Fprintf(a.stdout, "%s: ok (experiment %q, %d corpora, %d templates, %d learners)\n",
		pos[0], s.Name, len(s.Corpora), len(s.Features.Templates), len(s.Learners))
	return nil
}

func (a *app) cmdRun(ctx context.Context, args []string) error {
	fs := newFlagSet("run", a.stderr)
	vars := varFlags{}
	var learners listFlag
	fs.Var(vars, "var", "set a spec variable: name=value (repeatable)")
	fs.Var(&learners, "learner", "run only this learner (repeatable)")
	out := fs.String("out", "", "run directory (default runs/<experiment name>)")
	threads := fs.Int("threads", runtime.NumCPU(), "worker threads for training")
	ablate := fs.String("ablate", "", "feature ablation: rerun this learner once per feature template with the template removed")
	alone := fs.Bool("ablate-alone", false, "with --ablate, also run each template on its own")
	every := fs.Int("checkpoint-every", 0, "save the perceptron's and the CRF's training state every N epochs or iterations (in DIR/checkpoints, for --resume)")
	resume := fs.String("resume", "", "continue the interrupted run in this directory (made with --checkpoint-every)")
	force := fs.Bool("force", false, "replace an --out folder that holds files trellis did not write: they are set aside (the folder renamed beside it), never deleted")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if *resume != "" {
		if len(pos) != 0 || *every != 0 || *ablate != "" || *out != "" || len(learners) > 0 || len(vars) > 0 || *force {
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
		Warn: func(d hcl.Diagnostics) { a.printDiagnostics(s, d) },
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

// runError maps what stopped a run to its exit code: a usage mistake or
// data contradicting the spec (printed as diagnostics on it) exit with 2.
func (a *app) runError(s *spec.Spec, err error) error {
	var de *run.DiagnosticsError
	if errors.As(err, &de) {
		a.printDiagnostics(s, de.Diags)
		return specError{}
	}
	if ue, ok := err.(*run.UsageError); ok {
		return usagef("%s", ue.Msg)
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
	if path == "" {
		return nil, usagef("--model is required")
	}
	m, err := model.Load(path)
	if err != nil {
		return nil, err
	}
	templates, _ := builtin.Registries()
	host := a.newPluginHost(ctx)
	host.Register(templates)
	tg, err := tagger.New(m, templates, opt)
	if err != nil {
		host.Close()
		return nil, err
	}
	tg.OnClose(host.Close)
	return tg, nil
}

func (a *app) cmdTag(ctx context.Context, args []string) error {
	fs := newFlagSet("tag", a.stderr)
	modelPath := fs.String("model", "", "model file")
	marginals := fs.Bool("marginals", false, "append each predicted label's marginal probability (label:p) and print each sentence's probability (a model trained in an encoding gives the marginal of the encoded label, e.g. E-PER printed as I-PER)")
	nbest := fs.Int("nbest", 1, "print the K best label sequences of each sentence with their scores and probabilities")
	constrained := fs.String("constrained", "auto", "constrained decoding for span schemes: auto (the model's setting), on or off")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if *nbest < 1 || *nbest > 10000 {
		return usagef("--nbest must be between 1 and 10000")
	}
	var opt tagger.Options
	switch *constrained {
	case "auto":
	case "on", "true":
		opt.Constrained = ptr(true)
	case "off", "false":
		opt.Constrained = ptr(false)
	default:
		return usagef("--constrained must be auto, on or off, got %q", *constrained)
	}
	tg, err := a.loadTagger(ctx, *modelPath, opt)
	if err != nil {
		return err
	}
	defer tg.Close()
	in, name, done, err := a.openInput(pos, "tagging")
	if err != nil {
		return err
	}
	defer done()
	w := bufio.NewWriterSize(a.stdout, 1<<16)
	r := tg.Format.NewReader(in, name, corpus.ReadOptions{LabelOptional: true})
	if *marginals || *nbest > 1 {
		err = tagDetailed(ctx, tg, r, w, *nbest, *marginals)
	} else {
		_, err = tg.Stream(ctx, r, tg.Format.NewWriter(w), nil, nil)
	}
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return err
}

func ptr[T any](v T) *T { return &v }

// tagDetailed writes, per sentence and rank, a comment line with the
// sequence's score and probability, then the sentence with that sequence's
// labels appended (label:marginal on the best sequence with --marginals),
// the way `crfsuite tag -p -i` reports them.
func tagDetailed(ctx context.Context, tg *tagger.Tagger, r corpus.Reader, w *bufio.Writer, k int, marginals bool) error {
	cw := tg.Format.NewWriter(w)
	batch := make([]*corpus.Sentence, 0, tagger.BatchSize)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		decoded, err := tg.TagDetailed(batch, k)
		if err != nil {
			return err
		}
		for j, s := range batch {
			d := decoded[j]
			for rank, path := range d.Paths {
				fmt.Fprintf(w, "# rank=%d score=%.6f probability=%.6f\n", rank+1, d.Scores[rank], d.Probabilities[rank])
				labels := path
				if marginals && rank == 0 {
					labels = make([]string, len(path))
					for i, y := range path {
						labels[i] = fmt.Sprintf("%s:%.6f", y, d.Marginals[i])
					}
				}
				if err := cw.Write(s, labels); err != nil {
					return err
				}
				if err := cw.Flush(); err != nil {
					return err
				}
			}
		}
		batch = batch[:0]
		return nil
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		s, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		batch = append(batch, s)
		if len(batch) == cap(batch) {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return cw.Flush()
}

func (a *app) cmdEval(ctx context.Context, args []string) error {
	fs := newFlagSet("eval", a.stderr)
	modelPath := fs.String("model", "", "model file")
	asJSON := fs.Bool("json", false, "print the metrics as JSON")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("eval takes one labelled file")
	}
	tg, err := a.loadTagger(ctx, *modelPath, tagger.Options{})
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
	_, err = tg.Stream(ctx, tg.Format.NewReader(in, name, corpus.ReadOptions{}), nil, nil,
		func(s *corpus.Sentence, pred []string) {
			es := eval.Sentence{Gold: make([]string, s.Len()), Pred: pred}
			for i := range es.Gold {
				es.Gold[i] = s.Tokens[i][labelCol]
			}
			if sch == scheme.BMES || sch == scheme.BI {
				es.Chars = make([]string, s.Len())
				for i := range es.Chars {
					es.Chars[i] = s.Tokens[i][0]
				}
			}
			sents = append(sents, es)
		})
	if err != nil {
		return err
	}
	if len(sents) == 0 {
		return fmt.Errorf("%s: no sentences to evaluate", name)
	}
	res := eval.Evaluate(sents, eval.Options{Scheme: sch})
	if *asJSON {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.stdout, "%s\n", b)
		return err
	}
	if sch.HasSpans() {
		return res.WriteConlleval(a.stdout)
	}
	fmt.Fprintf(a.stdout, "tokens: %d  sentences: %d\naccuracy: %.2f%%  sentence accuracy: %.2f%%\n",
		res.Tokens, res.Sentences, 100*res.Accuracy, 100*res.SentenceAccuracy)
	if res.Words != nil {
		fmt.Fprintf(a.stdout, "words: precision %.2f%%  recall %.2f%%  F1 %.2f%%\n",
			100*res.Words.Precision, 100*res.Words.Recall, 100*res.Words.F1)
	}
	return nil
}
