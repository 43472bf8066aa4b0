package spec

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

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
// HCL counts columns: a rune with the marks, joiners and modifiers that
// extend it, and regional indicators in pairs (flags). This approximates
// Unicode grapheme clusters closely enough for spec files without pulling
// in a segmentation library.
func clusterLen(s string) int {
	r, n := utf8.DecodeRuneInString(s)
	if isRegionalIndicator(r) {
		if r2, m := utf8.DecodeRuneInString(s[n:]); isRegionalIndicator(r2) {
			n += m
		}
	}
	for n < len(s) {
		r, m := utf8.DecodeRuneInString(s[n:])
		if !extends(r) {
			break
		}
		n += m
		if r == zeroWidthJoiner && n < len(s) {
			_, m = utf8.DecodeRuneInString(s[n:]) // the joined character
			n += m
		}
	}
	return n
}

const zeroWidthJoiner = '\u200d'

// extends reports whether r attaches to the character before it.
func extends(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc) ||
		r == zeroWidthJoiner || r == '\u200c' ||
		r >= 0x1f3fb && r <= 0x1f3ff // emoji skin-tone modifiers
}

func isRegionalIndicator(r rune) bool { return r >= 0x1f1e6 && r <= 0x1f1ff }

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

// cellWidth returns how many terminal cells r takes: none for what extends
// the previous character, two for East Asian wide and fullwidth characters
// and emoji, one otherwise.
func cellWidth(r rune) int {
	switch {
	case extends(r) || unicode.Is(unicode.Cf, r):
		return 0
	case isWide(r):
		return 2
	}
	return 1
}

// isWide reports whether East Asian Width makes r wide or fullwidth (CJK,
// kana, Hangul syllables, fullwidth forms), or r is in an emoji block that
// terminals draw two cells wide.
func isWide(r rune) bool {
	switch {
	case r < 0x1100:
		return false // the common case: Latin, Greek, Cyrillic, ...
	case r <= 0x115f, // Hangul Jamo initial consonants
		0x2e80 <= r && r <= 0x303e,   // CJK radicals, Kangxi, CJK symbols and punctuation
		0x3041 <= r && r <= 0x33ff,   // kana, Bopomofo, compatibility jamo, enclosed CJK, CJK compatibility
		0x3400 <= r && r <= 0x4dbf,   // CJK extension A
		0x4e00 <= r && r <= 0x9fff,   // CJK unified ideographs
		0xa000 <= r && r <= 0xa4cf,   // Yi
		0xa960 <= r && r <= 0xa97f,   // Hangul Jamo extended A
		0xac00 <= r && r <= 0xd7a3,   // Hangul syllables
		0xf900 <= r && r <= 0xfaff,   // CJK compatibility ideographs
		0xfe10 <= r && r <= 0xfe19,   // vertical forms
		0xfe30 <= r && r <= 0xfe6f,   // CJK compatibility forms, small form variants
		0xff00 <= r && r <= 0xff60,   // fullwidth forms
		0xffe0 <= r && r <= 0xffe6,   // fullwidth signs
		0x1f300 <= r && r <= 0x1f64f, // pictographs, emoticons
		0x1f900 <= r && r <= 0x1f9ff, // supplemental pictographs
		0x20000 <= r && r <= 0x3fffd: // CJK extensions B and later
		return true
	}
	return false
}
