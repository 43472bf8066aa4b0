// Command trellis-beam tags corpora with a trellis model as an Apache Beam
// pipeline, and with --eval scores them against their gold labels.
//
//	trellis-beam --model M --input FILE|GLOB --output PREFIX [--shards N] [--eval] [--runner prism]
//
// It reads the model's corpus format (CoNLL, CoNLL-U, slash, one sentence
// per line for segmentation, CRFsuite) from every file the glob matches,
// splits it into sentences, spreads the sentences over the workers, tags
// them with the model (loaded once per worker, in a DoFn's Setup) and
// writes PREFIX-SSSSS-of-NNNNN, each sentence exactly as `trellis tag`
// writes it. With --eval it also writes PREFIX.eval.txt, the report
// `trellis eval` prints, and PREFIX.eval.json, what `trellis eval --json`
// prints. The runner is Beam's: prism (embedded, the default) runs it on
// this machine; see README.md for Flink, Spark and Dataflow.
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
	"os"
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

// options are the command's flags. --runner and the runners' own flags
// (--endpoint, --project, …) are Beam's, registered by its packages.
type options struct {
	model, input, output string
	shards               int
	eval                 bool
}

func main() {
	var o options
	flag.StringVar(&o.model, "model", "", "model file (a trellis .model; any Beam filesystem path)")
	flag.StringVar(&o.input, "input", "", "input file or glob, in the model's corpus format")
	flag.StringVar(&o.output, "output", "", "output prefix: writes PREFIX-SSSSS-of-NNNNN (and PREFIX.eval.txt/.json with --eval)")
	flag.IntVar(&o.shards, "shards", 4, "number of output files")
	flag.BoolVar(&o.eval, "eval", false, "score the predictions against the input's gold labels, as `trellis eval` does")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: trellis-beam --model M --input FILE|GLOB --output PREFIX [--shards N] [--eval] [--runner prism|flink|spark|dataflow|…]\n\nFlags:\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	// On a remote worker Init runs the worker and does not return.
	beam.Init()
	os.Exit(run(context.Background(), o, os.Stdout, os.Stderr))
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

// launch checks the flags and the model, builds the pipeline and runs it.
func launch(ctx context.Context, o options, stdout io.Writer) error {
	if flag.NArg() > 0 {
		return usagef("unexpected argument %q (the input is given with --input)", flag.Arg(0))
	}
	switch {
	case o.model == "":
		return usagef("--model is required")
	case o.input == "":
		return usagef("--input is required")
	case o.output == "":
		return usagef("--output is required")
	case o.shards < 1 || o.shards > 99999:
		return usagef("--shards must be between 1 and 99999")
	}
	info, err := loadInfo(ctx, o.model, o.eval)
	if err != nil {
		return err
	}
	if err := prepareOutput(ctx, o); err != nil {
		return err
	}
	p := build(o, info)
	res, err := beamx.RunWithMetrics(ctx, p)
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
