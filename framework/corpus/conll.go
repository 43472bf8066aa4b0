package corpus

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

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
	tail          lastColumns
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
	switch {
	case n == ncol:
		if !r.labelOptional { // where a line may be one short, none is blamed
			r.tail.add(line, r.fields)
		}
	case n == ncol-1 && r.labelOptional:
		r.fields = append(r.fields, -1, -1)
	default:
		e := r.lines.errorf(r.lines.lineNo, "expected %s (%s), found %d in %s%s",
			plural.Count(ncol, "column"), strings.Join(r.f.columns, " "), n, quoteLine(line), r.blame(line, n))
		e.Found = n
		return e
	}
	if r.b.empty() {
		r.b.docStart, r.pendingDoc = r.pendingDoc, false
	}
	r.b.addToken(line, r.lines.lineNo, r.fields)
	return nil
}

// blame is what the error for line, which has n fields where the format
// has a different number, adds after the line: the column it blames, or
// nothing when the line cannot tell.
func (r *conllReader) blame(line []byte, n int) string {
	cols := r.f.columns
	ncol := len(cols)
	if r.f.sep != 0 && whitespaceFields(line) == ncol {
		// The fields are there, but split by other whitespace than the
		// one separator, or with whitespace at an end of the line.
		trimmed := bytes.TrimFunc(line, func(r rune) bool { return r < utf8.RuneSelf && isSpace(byte(r)) })
		if _, k := splitExact(trimmed, r.f.sep, ncol, nil); k == ncol {
			return "; whitespace at the start or end of the line makes another column"
		}
		return fmt.Sprintf("; the columns must be separated by one %s", sepName(r.f.sep))
	}
	switch {
	case n > ncol:
		extra := bytes.TrimLeft(line[r.fields[2*ncol-1]:], " \t")
		if len(extra) == 0 {
			return fmt.Sprintf("; a %s ends the line after the last column, %s", sepName(r.f.sep), cols[ncol-1])
		}
		return fmt.Sprintf("; %s follows the last column, %s", quoteLine(extra), cols[ncol-1])
	case n != ncol-1 || ncol < 2:
		return ""
	}
	last := line[r.fields[2*n-2]:r.fields[2*n-1]]
	lastName := fmt.Sprintf("column %q", cols[ncol-1])
	if r.f.label == ncol-1 {
		lastName = "the label " + lastName
	}
	switch r.tail.lacks(last) {
	case lacksLast:
		return fmt.Sprintf("; %s is missing", lastName)
	case lacksEarlier:
		return fmt.Sprintf("; %q is a value of %s, so %s is missing", last, lastName, orList(quoteAll(cols[:ncol-1])))
	}
	return ""
}

// whitespaceFields counts the fields of line split at any whitespace.
func whitespaceFields(line []byte) int {
	n := 0
	for i := 0; ; n++ {
		start, end := nextField(line, i)
		if start == len(line) {
			return n
		}
		i = end
	}
}

func sepName(sep byte) string {
	if sep == '\t' {
		return "tab"
	}
	return "space"
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strconv.Quote(n)
	}
	return out
}

// Sampling bounds for lastColumns: the values of a column that ends a
// line (a label, a tag) nearly all show within a file's first lines.
const (
	tailSampleLines  = 10000
	tailSampleValues = 1000
)

// lastColumns samples the values of the last two columns on a file's
// first token lines, so that the error for a line one column short can
// say which it lacks: "Confidence B-NP" under word pos chunk ends in a
// chunk, so word or pos is missing, not the label. Only the first lines
// are sampled, so reading the rest costs nothing.
type lastColumns struct {
	lines          int
	last, previous map[string]bool
}

// missingColumn is what lastColumns.lacks makes of a line one short.
type missingColumn int

const (
	lacksUnknown missingColumn = iota // the sample cannot tell
	lacksLast                         // the last field is a value of the column before the last
	lacksEarlier                      // the last field is a value of the last column
)

// add samples a well-formed line and its field spans.
func (c *lastColumns) add(line []byte, fields []int) {
	n := len(fields) / 2
	if c.lines >= tailSampleLines || n < 2 {
		return
	}
	if c.last == nil {
		c.last, c.previous = map[string]bool{}, map[string]bool{}
	}
	c.lines++
	sample(c.last, line[fields[2*n-2]:fields[2*n-1]])
	sample(c.previous, line[fields[2*n-4]:fields[2*n-3]])
}

func sample(m map[string]bool, v []byte) {
	if !m[string(v)] && len(m) < tailSampleValues {
		m[string(v)] = true
	}
}

// lacks tells, from the last field of a line one column short, which
// column the line lacks: a value only the last column has means that
// column is there and an earlier one is not, and the other way round.
func (c *lastColumns) lacks(last []byte) missingColumn {
	inLast, inPrevious := c.last[string(last)], c.previous[string(last)]
	switch {
	case inLast && !inPrevious:
		return lacksEarlier
	case inPrevious && !inLast:
		return lacksLast
	}
	return lacksUnknown
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
