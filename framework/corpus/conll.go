package corpus

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/trellis-nlp/trellis/framework/plural"
)

// conllFormat is one token per line, in named columns.
type conllFormat struct {
	columns []string
	label   int
	sep     byte // 0: any run of whitespace
}

var _ Format = (*conllFormat)(nil)

func newCoNLL(cfg Config) (*conllFormat, error) {
	if len(cfg.Columns) == 0 {
		return nil, fmt.Errorf(`the conll format needs columns naming the file's columns in order, e.g. ["word", "pos", "chunk"]`)
	}
	seen := make(map[string]bool, len(cfg.Columns))
	for _, c := range cfg.Columns {
		if strings.TrimSpace(c) == "" {
			return nil, fmt.Errorf("conll columns %q: a column name is empty", cfg.Columns)
		}
		if seen[c] {
			return nil, fmt.Errorf("conll columns %q: column %q is named twice", cfg.Columns, c)
		}
		seen[c] = true
	}
	f := &conllFormat{columns: append([]string(nil), cfg.Columns...)}
	switch cfg.Separator {
	case "":
	case "\t", "tab":
		f.sep = '\t'
	case " ", "space":
		f.sep = ' '
	default:
		return nil, fmt.Errorf(`unknown conll separator %q (want "" for any whitespace, "\t" or " ")`, cfg.Separator)
	}
	var err error
	if f.label, err = labelIndex(cfg.Label, f.columns, false); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *conllFormat) Name() string      { return NameCoNLL }
func (f *conllFormat) Columns() []string { return append([]string(nil), f.columns...) }
func (f *conllFormat) LabelColumn() int  { return f.label }

func (f *conllFormat) NewReader(r io.Reader, file string, opts ReadOptions) Reader {
	// Only a last label column can be left out: otherwise a short line
	// would be ambiguous about which column is missing.
	optional := opts.LabelOptional && f.label >= 0 && f.label == len(f.columns)-1
	return &conllReader{f: f, lines: newLineReader(r, file), labelOptional: optional}
}

func (f *conllFormat) NewWriter(w io.Writer) Writer {
	if f.sep == 0 {
		return &columnWriter{bw: bufio.NewWriterSize(w, writeBufferSize), trimRight: true}
	}
	return &columnWriter{bw: bufio.NewWriterSize(w, writeBufferSize), sep: string(f.sep)}
}

type conllReader struct {
	f             *conllFormat
	lines         *lineReader
	labelOptional bool
	b             blockBuilder
	fields        []int // scratch: field spans of the current line
	pendingDoc    bool  // a -DOCSTART- line was seen since the last sentence
	docLine       string
	err           error
}

var (
	_ Reader   = (*conllReader)(nil)
	_ Recycler = (*conllReader)(nil)
)

func (r *conllReader) Recycle(s *Sentence) { r.b.recycle(s) }

func (r *conllReader) Read() (*Sentence, error) {
	if r.err != nil {
		return nil, r.err
	}
	for {
		line, err := r.lines.next()
		if err != nil {
			if err == io.EOF && r.b.hasTokens() {
				return r.finish(), nil // the last sentence needs no blank line
			}
			r.err = err
			return nil, err
		}
		if isBlank(line) {
			if r.b.hasTokens() {
				return r.finish(), nil
			}
			continue
		}
		if isDocStart(line) {
			r.pendingDoc = true
			r.docLine = string(trimRightSpaceBytes(line))
			if r.b.hasTokens() { // a boundary without a blank line before it
				return r.finish(), nil
			}
			continue
		}
		if err := r.addToken(line); err != nil {
			r.err = err
			return nil, err
		}
	}
}

func (r *conllReader) finish() *Sentence {
	s := r.b.finish(r.lines.file, len(r.f.columns))
	s.DocLine, r.docLine = r.docLine, ""
	if !s.DocStart {
		s.DocLine = ""
	}
	return s
}

func (r *conllReader) addToken(line []byte) error {
	ncol := len(r.f.columns)
	n := r.split(line)
	if n != ncol {
		if !(n == ncol-1 && r.labelOptional) {
			msg := fmt.Sprintf("expected %s (%s), found %d", plural.Count(ncol, "column"), strings.Join(r.f.columns, " "), n)
			if n == ncol-1 && r.f.label == ncol-1 {
				msg += fmt.Sprintf("; the label column %q is missing", r.f.columns[r.f.label])
			}
			e := r.lines.errorf(r.lines.lineNo, "%s", msg)
			e.Found = n
			return e
		}
		r.fields = append(r.fields, -1, -1)
	}
	if r.b.empty() {
		r.b.docStart, r.pendingDoc = r.pendingDoc, false
	}
	r.b.addToken(line, r.lines.lineNo, r.fields)
	return nil
}

// split stores the spans of at most len(columns) fields of line in
// r.fields and returns the number of fields.
func (r *conllReader) split(line []byte) int {
	ncol := len(r.f.columns)
	r.fields = r.fields[:0]
	n := 0
	if r.f.sep == 0 {
		for i := 0; ; n++ {
			start, end := nextField(line, i)
			if start == len(line) {
				return n
			}
			if n < ncol {
				r.fields = append(r.fields, start, end)
			}
			i = end
		}
	}
	r.fields, n = splitExact(line, r.f.sep, ncol, r.fields)
	return n
}

// splitExact appends to spans the [start, end) bounds of at most limit of
// the sep-separated fields of line, and returns them with the number of
// fields.
func splitExact(line []byte, sep byte, limit int, spans []int) ([]int, int) {
	for start, n := 0, 0; ; n++ {
		j := bytes.IndexByte(line[start:], sep)
		end := len(line)
		if j >= 0 {
			end = start + j
		}
		if n < limit {
			spans = append(spans, start, end)
		}
		if j < 0 {
			return spans, n + 1
		}
		start = end + 1
	}
}

// isDocStart reports whether the first field of line is "-DOCSTART-",
// whatever the separator and the number of other fields.
func isDocStart(line []byte) bool {
	const mark = "-DOCSTART-"
	start, end := nextField(line, 0)
	return end-start == len(mark) && string(line[start:end]) == mark
}

const writeBufferSize = 64 << 10

// columnWriter writes conll and conllu sentences: the original lines, the
// predicted label appended to each token line, a blank line after each
// sentence.
type columnWriter struct {
	bw *bufio.Writer
	// sep is the column separator of the format, "" when any whitespace
	// separates columns: then the label goes after a tab if the line has
	// one, else after a space, to match the line's own style.
	sep string
	// trimRight drops trailing whitespace from token lines before the
	// label is appended. It is set when whitespace runs separate columns,
	// so trailing whitespace means nothing, and a scorer splitting at
	// single spaces (conlleval) would otherwise see empty columns.
	trimRight bool
}

var _ Writer = (*columnWriter)(nil)

func (w *columnWriter) Write(s *Sentence, predicted []string) error {
	if err := checkPredicted(s, predicted); err != nil {
		return err
	}
	if s.DocLine != "" {
		// The document boundary goes back where it was, with "O" as its
		// label so that every line has the same number of columns (as the
		// CoNLL-2003 files and conlleval have it), then a blank line.
		w.bw.WriteString(s.DocLine)
		switch {
		case w.sep != "":
			w.bw.WriteString(w.sep)
		case strings.IndexByte(s.DocLine, '\t') >= 0:
			w.bw.WriteByte('\t')
		default:
			w.bw.WriteByte(' ')
		}
		w.bw.WriteString("O\n\n")
	}
	if len(s.Lines) == 0 || len(s.TokenLine) != len(s.Tokens) {
		// A sentence built in code rather than read: write its columns.
		for i, row := range s.Tokens {
			sep := w.sep
			if sep == "" {
				sep = " "
			}
			for _, v := range row {
				w.bw.WriteString(v)
				w.bw.WriteString(sep)
			}
			w.bw.WriteString(predicted[i])
			w.bw.WriteByte('\n')
		}
	} else {
		next := 0
		for k, line := range s.Lines {
			isToken := next < len(s.TokenLine) && s.TokenLine[next] == k
			if isToken && w.trimRight {
				line = trimRightSpace(line)
			}
			w.bw.WriteString(line)
			for next < len(s.TokenLine) && s.TokenLine[next] == k {
				switch {
				case w.sep != "":
					w.bw.WriteString(w.sep)
				case strings.IndexByte(line, '\t') >= 0:
					w.bw.WriteByte('\t')
				default:
					w.bw.WriteByte(' ')
				}
				w.bw.WriteString(predicted[next])
				next++
			}
			w.bw.WriteByte('\n')
		}
		if next != len(s.TokenLine) {
			return fmt.Errorf("%s:%d: sentence has token lines out of order; %d of %d labels written", s.File, s.Line, next, len(s.TokenLine))
		}
	}
	return w.bw.WriteByte('\n') // bufio errors are sticky, so this reports any earlier failure
}

func (w *columnWriter) Flush() error { return w.bw.Flush() }

func trimRightSpaceBytes(s []byte) []byte {
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

func trimRightSpace(s string) string {
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}
