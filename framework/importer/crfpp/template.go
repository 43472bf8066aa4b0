package crfpp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// MaxRow is the farthest row a %x macro may reach, CRF++'s kMaxContextSize:
// it has placeholders for eight positions on each side of a sentence.
const MaxRow = 8

// maxLineBytes bounds a template line, as a guard against reading a
// binary file whole into one line.
const maxLineBytes = 1 << 20

// Kind is a template's type, the first character of its line.
type Kind byte

// The template kinds.
const (
	Unigram Kind = 'U'
	Bigram  Kind = 'B'
)

// Template is one line of a template file: its text split into literals
// and macros, Literals[k] before Macros[k] and the last literal after the
// last macro (len(Literals) == len(Macros)+1).
type Template struct {
	Line     int
	Kind     Kind
	Text     string
	Literals []string
	Macros   []Macro
}

// Macro is one %x[row,col], at byte Col (1-based) of its line.
type Macro struct {
	Row, Column int
	Col         int
}

// ID is the text before the line's first ':' when it comes before the
// first macro ("U05" in "U05:%x[0,0]"), or "" when there is none.
func (t *Template) ID() string {
	id, _, ok := strings.Cut(t.Literals[0], ":")
	if !ok {
		return ""
	}
	return id
}

// Error is a mistake in a template file, at file:line:col (Line 0: the
// file as a whole).
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	if e.Line == 0 { // the whole file
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	if e.Col > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Errors is every mistake found, in file order.
type Errors []*Error

func (es Errors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// File is a parsed template file.
type File struct {
	Name      string
	Templates []*Template
}

// Parse reads a CRF++ template file; name is used in error messages. The
// error, when the text has mistakes, is an Errors listing all of them.
func Parse(name string, r io.Reader) (*File, error) {
	f := &File{Name: name}
	var errs Errors
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLineBytes)
	for n := 1; sc.Scan(); n++ {
		// CRF++ keeps a trailing CR as literal text; dropping it changes
		// no feature's identity and lets a file saved on Windows import.
		// Every trailing CR, not just one (the scanner drops one itself):
		// "B\r\r" would otherwise keep one, and its parts, written out
		// and read again, lose it (FuzzParse found it; as corpus reading).
		line := strings.TrimRight(sc.Text(), "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		t, lineErrs := parseLine(name, n, line)
		errs = append(errs, lineErrs...)
		if t != nil {
			f.Templates = append(f.Templates, t)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("a line is longer than %d bytes", maxLineBytes)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(errs) > 0 {
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].Line < errs[j].Line })
		return nil, errs
	}
	return f, nil
}

func parseLine(file string, n int, line string) (*Template, Errors) {
	at := func(col int, format string, args ...any) *Error {
		return &Error{File: file, Line: n, Col: col, Msg: fmt.Sprintf(format, args...)}
	}
	kind := Kind(line[0])
	if kind != Unigram && kind != Bigram {
		return nil, Errors{at(1, "%q: a template line starts with U (unigram) or B (bigram), a comment with #", clip(line))}
	}
	t := &Template{Line: n, Kind: kind, Text: line}
	var errs Errors
	var lit strings.Builder
	for i := 0; i < len(line); i++ {
		if line[i] != '%' {
			lit.WriteByte(line[i])
			continue
		}
		m, end, err := parseMacro(line, i)
		if err != "" {
			errs = append(errs, at(i+1, "%s", err))
			// Go on after the bad macro's '%' to find later mistakes.
			continue
		}
		t.Literals = append(t.Literals, lit.String())
		t.Macros = append(t.Macros, m)
		lit.Reset()
		i = end - 1
	}
	t.Literals = append(t.Literals, lit.String())
	if len(errs) > 0 {
		return nil, errs
	}
	return t, nil
}

// parseMacro reads the %x[row,col] at line[i] (a '%'), returning it and
// the index just past its ']', or a message saying what is wrong.
func parseMacro(line string, i int) (Macro, int, string) {
	m := Macro{Col: i + 1}
	rest := line[i:]
	if !strings.HasPrefix(rest, "%x[") {
		return m, 0, fmt.Sprintf("%q: CRF++ knows one macro, %%x[row,col]; a %% cannot stand for itself", clip(rest))
	}
	body, _, ok := strings.Cut(rest[3:], "]")
	if !ok {
		return m, 0, fmt.Sprintf("%q: the macro has no closing ]", clip(rest))
	}
	macro := rest[:3+len(body)+1]
	rowText, colText, ok := strings.Cut(body, ",")
	if !ok {
		return m, 0, fmt.Sprintf("%q: want %%x[row,col], e.g. %%x[-1,0]", macro)
	}
	row, okRow := number(strings.TrimPrefix(rowText, "-"))
	col, okCol := number(colText)
	switch {
	case !okRow || !okCol:
		return m, 0, fmt.Sprintf("%q: row and column are whole numbers (the row may be negative), e.g. %%x[-1,0]", macro)
	case row > MaxRow:
		return m, 0, fmt.Sprintf("%q: row %s is beyond CRF++'s limit of %d positions on each side", macro, rowText, MaxRow)
	}
	if strings.HasPrefix(rowText, "-") {
		row = -row
	}
	m.Row, m.Column = row, col
	return m, i + len(macro), ""
}

// number parses a run of decimal digits that CRF++ would read the same
// way; the value saturates above 1,000,000, far past any valid row or
// column, so huge numbers cannot overflow.
func number(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	v := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = min(10*v+int(c-'0'), 1_000_000)
	}
	return v, true
}

// clip shortens text quoted in a message.
func clip(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
