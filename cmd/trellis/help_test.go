package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
)

// TestHelp checks every command of commandTable: `trellis CMD --help`,
// `-h` and `trellis help CMD` print the same page on stdout with exit 0,
// showing its usage, description, flags and the global flags. A command
// registered without a help entry, or one that does something before
// parsing its flags, fails here.
func TestHelp(t *testing.T) {
	for _, c := range commandTable() {
		t.Run(c.Name, func(t *testing.T) {
			if c.Summary == "" || c.Description == "" || c.Run == nil {
				t.Fatalf("command %q lacks a summary, a description or a Run function", c.Name)
			}
			// Run must stop at its flags when asked for help, handing
			// them over for the page.
			a := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
			var hr helpRequest
			if err := c.Run(a, context.Background(), []string{"--help"}); !errors.As(err, &hr) {
				t.Fatalf("%s --help: Run returned %v, want a helpRequest (parse flags with parseInterspersed first)", c.Name, err)
			}
			var pages []string
			for _, args := range [][]string{{c.Name, "--help"}, {c.Name, "-h"}, {"help", c.Name}, {c.Name, "x", "--help"}} {
				code, stdout, stderr := trellis(t, "", args...)
				if code != exitOK || stderr != "" {
					t.Errorf("trellis %s: exit %d, stderr:\n%s", strings.Join(args, " "), code, stderr)
				}
				pages = append(pages, stdout)
			}
			for i, p := range pages[1:] {
				if p != pages[0] {
					t.Errorf("help pages differ (%d):\n%s\n---\n%s", i+1, pages[0], p)
				}
			}
			page := pages[0]
			for _, want := range []string{"usage: trellis " + c.Name, "global flags", "--log-level", firstWords(c.Description)} {
				if !strings.Contains(page, want) {
					t.Errorf("help lacks %q:\n%s", want, page)
				}
			}
			for _, u := range c.Usage {
				if !strings.Contains(page, "trellis "+c.Name+" "+u) {
					t.Errorf("help lacks the usage line %q", u)
				}
			}
			hr.fs.VisitAll(func(f *flag.Flag) {
				if f.Usage == "" {
					t.Errorf("flag --%s has no usage text", f.Name)
				}
				if !strings.Contains(page, "\n  "+flagName(f.Name)+" ") && !strings.Contains(page, "\n  "+flagName(f.Name)+"\n") {
					t.Errorf("help does not list %s:\n%s", flagName(f.Name), page)
				}
			})
		})
	}
}

// firstWords is the start of a description, as the wrapped page shows it.
func firstWords(s string) string {
	w := strings.Fields(s)
	return strings.Join(w[:min(3, len(w))], " ")
}

func TestTopHelpAndVersion(t *testing.T) {
	var pages []string
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		code, stdout, stderr := trellis(t, "", args...)
		if code != exitOK || stderr != "" {
			t.Errorf("trellis %v: exit %d, stderr %q", args, code, stderr)
		}
		pages = append(pages, stdout)
	}
	if pages[0] != pages[1] || pages[0] != pages[2] {
		t.Errorf("--help, -h and help differ")
	}
	for _, c := range commandTable() {
		if !strings.Contains(pages[0], "  "+c.Name+" ") {
			t.Errorf("trellis --help does not list %q:\n%s", c.Name, pages[0])
		}
	}
	code, stdout, stderr := trellis(t, "")
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "usage: trellis COMMAND") {
		t.Errorf("trellis without a command: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	_, v1, _ := trellis(t, "", "--version")
	_, v2, _ := trellis(t, "", "version")
	if v1 != v2 || !strings.HasPrefix(v1, "trellis ") || !strings.Contains(v1, "go1.") {
		t.Errorf("--version %q, version %q", v1, v2)
	}
	code, _, stderr = trellis(t, "", "help", "tga")
	if code != exitUsage || !strings.Contains(stderr, `did you mean "tag"?`) {
		t.Errorf("help tga: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = trellis(t, "", "run", "--bogus")
	if code != exitUsage || !strings.Contains(stderr, "`trellis run --help` lists the flags") || strings.Count(stderr, "bogus") != 1 {
		t.Errorf("run --bogus: exit %d, stderr %q", code, stderr)
	}
}

// TestTagFlagHelp: --marginals and --nbest say what tag prints (further
// columns), not the label:p form it once had.
func TestTagFlagHelp(t *testing.T) {
	page, _ := mustRun(t, "", "tag", "--help")
	for _, bad := range []string{"label:p", "with their scores and probabilities\n  --"} {
		if strings.Contains(page, bad) {
			t.Errorf("tag --help says %q:\n%s", bad, page)
		}
	}
	for _, want := range []string{"marginal probability as a column", "best labels as further columns"} {
		if !strings.Contains(strings.Join(strings.Fields(page), " "), want) {
			t.Errorf("tag --help lacks %q:\n%s", want, page)
		}
	}
}

// TestFlagsAsTyped: help writes a flag as it is typed, -c for import's
// one-letter crf_learn flags and --name for the others, and an unknown
// flag or command is named as typed, with the closest one.
func TestFlagsAsTyped(t *testing.T) {
	page, _ := mustRun(t, "", "import", "--help")
	for _, want := range []string{"\n  -c FLOAT\n", "\n  -a STRING\n", "\n  --columns STRING\n"} {
		if !strings.Contains(page, want) {
			t.Errorf("import --help lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "--c ") || strings.Contains(page, "--a ") {
		t.Errorf("import --help writes a one-letter flag with two dashes:\n%s", page)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "x.hcl", "--outt", "dir"}, "trellis: unknown flag --outt; did you mean --out? (`trellis run --help` lists the flags)"},
		{[]string{"run", "x.hcl", "-outt=dir"}, "unknown flag -outt; did you mean --out?"},
		{[]string{"validate", "x.hcl", "--no-dat"}, "unknown flag --no-dat; did you mean --no-data?"},
		{[]string{"import", "crfpp", "t", "-cc", "2"}, "unknown flag -cc; did you mean -c?"},
		{[]string{"tag", "--log-levl", "debug"}, "unknown flag --log-levl; did you mean --log-level?"},
		{[]string{"run", "x.hcl", "--zzzzzz"}, "trellis: unknown flag --zzzzzz (`trellis run --help` lists the flags)"},
		{[]string{"run", "x.hcl", "--threads", "many"}, `invalid value "many" for flag --threads`},
		{[]string{"import", "crfpp", "t", "-c", "x"}, `invalid value "x" for flag -c`},
		{[]string{"run", "x.hcl", "--out"}, "flag needs an argument: --out"},
		{[]string{"rnu", "x.hcl"}, `trellis: unknown command "rnu"; did you mean "run"?`},
		{[]string{"valdiate"}, `did you mean "validate"?`},
	}
	for _, tc := range tests {
		code, stdout, stderr := trellis(t, "", tc.args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("trellis %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
	}
}
