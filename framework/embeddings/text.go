// text.go: the text layouts (word2vec text, fastText .vec, GloVe): the
// header, rows, and number parsing without an allocation per value.

package embeddings

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// readText reads a text file, a "V D" header first if header is set.
func (rd *reader) readText(header bool) error {
	line, err := rd.nextRow()
	if err == io.EOF {
		return &FormatError{File: rd.name, Msg: "the file is empty", Err: ErrEmpty}
	}
	if err != nil {
		return err
	}
	want, h := int64(-1), hint{values: -1}
	if header {
		if rd.o.Format == Auto {
			h = hint{0, 1, fmt.Sprintf(" (line %d was taken for a word2vec header \"V D\": if it is a word and its value, read the file as glove)", rd.line)}
		}
		v, d, msg := parseHeader(line)
		if msg != "" {
			return rd.lineErr(ErrHeader, msg, line)
		}
		if msg := rd.setDim(int(d), v, 2*d+2); msg != "" {
			return rd.lineErr(ErrDim, msg, line)
		}
		want = v
		line, err = rd.nextRow()
	} else if _, d, msg := parseHeader(line); msg == "" && isHeader(line) {
		h = hint{1, int(d), fmt.Sprintf(" (line %d looks like a word2vec header \"V D\": is this a word2vec file?)", rd.line)}
	}
	var rows int64
	for ; err == nil; line, err = rd.nextRow() {
		if rd.v.Dim == 0 {
			if err := rd.firstRow(line); err != nil {
				return err
			}
		}
		if rows == want {
			return rd.lineErr(ErrExtra, fmt.Sprintf("the header promises %s and this line is one more", plural(want, "word")), line)
		}
		rh := h // the hint is for one row only
		if rows != h.row {
			rh.values = -1
		}
		if err := rd.row(line, rh); err != nil {
			return err
		}
		rows++
	}
	if err != io.EOF {
		return err
	}
	if rows < want {
		return &FormatError{File: rd.name, Line: rd.line + 1, Offset: rd.off, Err: ErrTruncated,
			Msg: fmt.Sprintf("the file ends after %d of the %s its header promises", rows, plural(want, "word"))}
	}
	return nil
}

// firstRow sets a GloVe file's dimension from its first row.
func (rd *reader) firstRow(line []byte) error {
	n := countFields(line) - 1
	switch {
	case n < 1:
		return rd.lineErr(ErrValues, "the first row has a word but no values", line)
	case n > MaxDim:
		return rd.lineErr(ErrDim, fmt.Sprintf("the first row has %d values, more than %d", n, MaxDim), line)
	}
	minRow := max(int64(len(line)+1)*7/8, int64(2*n+2))
	if msg := rd.setDim(n, -1, minRow); msg != "" {
		return rd.lineErr(ErrDim, msg, line)
	}
	return nil
}

// hint explains a wrong number of values that suggests the first line
// was misread: text is added to the message of row row when it has
// exactly values values.
type hint struct {
	row    int64
	values int
	text   string
}

// add returns h's text if a row with n values warrants it.
func (h hint) add(n int) string {
	if n == h.values {
		return h.text
	}
	return ""
}

// row reads one line "word v1 … vD" into the matrix (and drops it again
// if the word is not kept). h may explain a wrong number of values.
func (rd *reader) row(line []byte, h hint) error {
	dim := rd.v.Dim
	word, rest := field(line)
	if msg := checkWord(word); msg != "" {
		return rd.lineErr(ErrWord, msg, line)
	}
	base := len(rd.v.Data)
	n := 0
	for {
		var f []byte
		if f, rest = field(rest); f == nil {
			break
		}
		if n++; n > dim {
			rd.v.Data = rd.v.Data[:base]
			n += countFields(rest)
			msg := fmt.Sprintf("row has %s, want %d%s", plural(int64(n), "value"), dim, h.add(n))
			return rd.lineErr(ErrValues, msg, line)
		}
		x, msg := parseValue(f)
		if msg != "" {
			rd.v.Data = rd.v.Data[:base]
			return rd.lineErr(ErrNumber, fmt.Sprintf("value %d %s", n, msg), line)
		}
		rd.v.Data = append(rd.v.Data, x)
	}
	if n < dim {
		rd.v.Data = rd.v.Data[:base]
		return rd.lineErr(ErrValues, fmt.Sprintf("row has %s, want %d%s", plural(int64(n), "value"), dim, h.add(n)), line)
	}
	if !rd.add(word) {
		rd.v.Data = rd.v.Data[:base]
	}
	return nil
}

// parseValue parses one value; the string says what is wrong with it.
// string(f) does not allocate: ParseFloat does not keep its argument.
func parseValue(f []byte) (float32, string) {
	if x, ok := fastFloat(f); ok {
		return x, ""
	}
	x, err := strconv.ParseFloat(string(f), 32)
	switch {
	case err == nil && !math.IsNaN(x) && !math.IsInf(x, 0):
		return float32(x), ""
	case errors.Is(err, strconv.ErrRange):
		return 0, fmt.Sprintf("%q is out of float32's range", clip(f))
	case err != nil:
		return 0, fmt.Sprintf("%q is not a number", clip(f))
	case math.IsNaN(x):
		return 0, fmt.Sprintf("%q is NaN", clip(f))
	}
	return 0, fmt.Sprintf("%q is infinite", clip(f))
}

// pow10 holds the powers of ten that float32 represents exactly.
var pow10 = [...]float32{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10}

// fastFloat parses the common short decimals ([+-]digits[.digits][e[+-]
// digits]) whose value is m·10^e with m < 2^24 and |e| ≤ 10: then m and
// 10^|e| are exact float32s and one multiplication or division rounds
// correctly, to the bits strconv.ParseFloat gives (the fast path it
// takes itself, after a slower scan). ok is false for anything else,
// which strconv then parses or rejects. GloVe's and fastText's files
// (six or fewer digits) mostly take this path.
func fastFloat(b []byte) (x float32, ok bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, i = b[0] == '-', 1
	}
	var m uint64
	e, digits := 0, 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		m, digits = m*10+uint64(b[i]-'0'), digits+1
		if m >= 1<<24 {
			return 0, false
		}
	}
	if i < len(b) && b[i] == '.' {
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			m, digits, e = m*10+uint64(b[i]-'0'), digits+1, e-1
			if m >= 1<<24 {
				return 0, false
			}
		}
	}
	if digits == 0 {
		return 0, false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		exp, n, sign := 0, 0, 1
		if i++; i < len(b) && (b[i] == '-' || b[i] == '+') {
			if b[i] == '-' {
				sign = -1
			}
			i++
		}
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9' && n < 4; i, n = i+1, n+1 {
			exp = exp*10 + int(b[i]-'0')
		}
		if n == 0 {
			return 0, false
		}
		e += sign * exp
	}
	if i != len(b) {
		return 0, false
	}
	switch {
	case m == 0:
		x = 0
	case e >= 0 && e < len(pow10):
		x = float32(m) * pow10[e]
	case e < 0 && -e < len(pow10):
		x = float32(m) / pow10[-e]
	default:
		return 0, false
	}
	if neg {
		x = -x
	}
	return x, true
}

// plural returns "1 word", "2 words".
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}

// field returns b's first field (a run of bytes other than space and
// tab; nil if there is none) and the bytes after it.
func field(b []byte) (f, rest []byte) {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	if i == len(b) {
		return nil, nil
	}
	j := i
	for j < len(b) && b[j] != ' ' && b[j] != '\t' {
		j++
	}
	return b[i:j], b[j:]
}

// countFields counts b's fields.
func countFields(b []byte) int {
	n := 0
	for f, rest := field(b); f != nil; f, rest = field(rest) {
		n++
	}
	return n
}

// isHeader reports whether line is two integers, as a word2vec header.
func isHeader(line []byte) bool {
	a, rest := field(line)
	b, rest := field(rest)
	c, _ := field(rest)
	return isInt(a) && isInt(b) && c == nil
}

// isInt reports whether f is a decimal integer, perhaps signed.
func isInt(f []byte) bool {
	if len(f) > 0 && (f[0] == '+' || f[0] == '-') {
		f = f[1:]
	}
	if len(f) == 0 {
		return false
	}
	for _, c := range f {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// parseHeader parses a word2vec header "V D"; the string says what is
// wrong with it.
func parseHeader(line []byte) (words, dim int64, msg string) {
	a, rest := field(line)
	b, rest := field(rest)
	if c, _ := field(rest); a == nil || b == nil || c != nil {
		return 0, 0, `want a header "V D" (the number of words and the dimension)`
	}
	words, err := strconv.ParseInt(string(a), 10, 64)
	if err != nil {
		return 0, 0, fmt.Sprintf("the header's word count %q is not an integer", clip(a))
	}
	dim, err = strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, 0, fmt.Sprintf("the header's dimension %q is not an integer", clip(b))
	}
	switch {
	case words <= 0:
		return 0, 0, fmt.Sprintf("the header's word count %d is not positive", words)
	case dim <= 0:
		return 0, 0, fmt.Sprintf("the header's dimension %d is not positive", dim)
	case dim > MaxDim:
		return 0, 0, fmt.Sprintf("the header's dimension %d is more than %d", dim, MaxDim)
	}
	return words, dim, ""
}
