// Command trellis trains, compares and applies sequence labelers described
// by HCL experiment specs.
//
//	trellis run SPEC [--out DIR] [--var name=value]… [--learner NAME] [--threads N]
//	trellis validate SPEC [--var name=value]…
//	trellis tag --model M [FILE]
//	trellis eval --model M FILE [--json]
//	trellis help [COMMAND]
//
// The commands are listed in commandTable (help.go), each with its help.
//
// Exit codes: 0 ok, 1 runtime failure, 2 bad usage or spec error. Logs go
// to stderr, results to stdout.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/progress"
)

const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// usageError marks mistakes in how trellis was called.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// specError marks a spec that failed to decode; its diagnostics have
// already been printed.
type specError struct{}

func (specError) Error() string { return "spec has errors" }

func main() {
	if os.Getenv("GOGC") == "" {
		// Training allocates almost nothing once the corpus is encoded, so
		// a tighter GC target costs little time and keeps peak memory near
		// the live heap (CoNLL-2000 CRF: 191 MB instead of 213 MB).
		debug.SetGCPercent(50)
	}
	os.Exit(realMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// phaseGCPercent is the GC target `run` holds its peak phases to, encoding
// the training corpus and loading the model back (run.Options.
// PhaseGCPercent): on CoNLL-2000's CRF run they set the peak RSS, 150 MB
// at GOGC 50 against 131 MB with this and the optimizer's savings. A GOGC
// the user set stands.
func phaseGCPercent() int {
	if os.Getenv("GOGC") != "" {
		return 0
	}
	return 10
}

// app is one invocation's environment, so commands never reach for
// globals and tests can run them in-process.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	log            zerolog.Logger
	// progress draws status lines on a terminal; nil when there is none.
	progress *progress.Meter
	// resuming is set while `run --resume` reruns the recorded command.
	resuming bool
	args     []string
}

func realMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	args, g, err := globalFlags(args)
	if err != nil {
		fmt.Fprintln(stderr, "trellis:", err)
		return exitUsage
	}
	switch {
	case len(args) == 0:
		writeTopHelp(stderr)
		return exitUsage
	case args[0] == "-h" || args[0] == "-help" || args[0] == "--help":
		writeTopHelp(stdout)
		return exitOK
	case args[0] == "--version" || args[0] == "-version":
		args[0] = "version"
	}
	cmd, err := lookupCommand(args[0])
	if err != nil {
		fmt.Fprintln(stderr, "trellis:", err)
		return exitUsage
	}
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, args: append([]string{"trellis"}, args...)}
	a.progress, err = newMeter(g.progress, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "trellis:", err)
		return exitUsage
	}
	logOut := stderr
	if a.progress != nil {
		logOut = a.progress.Writer()
	}
	a.log, err = newLogger(logOut, isTerminal(stderr), g.logFormat, g.logLevel)
	if err != nil {
		fmt.Fprintln(stderr, "trellis:", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if path := os.Getenv("TRELLIS_CPUPROFILE"); path != "" {
		stopProfile, err := startProfile(path)
		if err != nil {
			fmt.Fprintln(stderr, "trellis:", err)
			return exitFailure
		}
		defer stopProfile()
	}

	return a.exitCode(a.dispatch(ctx, cmd, args[1:]))
}

func (a *app) exitCode(err error) int {
	var ue *usageError
	var se specError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &se):
		return exitUsage
	case errors.As(err, &ue):
		fmt.Fprintln(a.stderr, "trellis:", err)
		return exitUsage
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(a.stderr, "trellis: interrupted")
		return exitFailure
	}
	fmt.Fprintln(a.stderr, "trellis: error:", err)
	return exitFailure
}

// globals are the flags every command takes, anywhere on the line.
type globals struct {
	logFormat, logLevel, progress string
}

// globalFlags removes --log-format, --log-level and --progress from
// anywhere in args.
func globalFlags(args []string) (rest []string, g globals, err error) {
	g = globals{logFormat: "auto", logLevel: "info", progress: "auto"}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if !strings.HasPrefix(arg, "-") || (name != "log-format" && name != "log-level" && name != "progress") {
			rest = append(rest, arg)
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, g, fmt.Errorf("--%s needs a value", name)
			}
			i++
			value = args[i]
		}
		switch name {
		case "log-format":
			g.logFormat = value
		case "log-level":
			g.logLevel = value
		default:
			g.progress = value
		}
	}
	return rest, g, nil
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// newMeter returns the progress meter the --progress setting asks for:
// auto shows progress when stderr is a terminal.
func newMeter(setting string, stderr io.Writer) (*progress.Meter, error) {
	switch setting {
	case "on":
		return progress.New(stderr), nil
	case "auto":
		if isTerminal(stderr) {
			return progress.New(stderr), nil
		}
		return nil, nil
	case "off":
		return nil, nil
	}
	return nil, fmt.Errorf("--progress %q: want auto, on or off", setting)
}

func newLogger(w io.Writer, terminal bool, format, level string) (zerolog.Logger, error) {
	lvl, err := zerolog.ParseLevel(level)
	if err != nil || level == "" {
		return zerolog.Logger{}, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	out := w
	switch format {
	case "json":
	case "console":
		out = zerolog.ConsoleWriter{Out: w, TimeFormat: time.TimeOnly}
	case "auto":
		if terminal {
			out = zerolog.ConsoleWriter{Out: w, TimeFormat: time.TimeOnly}
		}
	default:
		return zerolog.Logger{}, fmt.Errorf("--log-format %q: want console or json", format)
	}
	// Durations (elapsed, eta) read as seconds rather than zerolog's
	// default milliseconds.
	zerolog.DurationFieldUnit = time.Second
	return zerolog.New(out).Level(lvl).With().Timestamp().Logger(), nil
}

// parseInterspersed parses flags that may come before or after positional
// arguments (trellis run SPEC --out DIR), which the flag package alone does
// not allow.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, helpRequest{fs}
			}
			return nil, usagef("%v (`%s --help` lists the flags)", err, fs.Name())
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// varFlags collects repeated --var name=value.
type varFlags map[string]string

func (v varFlags) String() string { return "" }

func (v varFlags) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want name=value, got %q", s)
	}
	v[name] = value
	return nil
}

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	*l = append(*l, s)
	return nil
}

// newFlagSet returns the flag set of a command. It prints nothing itself:
// parseInterspersed turns its errors into usage errors and -h/--help into
// the command's help page on stdout (writeCommandHelp).
func newFlagSet(name string, _ io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("trellis "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// startProfile writes a CPU profile to path until the returned function
// runs; with TRELLIS_CPUPROFILE set it is how the figures in
// docs/results.md were investigated.
func startProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
