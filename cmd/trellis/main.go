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
// Exit codes: 0 ok, 1 runtime failure, 2 bad usage, spec or data error,
// 130 interrupted (SIGINT; 143 for SIGTERM). Logs go to stderr, results
// to stdout.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/progress"
	"github.com/trellis-nlp/trellis/framework/registry"
)

const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
	// exitInterrupted is 128 + SIGINT, what shells report for Ctrl-C.
	exitInterrupted = 130
)

// usageError marks mistakes in how trellis was called.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// specError marks a spec that failed to decode; its diagnostics have
// already been printed.
type specError struct{}

func (specError) Error() string { return "spec has errors" }

// corpusErrors marks corpora that failed validate's check; their errors
// have already been printed.
type corpusErrors struct{}

func (corpusErrors) Error() string { return "corpora have errors" }

func main() {
	if os.Getenv("GOGC") == "" {
		// Training allocates almost nothing once the corpus is encoded, so
		// a tighter GC target costs little time and keeps peak memory near
		// the live heap (docs/results.md, "Measurements behind design
		// choices in the code").
		debug.SetGCPercent(50)
	}
	os.Exit(realMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// phaseGCPercent is the GC target `run` holds its peak phases to, encoding
// the training corpus and loading the model back (run.Options.
// PhaseGCPercent): they set a CRF run's peak RSS, which this lowers
// (docs/results.md, "Measurements behind design choices in the code"). A
// GOGC the user set stands.
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
	ctx, stop := signalContext()
	defer stop()
	if path := os.Getenv("TRELLIS_CPUPROFILE"); path != "" {
		stopProfile, err := startProfile(path)
		if err != nil {
			fmt.Fprintln(stderr, "trellis:", err)
			return exitFailure
		}
		defer stopProfile()
	}

	return a.exitCode(ctx, a.dispatch(ctx, cmd, args[1:]))
}

// interrupted is the cause of a signalContext cancelled by a signal.
type interrupted struct{ sig os.Signal }

func (e interrupted) Error() string { return e.sig.String() + " signal received" }

// exitCode is the shells' 128 + the signal's number: 130 for SIGINT, 143
// for SIGTERM.
func (e interrupted) exitCode() int {
	if n, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return exitInterrupted
}

// signalContext returns a context that SIGINT or SIGTERM cancels with an
// interrupted cause, which signal.NotifyContext does not let the exit
// code read. stop releases the signals.
func signalContext() (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case sig := <-sigs:
			cancel(interrupted{sig})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel(nil)
	}
}

// exitCode prints what err says and returns the exit code for it; ctx is
// the command's, to tell an interruption.
func (a *app) exitCode(ctx context.Context, err error) int {
	var ue *usageError
	var se specError
	var ce corpusErrors
	var in interrupted
	switch {
	case err == nil:
		return exitOK
	case errors.As(context.Cause(ctx), &in):
		// The error, whatever it says, comes of the signal's cancelling
		// the command.
		fmt.Fprintln(a.stderr, "trellis: interrupted")
		return in.exitCode()
	case errors.As(err, &se), errors.As(err, &ce):
		return exitUsage
	case errors.As(err, &ue):
		fmt.Fprintln(a.stderr, "trellis:", err)
		return exitUsage
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(a.stderr, "trellis: interrupted")
		return exitInterrupted
	case errors.As(err, new(*corpus.Error)):
		// A data error, whichever command met it: the input is wrong,
		// as with a spec error.
		fmt.Fprintln(a.stderr, "trellis: error:", err)
		return exitUsage
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
	return zerolog.New(roundFloats{out}).Level(lvl).With().Timestamp().Logger(), nil
}

// logDigits are the significant digits a number with a fraction keeps in
// the logs: a loss, an F1 or a time to six figures (as the progress line
// shows them) tells a reader all that 0.8862807295796986, the digits that
// tell float64s apart, does.
const logDigits = 6

// roundFloats passes log records to w, JSON as zerolog writes them (one
// record per Write), with their numbers rounded by roundNumbers.
type roundFloats struct{ w io.Writer }

func (r roundFloats) Write(p []byte) (int, error) {
	if _, err := r.w.Write(roundNumbers(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// roundNumbers returns the JSON text rec with every number that has a
// fraction or an exponent rounded to logDigits significant digits;
// integers (counts) and strings are kept as they are.
func roundNumbers(rec []byte) []byte {
	out := make([]byte, 0, len(rec))
	for i := 0; i < len(rec); {
		j := i + 1
		switch c := rec[i]; {
		case c == '"':
			for j < len(rec) && rec[j] != '"' {
				if rec[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(rec))
			out = append(out, rec[i:j]...)
		case c == '-' || '0' <= c && c <= '9':
			for j < len(rec) && strings.IndexByte("0123456789.eE+-", rec[j]) >= 0 {
				j++
			}
			out = append(out, roundNumber(rec[i:j])...)
		default:
			out = append(out, c)
		}
		i = j
	}
	return out
}

// roundNumber is the JSON number num to logDigits significant digits, in
// plain decimals from 0.0001 up to 1e15 and in exponent form beyond.
func roundNumber(num []byte) []byte {
	v, err := strconv.ParseFloat(string(num), 64)
	if err != nil || v == 0 || !bytes.ContainsAny(num, ".eE") {
		return num
	}
	exp := int(math.Floor(math.Log10(math.Abs(v))))
	if exp < -4 || exp >= 15 {
		s := strconv.AppendFloat(nil, v, 'g', logDigits, 64)
		return bytes.Replace(bytes.Replace(s, []byte("e-0"), []byte("e-"), 1), []byte("e+0"), []byte("e+"), 1)
	}
	s := strconv.AppendFloat(nil, v, 'f', max(0, logDigits-1-exp), 64)
	if bytes.IndexByte(s, '.') >= 0 {
		s = bytes.TrimRight(bytes.TrimRight(s, "0"), ".")
	}
	return s
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
			return nil, flagError(fs, args, err)
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

// undefinedFlag is the start of the flag package's error for a flag the
// set does not have; the name follows it.
const undefinedFlag = "flag provided but not defined: -"

// flagError is the usage error for err, what fs.Parse(args) returned.
// The flag package names a flag "-name" whichever way it was typed; an
// unknown flag is named as typed, with the closest known flag.
func flagError(fs *flag.FlagSet, args []string, err error) error {
	name, ok := strings.CutPrefix(err.Error(), undefinedFlag)
	if !ok {
		return usagef("%s (`%s --help` lists the flags)", dashFlagNames(fs, err.Error()), fs.Name())
	}
	typed := "--" + name
	for _, arg := range args {
		if a, _, _ := strings.Cut(arg, "="); strings.TrimLeft(a, "-") == name && strings.HasPrefix(a, "-") {
			typed = a
			break
		}
	}
	var known []string
	fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
	known = append(known, "log-format", "log-level", "progress", "help")
	if s := registry.Suggest(name, known); s != "" {
		return usagef("unknown flag %s; did you mean %s? (`%s --help` lists the flags)", typed, flagName(s), fs.Name())
	}
	return usagef("unknown flag %s (`%s --help` lists the flags)", typed, fs.Name())
}

// flagName is how help writes a flag, and how it is typed: -c for a
// one-letter flag (crf_learn's, in import), --name for the others.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// dashFlagNames rewrites the "-name" the flag package writes in msg for
// each flag of fs as flagName writes it.
func dashFlagNames(fs *flag.FlagSet, msg string) string {
	words := strings.Split(msg, " ")
	for i, w := range words {
		name, ok := strings.CutPrefix(w, "-")
		name, colon := strings.CutSuffix(name, ":")
		if ok && fs.Lookup(name) != nil {
			words[i] = flagName(name)
			if colon {
				words[i] += ":"
			}
		}
	}
	return strings.Join(words, " ")
}

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	*l = append(*l, s)
	return nil
}

// first is the first value, "" when there is none.
func (l listFlag) first() string {
	if len(l) == 0 {
		return ""
	}
	return l[0]
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
