package spec

import (
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// WriteDiagnostics prints diagnostics compiler-style, "file:line:col:
// severity: summary", followed by the detail and the source line with the
// offending range underlined. sources maps file names to their contents.
func WriteDiagnostics(w io.Writer, diags hcl.Diagnostics, sources map[string][]byte) {
	for _, d := range diags {
		sev := "error"
		if d.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		if d.Subject != nil {
			fmt.Fprintf(w, "%s:%d:%d: %s: %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, sev, d.Summary)
		} else {
			fmt.Fprintf(w, "%s: %s", sev, d.Summary)
		}
		if d.Detail != "" {
			fmt.Fprintf(w, "; %s", d.Detail)
		}
		fmt.Fprintln(w)
		if d.Subject == nil {
			continue
		}
		src, ok := sources[d.Subject.Filename]
		if !ok {
			continue
		}
		lines := strings.Split(string(src), "\n")
		ln := d.Subject.Start.Line
		if ln < 1 || ln > len(lines) {
			continue
		}
		text := strings.TrimRight(lines[ln-1], "\r")
		fmt.Fprintf(w, "%5d | %s\n", ln, text)
		startCol := d.Subject.Start.Column
		endCol := d.Subject.End.Column
		if d.Subject.End.Line != ln || endCol <= startCol {
			endCol = len(text) + 1
		}
		if startCol < 1 {
			startCol = 1
		}
		pad := strings.Map(func(r rune) rune {
			if r == '\t' {
				return '\t'
			}
			return ' '
		}, prefixRunes(text, startCol-1))
		fmt.Fprintf(w, "      | %s%s\n", pad, strings.Repeat("^", max(1, endCol-startCol)))
	}
}

// prefixRunes returns the first n bytes of s (HCL columns count bytes
// only for ASCII; good enough for placing a caret).
func prefixRunes(s string, n int) string {
	if n > len(s) {
		n = len(s)
	}
	return s[:n]
}
