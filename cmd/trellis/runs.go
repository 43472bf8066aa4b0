package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/trellis-nlp/trellis/framework/run"
)

func compareCommand() command {
	return command{
		Name:        "compare",
		Usage:       []string{"DIR... [--seed N]"},
		Summary:     "put the learners of earlier runs side by side, with significance tests",
		Description: "Reads the run directories DIR... (tested on the same test file; others are refused) and prints every learner's score with its 95% bootstrap interval, and every pair's paired bootstrap interval, approximate-randomization p-value and McNemar test.",
		Run:         func(a *app, _ context.Context, args []string) error { return a.cmdCompare(args) },
	}
}

// cmdCompare prints the comparison table and significance tests across
// earlier run directories.
func (a *app) cmdCompare(args []string) error {
	fs := newFlagSet("compare", a.stderr)
	seed := fs.Uint64("seed", 1, "`N`, the seed of the bootstrap and randomization tests")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("compare takes one or more run directories")
	}
	_, err = run.CompareDirs(pos, *seed, a.stdout)
	if ae := (*run.ArgumentError)(nil); errors.As(err, &ae) {
		return usagef("%s", ae.Msg)
	}
	return err
}

func reproduceCommand() command {
	return command{
		Name:        "reproduce",
		Usage:       []string{"DIR [--out DIR2] [--threads N]"},
		Summary:     "rerun a run's recorded command and check every byte",
		Description: "Reruns the command recorded in DIR/manifest.json into a fresh directory and reports, file by file, whether models, predictions and metrics came out identical (timings aside). Exit 1 when anything differs.",
		Run:         (*app).cmdReproduce,
	}
}

// cmdReproduce reruns the command recorded in DIR/manifest.json into a
// fresh directory and reports, file by file, whether the models,
// predictions and metrics came out the same.
func (a *app) cmdReproduce(ctx context.Context, args []string) error {
	fs := newFlagSet("reproduce", a.stderr)
	out := fs.String("out", "", "where to put the rerun, `DIR` (default: a temporary directory, removed afterwards)")
	threads := fs.Int("threads", 0, "`N` threads for the rerun (default: as recorded; the bytes must not depend on it)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("reproduce takes one run directory")
	}
	orig, err := filepath.Abs(pos[0])
	if err != nil {
		return err
	}
	command, workdir, err := run.Manifest(orig)
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		tmp, err := os.MkdirTemp("", "trellis-reproduce-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = filepath.Join(tmp, "run")
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	rerun := []string{}
	for i := 2; i < len(command); i++ {
		switch arg := command[i]; {
		case arg == "--out" || arg == "-out":
			i++ // drop the old output folder
		case len(arg) > 6 && (arg[:6] == "--out=" || arg[:5] == "-out="):
		case (arg == "--threads" || arg == "-threads") && *threads > 0:
			i++
		default:
			rerun = append(rerun, arg)
		}
	}
	rerun = append(rerun, "--out", dir)
	if *threads > 0 {
		rerun = append(rerun, "--threads", fmt.Sprint(*threads))
	}
	if workdir != "" {
		// Spec and data paths on the recorded command line are relative to
		// where it ran.
		if err := os.Chdir(workdir); err != nil {
			return fmt.Errorf("the run was made in %s: %w", workdir, err)
		}
	}
	a.log.Info().Strs("command", rerun).Str("dir", workdir).Msg("rerunning")
	// The rerun's own table would only repeat the original's; the verdict
	// below is this command's output.
	stdout := a.stdout
	a.stdout = io.Discard
	err = a.cmdRun(ctx, rerun)
	a.stdout = stdout
	if err != nil {
		return err
	}
	checks, err := run.CheckRerun(orig, dir)
	if err != nil {
		return err
	}
	same := true
	for _, c := range checks {
		verdict := "identical"
		if !c.Identical {
			verdict, same = "DIFFERENT", false
		}
		fmt.Fprintf(a.stdout, "%-40s %-10s %s\n", c.File, verdict, c.Detail)
	}
	if !same {
		return fmt.Errorf("the rerun of %s did not reproduce it", orig)
	}
	fmt.Fprintf(a.stdout, "reproduced: every model, prediction and metric matches\n")
	return nil
}

// resumeRun continues the interrupted run in dir: it runs the recorded
// command again, from the recorded working directory, into dir, with the
// learners picking up their checkpoints (see run.Options.Resume).
func (a *app) resumeRun(ctx context.Context, dir string, fs *flag.FlagSet) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	rec, err := run.ReadRunRecord(abs)
	if err != nil {
		return err
	}
	threads := ""
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "threads" {
			threads = f.Value.String()
		}
	})
	var args []string
	for i := 2; i < len(rec.Command); i++ { // after "trellis run"
		switch arg := rec.Command[i]; {
		case arg == "--out" || arg == "-out" || (threads != "" && (arg == "--threads" || arg == "-threads")):
			i++
		case strings.HasPrefix(arg, "--out=") || strings.HasPrefix(arg, "-out=") ||
			(threads != "" && (strings.HasPrefix(arg, "--threads=") || strings.HasPrefix(arg, "-threads="))):
		default:
			args = append(args, arg)
		}
	}
	args = append(args, "--out", abs)
	if threads != "" {
		args = append(args, "--threads", threads)
	}
	if rec.Dir != "" {
		// Spec and data paths on the recorded command line are relative to
		// where it ran.
		if err := os.Chdir(rec.Dir); err != nil {
			return fmt.Errorf("the run was started in %s: %w", rec.Dir, err)
		}
	}
	a.log.Info().Strs("command", rec.Command).Str("dir", abs).Msg("resuming")
	a.resuming = true
	a.args = rec.Command // the manifest records the command the run was started with
	defer func() { a.resuming = false }()
	return a.cmdRun(ctx, args)
}
