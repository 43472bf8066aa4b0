package corpus

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// crfsuiteColumns names the two logical columns of the crfsuite format.
// "attributes" is the last one and stands for every field after the label:
// a row is [label, attr1, attr2, …], so rows vary in length.
var crfsuiteColumns = []string{"label", "attributes"}

// crfsuiteFormat is CRFsuite's attribute format (the input of "crfsuite
// learn" and "crfsuite tag"), so feature files made for CRFsuite can be
// trained on unchanged:
//
//	B-NP	w[0]=He	w[1]=reckons	pos[0]=PRP
//	B-VP	w[0]=reckons	w[-1]=He	len:7
//
// One token per line, fields separated by single tabs. The first field is
// the label; it may be empty (the line starts with a tab) in text to be
// tagged. Every later field is an attribute, "name" or "name:value", whose
// syntax AppendCRFsuiteAttribute parses. Empty fields (two tabs in a row)
// are skipped, as CRFsuite skips them. A blank or whitespace-only line
// ends a sentence.
//
// Sentence.Tokens[i] is {label, field1, field2, …} with the fields raw
// (still escaped, value attached): parsing them is the attributes
// template's job, so each value is parsed once, where it is used. A token
// without attributes still has a row of two, {label, ""}, so that code
// indexing the "attributes" column (the word column of the vocabulary,
// for instance) never runs off the row.
//
// Unlike CRFsuite, a field starting with "#" is an ordinary attribute, not
// a comment running to the end of the line: CRFsuite's own example
// extractors never write comments, and silently dropping the rest of a
// line is the worse failure.
type crfsuiteFormat struct {
	label int
}

var _ Format = (*crfsuiteFormat)(nil)

func newCRFsuite(cfg Config) (*crfsuiteFormat, error) {
	// The label is always the first field; "attributes" is not something a
	// label can be read from.
	if cfg.Label == crfsuiteColumns[1] {
		return nil, fmt.Errorf(`label column %q: in the crfsuite format the label is the first field, column "label"`, cfg.Label)
	}
	label, err := labelIndex(cfg.Label, crfsuiteColumns, false)
	if err != nil {
		return nil, err
	}
	return &crfsuiteFormat{label: label}, nil
}

func (f *crfsuiteFormat) Name() string      { return NameCRFsuite }
func (f *crfsuiteFormat) Columns() []string { return append([]string(nil), crfsuiteColumns...) }
func (f *crfsuiteFormat) LabelColumn() int  { return f.label }

func (f *crfsuiteFormat) NewReader(r io.Reader, file string, opts ReadOptions) Reader {
	// An empty label is a mistake only when labels are wanted: without a
	// label column the first field is read and ignored.
	return &crfsuiteReader{lines: newLineReader(r, file), requireLabel: f.label >= 0 && !opts.LabelOptional}
}

// NewWriter writes each token line as read with a tab and the predicted
// label appended, like the other column formats (not CRFsuite's own "tag"
// output of bare labels), so output lines up with input for scoring.
func (f *crfsuiteFormat) NewWriter(w io.Writer) Writer {
	return &columnWriter{bw: bufio.NewWriterSize(w, writeBufferSize), sep: "\t"}
}

type crfsuiteReader struct {
	lines        *lineReader
	requireLabel bool
	b            crfsuiteBuilder
	err          error
}

var _ Reader = (*crfsuiteReader)(nil)

func (r *crfsuiteReader) Read() (*Sentence, error) {
	if r.err != nil {
		return nil, r.err
	}
	for {
		line, err := r.lines.next()
		if err != nil {
			if err == io.EOF && r.b.hasTokens() {
				return r.b.finish(r.lines.file), nil // the last sentence needs no blank line
			}
			r.err = err
			return nil, err
		}
		if isBlank(line) {
			if r.b.hasTokens() {
				return r.b.finish(r.lines.file), nil
			}
			continue
		}
		if r.requireLabel && len(line) > 0 && line[0] == '\t' {
			r.err = r.lines.errorf(r.lines.lineNo, "the label is empty in %s (the line starts with a tab); every token line starts with its label, then a tab before each attribute", quoteLine(line))
			return nil, r.err
		}
		r.b.addToken(line, r.lines.lineNo)
	}
}

// crfsuiteBuilder collects the lines of one sentence and the spans of
// their fields, then slices every field out of one string, as blockBuilder
// does for fixed-width rows.
type crfsuiteBuilder struct {
	buf       []byte
	lineEnds  []int // end offset in buf of each token's line
	lineNos   []int // 1-based file line of each token
	spans     []int // [start, end) offsets in buf of every kept field
	rowEnds   []int // end index in spans (in fields) of each token's row
	firstLine int
	cells     int // total row length over tokens, padding included
}

func (b *crfsuiteBuilder) hasTokens() bool { return len(b.lineEnds) > 0 }

func (b *crfsuiteBuilder) addToken(line []byte, lineNo int) {
	if !b.hasTokens() {
		b.firstLine = lineNo
	}
	base := len(b.buf)
	b.buf = append(b.buf, line...)
	b.lineEnds = append(b.lineEnds, len(b.buf))
	b.lineNos = append(b.lineNos, lineNo)
	n := 0
	for start, first := 0, true; ; first = false {
		j := bytes.IndexByte(line[start:], '\t')
		end := len(line)
		if j >= 0 {
			end = start + j
		}
		// The label is kept even when empty; an empty attribute field is
		// not an attribute.
		if first || end > start {
			b.spans = append(b.spans, base+start, base+end)
			n++
		}
		if j < 0 {
			break
		}
		start = end + 1
	}
	b.rowEnds = append(b.rowEnds, len(b.spans)/2)
	b.cells += max(n, len(crfsuiteColumns))
}

func (b *crfsuiteBuilder) finish(file string) *Sentence {
	text := string(b.buf)
	n := len(b.lineEnds)
	s := &Sentence{
		Tokens: make([][]string, n),
		Lines:  make([]string, n),
		File:   file,
		Line:   b.firstLine,
	}
	cells := make([]string, b.cells)
	ints := make([]int, 2*n)
	s.TokenLine, s.TokenLineNo = ints[:n:n], ints[n:]
	start, field, cell := 0, 0, 0
	for i, end := range b.lineEnds {
		s.Lines[i] = text[start:end]
		s.TokenLine[i] = i // every line of a sentence is a token line
		s.TokenLineNo[i] = b.lineNos[i]
		start = end
		width := max(b.rowEnds[i]-field, len(crfsuiteColumns))
		row := cells[cell : cell+width : cell+width]
		for c := 0; field < b.rowEnds[i]; c, field = c+1, field+1 {
			row[c] = text[b.spans[2*field]:b.spans[2*field+1]]
		}
		s.Tokens[i] = row
		cell += width
	}
	b.buf, b.lineEnds, b.lineNos, b.spans, b.rowEnds = b.buf[:0], b.lineEnds[:0], b.lineNos[:0], b.spans[:0], b.rowEnds[:0]
	b.firstLine, b.cells = 0, 0
	return s
}

// AppendCRFsuiteAttribute parses field, one attribute field of a crfsuite
// line, appends the attribute's name to dst and returns the extended
// slice with the attribute's value.
//
// The value follows the last colon that is not escaped. In names, "\:"
// stands for ":" and "\\" for "\" (CRFsuite's escapes); a backslash before
// anything else is an ordinary character. Where CRFsuite would silently
// misread a field, this is what happens instead:
//
//   - no unescaped colon, or nothing after it: value 1 ("w=a" and "w=a:"
//     both name "w=a"), as in CRFsuite;
//   - the text after the colon is not a number: the whole field is the
//     name with value 1 ("url=http://x" names "url=http://x"), where
//     CRFsuite would cut the name at the first colon and take value 0 —
//     such fields come from extractors that forgot to escape;
//   - the number is not finite (NaN, Inf, or out of float64 range): an
//     error, as such a value would turn every weight it touches into NaN.
//
// Surrounding spaces around the number are allowed, as C's atof and
// Python's float allow them. The name may be empty (":2"), as CRFsuite
// accepts. No allocation happens unless dst must grow or the value is
// rejected.
func AppendCRFsuiteAttribute(dst []byte, field string) ([]byte, float64, error) {
	colon := -1
	for i := 0; i < len(field); i++ {
		switch field[i] {
		case '\\':
			if i+1 < len(field) && (field[i+1] == ':' || field[i+1] == '\\') {
				i++ // an escape: the next byte is not a separator
			}
		case ':':
			colon = i
		}
	}
	name, value := field, 1.0
	if colon >= 0 {
		num := trimSpaceString(field[colon+1:])
		switch {
		case num == "":
			name = field[:colon]
		case isDecimalFloat(num):
			// Checking the syntax first keeps ParseFloat from allocating
			// an error for every "a:xyz" of a file written without
			// escapes. On a checked string it fails only with ErrRange
			// (v is then ±Inf) or on a signed NaN, which C reads and Go
			// does not.
			v, err := strconv.ParseFloat(num, 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				v = math.NaN()
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return dst, 0, fmt.Errorf("attribute %q: value %q is not a finite number", field, num)
			}
			name, value = field[:colon], v
		}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '\\' && i+1 < len(name) && (name[i+1] == ':' || name[i+1] == '\\') {
			i++
			c = name[i]
		}
		dst = append(dst, c)
	}
	return dst, value, nil
}

// isDecimalFloat reports whether s is a decimal number as C's strtod and
// Python's float read it, or a signed "inf", "infinity" or "nan" (any
// case): [+-] (digits [. [digits]] | . digits) [(e|E) [+-] digits]. Go's
// extras (hexadecimal mantissas, "_" between digits) are not numbers here.
func isDecimalFloat(s string) bool {
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if strings.EqualFold(s, "inf") || strings.EqualFold(s, "infinity") || strings.EqualFold(s, "nan") {
		return true
	}
	digits := func(i int) int {
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i
	}
	i := digits(0)
	mantissa := i > 0
	if i < len(s) && s[i] == '.' {
		j := digits(i + 1)
		mantissa = mantissa || j > i+1
		i = j
	}
	if !mantissa {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(s)
}

func trimSpaceString(s string) string {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	return trimRightSpace(s)
}

// EscapeCRFsuiteName escapes ":" and "\" in an attribute name the way
// CRFsuite expects, so that AppendCRFsuiteAttribute reads it back whole.
func EscapeCRFsuiteName(name string) string {
	var b []byte
	for i := 0; i < len(name); i++ {
		if c := name[i]; c == ':' || c == '\\' {
			if b == nil {
				b = append(make([]byte, 0, len(name)+4), name[:i]...)
			}
			b = append(b, '\\', c)
		} else if b != nil {
			b = append(b, c)
		}
	}
	if b == nil {
		return name
	}
	return string(b)
}
