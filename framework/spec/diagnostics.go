package spec

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apparentlymart/go-textseg/v15/textseg"
	"github.com/hashicorp/hcl/v2"
	"golang.org/x/text/width"
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
		if src, ok := sources[d.Subject.Filename]; ok {
			writeSnippet(w, *d.Subject, src)
		}
	}
}

// writeSnippet prints the line where rng starts and a caret line under
// the part of it that rng covers (to the end of the line when rng spans
// lines or is empty). The carets are placed by terminal cells, not bytes,
// so they stay under their text after "é" or "日本".
func writeSnippet(w io.Writer, rng hcl.Range, src []byte) {
	ln := rng.Start.Line
	text, lineStart, ok := sourceLine(string(src), ln)
	if !ok {
		return
	}
	fmt.Fprintf(w, "%5d | %s\n", ln, text)
	start := lineOffset(text, lineStart, rng.Start)
	end := len(text)
	if rng.End.Line == ln {
		if e := lineOffset(text, lineStart, rng.End); e > start {
			end = e
		}
	}
	fmt.Fprintf(w, "      | %s%s\n", padding(text[:start]), strings.Repeat("^", max(1, cells(text[start:end]))))
}

// sourceLine returns line ln (1-based) of src without its line ending, and
// the byte offset in src where it starts.
func sourceLine(src string, ln int) (text string, start int, ok bool) {
	if ln < 1 {
		return "", 0, false
	}
	for i := 1; i < ln; i++ {
		nl := strings.IndexByte(src[start:], '\n')
		if nl < 0 {
			return "", 0, false
		}
		start += nl + 1
	}
	text = src[start:]
	if nl := strings.IndexByte(text, '\n'); nl >= 0 {
		text = text[:nl]
	}
	return strings.TrimRight(text, "\r"), start, true
}

// lineOffset returns the byte offset in text, the line that starts at byte
// lineStart of its file, of the position pos on that line.
//
// HCL gives both pos.Byte, exact, and pos.Column, which counts characters
// as displayed (grapheme clusters) and so differs from the byte offset
// after any non-ASCII text. Byte is used when it can be right: it lies on
// the line, at a character boundary, with at least Column-1 runes before
// it (a cluster is one or more runes). Ranges built by hand often leave
// Byte at 0; for them the line is walked Column-1 characters instead.
func lineOffset(text string, lineStart int, pos hcl.Pos) int {
	if b := pos.Byte - lineStart; b >= 0 && b <= len(text) &&
		(b == len(text) || utf8.RuneStart(text[b])) &&
		utf8.RuneCountInString(text[:b]) >= pos.Column-1 {
		return b
	}
	off := 0
	for col := 1; col < pos.Column && off < len(text); col++ {
		off += clusterLen(text[off:])
	}
	return off
}

// clusterLen returns the byte length of the character at the start of s as
// HCL counts columns: one grapheme cluster, found by the segmentation HCL
// itself uses (go-textseg, Unicode 15 under Go 1.26).
func clusterLen(s string) int {
	n, _, _ := textseg.ScanGraphemeClusters([]byte(s), true)
	return max(n, 1)
}

// padding returns blanks as wide on a terminal as prefix, keeping its tabs
// (whose width only the terminal knows).
func padding(prefix string) string {
	var b strings.Builder
	for _, r := range prefix {
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteString(strings.Repeat(" ", cellWidth(r)))
		}
	}
	return b.String()
}

// cells returns how many terminal cells s takes.
func cells(s string) int {
	n := 0
	for _, r := range s {
		n += cellWidth(r)
	}
	return n
}

// cellWidth returns how many terminal cells r takes: none for marks and
// format characters that attach to the character before, two for East
// Asian wide and fullwidth characters (CJK, kana, Hangul, fullwidth forms
// and the emoji Unicode gives that width), one otherwise.
func cellWidth(r rune) int {
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}
