package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/trellis-nlp/trellis/framework/registry"
)

// command is one trellis subcommand: how it is called, what it does, and
// the function that does it. Its help (`trellis help NAME`, `trellis NAME
// --help`) is built from these fields and from the flags Run declares.
type command struct {
	Name string
	// Usage are the ways to call it, after "trellis NAME": positional
	// arguments in capitals, optional ones in brackets.
	Usage []string
	// Summary is the one line `trellis help` lists it with.
	Summary string
	// Description is the paragraph its help shows under the usage.
	Description string
	// Run carries the command out. It must parse its flags with
	// parseInterspersed before doing anything else: given "--help", it
	// then returns the helpRequest that prints the command's help.
	Run func(a *app, ctx context.Context, args []string) error
}

// commandTable is every command, in the order `trellis help` lists them:
// the one place a command is registered. A new command is a file with its
// (*app).cmdNAME and a func NAMECommand() command, and one line here;
// TestHelp then checks that its help works.
func commandTable() []command {
	return []command{
		runCommand(),
		validateCommand(),
		learnCommand(),
		tagCommand(),
		tokenizeCommand(),
		evalCommand(),
		inspectCommand(),
		pruneCommand(),
		modelsCommand(),
		explainCommand(),
		serveCommand(),
		compareCommand(),
		reproduceCommand(),
		pluginsCommand(),
		importCommand(),
		clustersCommand(),
		embeddingsCommand(),
		versionCommand(),
		helpCommand(),
	}
}

// lookupCommand finds a command by name; an unknown name is a usage error
// with a suggestion.
func lookupCommand(name string) (command, error) {
	r := registry.New[command]("command")
	table := commandTable()
	for _, c := range table {
		r.MustRegister(c.Name, c)
	}
	if c, ok := r.Lookup(name); ok {
		return c, nil
	}
	names := make([]string, len(table))
	for i, c := range table {
		names[i] = c.Name
	}
	if s := r.Suggest(name); s != "" {
		return command{}, usagef("unknown command %q; did you mean %q? (commands: %s)", name, s, strings.Join(names, ", "))
	}
	return command{}, usagef("unknown command %q (commands: %s)", name, strings.Join(names, ", "))
}

// helpRequest is what parseInterspersed returns when the arguments ask for
// help (-h, --help): the command's flags, for its help page.
type helpRequest struct{ fs *flag.FlagSet }

func (helpRequest) Error() string { return "help requested" }

// wantsHelp reports whether args ask for help anywhere before "--".
func wantsHelp(args []string) bool {
	for _, arg := range args {
		switch arg {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// dispatch runs c; with -h or --help among args it prints c's help on
// stdout instead (exit 0). The command then sees "--help" alone, so that
// its first act, parsing flags, stops with the flag set for the page.
func (a *app) dispatch(ctx context.Context, c command, args []string) error {
	help := wantsHelp(args)
	if help {
		args = []string{"--help"}
	}
	err := c.Run(a, ctx, args)
	var hr helpRequest
	switch {
	case errors.As(err, &hr):
		return writeCommandHelp(a.stdout, c, hr.fs)
	case help && err == nil:
		// A command without flags that did not parse them.
		return writeCommandHelp(a.stdout, c, nil)
	}
	return err
}

// writeCommandHelp prints a command's help page: usage, description, its
// flags (from fs, nil when it has none) and the global flags.
func writeCommandHelp(w io.Writer, c command, fs *flag.FlagSet) error {
	var b strings.Builder
	for i, u := range c.Usage {
		lead := "usage: "
		if i > 0 {
			lead = "       "
		}
		fmt.Fprintf(&b, "%strellis %s %s\n", lead, c.Name, u)
	}
	if len(c.Usage) == 0 {
		fmt.Fprintf(&b, "usage: trellis %s\n", c.Name)
	}
	fmt.Fprintf(&b, "\n%s\n", wrap(c.Description, 78))
	if fs != nil {
		var flags strings.Builder
		fs.VisitAll(func(f *flag.Flag) { writeFlag(&flags, f) })
		if flags.Len() > 0 {
			fmt.Fprintf(&b, "\nflags:\n%s", flags.String())
		}
	}
	b.WriteString("\n" + globalFlagsHelp)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFlag prints one flag as it is typed, "  --name VALUE" or
// "  -c VALUE", and its usage, indented, with its default when it has one
// worth showing.
func writeFlag(b *strings.Builder, f *flag.Flag) {
	kind, usage := flag.UnquoteUsage(f)
	line := "  " + flagName(f.Name)
	switch kind {
	case "":
	case "string", "int", "uint", "float", "duration", "value":
		line += " " + strings.ToUpper(kind)
	default: // named in the usage with backquotes
		line += " " + kind
	}
	def := ""
	switch {
	case f.DefValue == "", f.DefValue == "0", f.DefValue == "false", f.DefValue == "[]":
	case f.Name == "threads": // the machine's core count, said in the usage
	default:
		def = fmt.Sprintf(" (default %s)", f.DefValue)
	}
	fmt.Fprintf(b, "%s\n%s\n", line, indent(wrap(usage+def, 72), "      "))
}

const globalFlagsHelp = `global flags (any position):
  --log-format auto|console|json   logs on stderr: console on a terminal, JSON lines otherwise (auto)
  --log-level debug|info|warn|error  (default info)
  --progress auto|on|off           a status line with rate and time left (auto: when stderr is a terminal)
`

// writeTopHelp prints the list of commands.
func writeTopHelp(w io.Writer) {
	var b strings.Builder
	b.WriteString("trellis: sequence labelling experiments from HCL specs\n\nusage: trellis COMMAND [ARGUMENTS] [FLAGS]\n\ncommands:\n")
	width := 0
	for _, c := range commandTable() {
		width = max(width, len(c.Name))
	}
	for _, c := range commandTable() {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, c.Name, c.Summary)
	}
	b.WriteString("\n" + globalFlagsHelp)
	b.WriteString("\n`trellis help COMMAND` or `trellis COMMAND --help` shows a command's arguments and flags;\n`trellis --version` the version. Exit codes: 0 ok, 1 failure, 2 usage, spec or data error,\n130 interrupted.\n")
	io.WriteString(w, b.String())
}

// wrap breaks text into lines of at most width bytes at spaces; blank
// lines (paragraphs) and line breaks in text are kept.
func wrap(text string, width int) string {
	var out []string
	for _, para := range strings.Split(text, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			if line != "" && len(line)+1+len(word) > width {
				out = append(out, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += word
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

func indent(text, prefix string) string {
	return prefix + strings.ReplaceAll(text, "\n", "\n"+prefix)
}

func helpCommand() command {
	return command{
		Name:        "help",
		Usage:       []string{"[COMMAND]"},
		Summary:     "list the commands, or show one command's arguments and flags",
		Description: "Without COMMAND: the commands and the global flags. With COMMAND: its usage, what it does, its flags and the global flags (the same as `trellis COMMAND --help`).",
		Run:         (*app).cmdHelp,
	}
}

func (a *app) cmdHelp(ctx context.Context, args []string) error {
	fs := newFlagSet("help", a.stderr)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	switch len(pos) {
	case 0:
		writeTopHelp(a.stdout)
		return nil
	case 1:
		c, err := lookupCommand(pos[0])
		if err != nil {
			return err
		}
		return a.dispatch(ctx, c, []string{"--help"})
	}
	return usagef("help takes at most one command name")
}

func versionCommand() command {
	return command{
		Name:        "version",
		Summary:     "print trellis's version, the Go version and the platform",
		Description: "Prints the module version (a release tag, or a pseudo-version when built from a git checkout, or \"dev\"), the VCS revision when the binary records one, the Go version and OS/architecture. `trellis --version` is the same.",
		Run:         (*app).cmdVersion,
	}
}

func (a *app) cmdVersion(_ context.Context, args []string) error {
	fs := newFlagSet("version", a.stderr)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("version takes no arguments")
	}
	_, err = fmt.Fprintln(a.stdout, versionLine())
	return err
}

// versionLine is "trellis VERSION (REVISION, GOVERSION OS/ARCH)".
func versionLine() string {
	extra := []string{}
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" && dirty {
			rev += "+dirty"
		}
		if rev != "" {
			extra = append(extra, "commit "+rev)
		}
	}
	extra = append(extra, runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH)
	return fmt.Sprintf("trellis %s (%s)", version(), strings.Join(extra, ", "))
}
