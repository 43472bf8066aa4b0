// Command trellis-beam tags corpora with trellis models as an Apache
// Beam pipeline, and with --eval scores them against their gold labels.
//
//	trellis-beam --model M [--model M2...] --input FILE|GLOB --output PREFIX
//	    [--input-format corpus|text|tokens] [--tokenizer T] [--output-format auto|tsv|json]
//	    [--shards N] [--eval] [--runner prism]
//
// It reads every file the glob matches, in the model's corpus format
// (CoNLL, CoNLL-U, slash, one sentence per line for segmentation,
// CRFsuite), as raw text or as a token per line, cuts it into units
// (sentences; paragraphs of raw text), spreads them over the workers,
// tags them with the models (loaded once per worker, in a DoFn's Setup;
// several make a pipeline, as in `trellis tag --model A --model B`) and
// writes PREFIX-SSSSS-of-NNNNN, each sentence as `trellis tag` prints it.
// With --eval it also writes PREFIX.eval.txt, the report `trellis eval`
// prints, and PREFIX.eval.json, what `trellis eval --json` prints. The
// runner is Beam's: prism (embedded, the default) runs it on this
// machine; see README.md for Flink, Spark and Dataflow.
//
//	trellis-beam train SPEC [--shards S] [--learner NAME] [--out DIR] [--workers W] [--runner prism]
//
// trains an online learner by iterative parameter mixing with its
// shards on Beam, one pipeline run per epoch, into the run directory
// `trellis run` writes (train.go).
//
// This is its own Go module so that the trellis command does not carry
// Beam.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
)

// Exit codes, as the trellis command's.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// options are the command's flags, as given. --runner and the runners'
// own flags (--endpoint, --project, …) are Beam's, registered by its
// packages.
type options struct {
	models                    []string
	input, output             string
	inputFormat, outputFormat string
	tokenizer                 string // "" when not given
	shards                    int
	eval                      bool
	args                      []string // what follows the flags
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "train" {
		os.Exit(trainMain(os.Args[2:]))
	}
	var o options
	flag.Func("model", "a `MODEL`: a file written by `trellis run` (any Beam filesystem path) or a shipped model's name (en-upos, en-xpos…); "+
		"repeated, a pipeline: each model reads the labels of the ones before it as the columns they name", func(s string) error {
		o.models = append(o.models, s)
		return nil
	})
	flag.StringVar(&o.input, "input", "", "input file or glob")
	flag.StringVar(&o.inputFormat, "input-format", "corpus", "what the input holds, as trellis tag's --input: `corpus|text|tokens` "+
		"(corpus: the model's own format, the last model's for a pipeline; text: raw text; tokens: a token per line, a blank line between sentences)")
	flag.StringVar(&o.tokenizer, "tokenizer", "", "what splits --input-format text: a tokenizer `MODEL` (file or shipped name), or rules, lines or chars (default "+defaultTokenizer+")")
	flag.StringVar(&o.output, "output", "", "output prefix: writes PREFIX-SSSSS-of-NNNNN (and PREFIX.eval.txt/.json with --eval)")
	flag.StringVar(&o.outputFormat, "output-format", "auto", "what the shards hold, as trellis tag's --output: `auto|tsv|json` "+
		"(auto: the model's format for corpus input, segmented words for a segmentation model, tsv otherwise)")
	flag.IntVar(&o.shards, "shards", 4, "number of output files")
	flag.BoolVar(&o.eval, "eval", false, "score the last model's predictions against the input's gold labels, as `trellis eval` does")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: trellis-beam --model M [--model M2...] --input FILE|GLOB --output PREFIX [--input-format corpus|text|tokens] [--tokenizer T] [--output-format auto|tsv|json] [--shards N] [--eval] [--runner prism|flink|spark|dataflow|…]\n\nFlags:\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	o.args = flag.Args()
	// On a remote worker Init runs the worker and does not return.
	beam.Init()
	os.Exit(run(context.Background(), o, os.Stdout, os.Stderr))
}

// trainMain parses `trellis-beam train`'s flags (Beam's runner flags are
// on flag.CommandLine too) and runs it.
func trainMain(args []string) int {
	var o trainOptions
	trainFlags(flag.CommandLine, &o)
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "%s\nFlags:\n", trainUsage)
		flag.PrintDefaults()
	}
	pos, err := parseInterspersed(flag.CommandLine, args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "trellis-beam train: %v\n", err)
		return exitUsage
	}
	// Prism logs every pipeline's start and end through slog: one pipeline
	// an epoch would drown the run's own log. Its warnings and errors
	// (a failed bundle) still show.
	beam.Init()
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if len(pos) > 1 {
		fmt.Fprintf(os.Stderr, "trellis-beam train: one spec file, got %d arguments\n%s", len(pos), trainUsage)
		return exitUsage
	}
	if len(pos) == 1 {
		o.spec = pos[0]
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return runTrain(ctx, o, os.Stdout, os.Stderr)
}

// usageError is a mistake in the command line: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

func run(ctx context.Context, o options, stdout, stderr io.Writer) int {
	err := launch(ctx, o, stdout)
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "trellis-beam: %v\n", err)
	var ue *usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitFailure
}

// launch checks the flags and the models, builds the pipeline and runs
// it.
func launch(ctx context.Context, o options, stdout io.Writer) error {
	j, err := plan(ctx, o)
	if err != nil {
		return err
	}
	if err := prepareOutput(ctx, o); err != nil {
		return err
	}
	res, err := beamx.RunWithMetrics(ctx, build(o, j))
	if err != nil {
		return err
	}
	report(stdout, o, res)
	return nil
}

// report prints what the run did, from the pipeline's counters when the
// runner returns them.
func report(w io.Writer, o options, res beam.PipelineResult) {
	var sents, tokens int64
	if res != nil {
		for _, c := range res.Metrics().AllMetrics().Counters() {
			switch c.Key.Name {
			case counterSentences:
				sents += c.Result()
			case counterTokens:
				tokens += c.Result()
			}
		}
	}
	fmt.Fprintf(w, "tagged %d sentences, %d tokens into %s-*-of-%05d\n", sents, tokens, o.output, o.shards)
	if o.eval {
		fmt.Fprintf(w, "scores in %s and %s\n", o.output+evalTextSuffix, o.output+evalJSONSuffix)
		if !strings.Contains(o.output, "://") {
			if b, err := os.ReadFile(o.output + evalTextSuffix); err == nil {
				w.Write(b)
			}
		}
	}
}
