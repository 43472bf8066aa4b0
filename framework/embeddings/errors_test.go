// errors_test.go: every kind of bad input gives a *FormatError naming the
// file, the line (or record and offset) and the offending text.

package embeddings

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// binRecords builds a word2vec binary file: header, then records of a
// word and its values each followed by '\n'.
func binRecords(header string, recs ...any) []byte {
	b := []byte(header)
	for i := 0; i < len(recs); i += 2 {
		b = append(b, recs[i].(string)+" "...)
		b = append(b, le(recs[i+1].([]float32)...)...)
		b = append(b, '\n')
	}
	return b
}

// badInput is a bad file and the error it must give.
type badInput struct {
	name   string
	data   []byte
	o      Options
	err    error
	line   int    // text line; 0 for binary records or the whole file
	record int    // binary record
	offset int64  // binary: byte offset; -1 not checked
	text   string // in the message
}

// badInputs lists one file per kind of bad input.
func badInputs(t *testing.T) []badInput {
	nan, inf := float32(0), float32(0)
	nan, inf = nan/nan, 1/inf
	ok := binRecords("2 2\n", "a", []float32{1, 2}, "b", []float32{3, 4})
	return []badInput{
		// dimension against Options.Dim
		{"dim word2vec", []byte("2 3\na 1 2 3\n"), Options{Dim: 4}, ErrDim, 1, 0, -1, `vectors have 3 values, want 4 (Options.Dim): "2 3"`},
		{"dim glove", []byte("\na 1 2 3\n"), Options{Dim: 2}, ErrDim, 2, 0, -1, `"a 1 2 3"`},
		{"dim binary", binRecords("1 2\n", "a", []float32{1, 2}), Options{Dim: 3}, ErrDim, 1, 0, -1, `"1 2"`},
		// rows against the dimension
		{"too few values", []byte("2 3\na 1 2 3\nb 1 2\n"), Options{}, ErrValues, 3, 0, -1, `row has 2 values, want 3: "b 1 2"`},
		{"too many values", []byte("2 3\na 1 2 3\nb 1 2 3 4 5\n"), Options{}, ErrValues, 3, 0, -1, `row has 5 values, want 3: "b 1 2 3 4 5"`},
		{"glove too few", []byte("a 1 2 3\nb 1 2\n"), Options{}, ErrValues, 2, 0, -1, `want 3: "b 1 2"`},
		{"glove too many after blank", []byte("a 1 2\n\nb 1 2 3\n"), Options{}, ErrValues, 3, 0, -1, `row has 3 values, want 2`},
		{"word without values", []byte("a\nb 1\n"), Options{}, ErrValues, 1, 0, -1, `no values: "a"`},
		{"glove over MaxDim", []byte("a" + strings.Repeat(" 0", MaxDim+1) + "\n"), Options{}, ErrDim, 1, 0, -1, `10001 values`},
		{"glove read as header", []byte("5 3\n6 4\n"), Options{}, ErrValues, 2, 0, -1, `row has 1 value, want 3 (line 1 was taken for a word2vec header "V D": if it is a word and its value, read the file as glove): "6 4"`},
		{"no header hint", []byte("2 3\na 1 2\n"), Options{}, ErrValues, 2, 0, -1, `row has 2 values, want 3: "a 1 2"`},
		{"header read as glove", []byte("2 3\na 1 2 3\n"), Options{Format: GloVe}, ErrValues, 2, 0, -1, `looks like a word2vec header`},
		// values
		{"not a number", []byte("a 1 2\nb 1 x\n"), Options{}, ErrNumber, 2, 0, -1, `value 2 "x" is not a number: "b 1 x"`},
		{"two points", []byte("a 1 2\nb 1.2.3 4\n"), Options{}, ErrNumber, 2, 0, -1, `value 1 "1.2.3" is not a number`},
		{"nan", []byte("1 2\na NaN 2\n"), Options{}, ErrNumber, 2, 0, -1, `value 1 "NaN" is NaN`},
		{"inf", []byte("a 1 2\nb 1 -Inf\n"), Options{}, ErrNumber, 2, 0, -1, `value 2 "-Inf" is infinite`},
		{"out of range", []byte("a 1 2\nb 1 1e39\n"), Options{}, ErrNumber, 2, 0, -1, `"1e39" is out of float32's range`},
		{"binary nan", binRecords("2 2\n", "a", []float32{1, 2}, "b", []float32{3, nan}), Options{}, ErrNumber, 0, 2, 4 + 11 + 2 + 4, `value 2 is NaN: "b"`},
		{"binary inf", binRecords("1 2\n", "a", []float32{inf, 2}), Options{}, ErrNumber, 0, 1, 6, `value 1 is +Inf: "a"`},
		// truncation and extra data
		{"truncated text", []byte("3 2\na 1 2\nb 1 2\n"), Options{}, ErrTruncated, 4, 0, -1, `ends after 2 of the 3 words`},
		{"header only", []byte("3 2\n"), Options{}, ErrTruncated, 2, 0, -1, `ends after 0 of the 3 words`},
		{"truncated binary", ok[:len(ok)-11], Options{Format: Word2VecBinary}, ErrTruncated, 0, 2, int64(len(ok) - 11), `ends after 1 of the 2 records`},
		{"binary cut in vector", ok[:len(ok)-3], Options{}, ErrTruncated, 0, 2, int64(len(ok) - 3), `inside the vector (6 of its 8 bytes): "b"`},
		{"binary missing record", binRecords("2 2\n", "a", []float32{1, 2}), Options{Format: Word2VecBinary}, ErrTruncated, 0, 2, 15, `ends after 1 of the 2 records`},
		{"binary cut in word 2", append(binRecords("2 2\n", "a", []float32{1, 2}), "bcd"...), Options{}, ErrTruncated, 0, 2, 15, `inside the word: "bcd"`},
		{"extra text row", []byte("1 2\na 1 2\nb 3 4\n"), Options{}, ErrExtra, 3, 0, -1, `promises 1 word and this line is one more: "b 3 4"`},
		{"extra binary data", append(ok, "junk"...), Options{}, ErrExtra, 0, 3, int64(len(ok)), `after the 2 records the header promises: "junk"`},
		// words
		{"bad utf-8 text", []byte("a 1\nb\xff 2\n"), Options{}, ErrWord, 2, 0, -1, `not valid UTF-8: "b\xff 2"`},
		{"bad utf-8 binary", binRecords("2 1\n", "a", []float32{1}, "\xc3(", []float32{2}), Options{Format: Word2VecBinary}, ErrWord, 0, 2, 11, `not valid UTF-8: "\xc3("`},
		{"nul in word", []byte("a 1\nb\x00c 2\n"), Options{}, ErrWord, 2, 0, -1, `holds the byte '\x00'`},
		{"tab in binary word", binRecords("1 1\n", "a\tb", []float32{1}), Options{Format: Word2VecBinary}, ErrWord, 0, 1, 4, `holds the byte '\t'`},
		// empty files and headers
		{"empty", nil, Options{}, ErrEmpty, 0, 0, -1, `the file is empty`},
		{"blank", []byte("\n  \r\n\t\n"), Options{}, ErrEmpty, 0, 0, -1, `the file is empty`},
		{"empty binary", nil, Options{Format: Word2VecBinary}, ErrEmpty, 0, 0, -1, `the file is empty`},
		{"zero words", []byte("0 3\n"), Options{}, ErrHeader, 1, 0, -1, `word count 0 is not positive: "0 3"`},
		{"negative words", []byte("-5 3\na 1 2 3\n"), Options{Format: Word2VecText}, ErrHeader, 1, 0, -1, `word count -5`},
		{"zero dim", []byte("2 0\n"), Options{}, ErrHeader, 1, 0, -1, `dimension 0 is not positive`},
		{"huge dim", []byte("2 10001\nxyz"), Options{}, ErrHeader, 1, 0, -1, `dimension 10001 is more than 10000`},
		{"huge dim binary", []byte("2 1000000\n\x00\x01"), Options{Format: Word2VecBinary}, ErrHeader, 1, 0, -1, `more than 10000`},
		{"huge count", []byte("99999999999999999999 3\n"), Options{}, ErrHeader, 1, 0, -1, `is not an integer`},
		{"no header", []byte("a 1 2\n"), Options{Format: FastText}, ErrHeader, 1, 0, -1, `want a header "V D"`},
		{"binary no header", []byte("\x01\x02\x03garbage\n"), Options{Format: Word2VecBinary}, ErrHeader, 1, 0, -1, `want a header`},
		{"binary bad count", []byte("x 2\n"), Options{Format: Word2VecBinary}, ErrHeader, 1, 0, -1, `word count "x" is not an integer`},
		// not vectors at all
		{"zip", []byte("PK\x03\x04\x14\x00rest"), Options{}, ErrFormat, 0, 0, -1, `zip archive`},
		{"fasttext model", []byte("\xba\x16\x4f\x2f\x0c\x00\x00\x00"), Options{}, ErrFormat, 0, 0, -1, `fastText model`},
		{"truncated gzip", gz(t, encode(t, sample(), GloVe))[:40], Options{}, ErrTruncated, 0, 0, -1, `cut short`},
		// a long line is quoted only in part
		{"long line", []byte("a 1 2\n" + strings.Repeat("é", 100) + " 1\n"), Options{}, ErrValues, 2, 0, -1, `want 2: "` + strings.Repeat("é", 40) + `..."`},
	}
}

// TestBadInput reads each bad file from disk and checks the sentinel,
// the place, and that the message names the file, the place and the
// offending text.
func TestBadInput(t *testing.T) {
	for _, tt := range badInputs(t) {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, "bad-"+strings.ReplaceAll(tt.name, " ", "-")+".vec", tt.data)
			v, err := Read(path, tt.o)
			if err == nil {
				t.Fatalf("no error; read %d words", len(v.Words))
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("error %v is not %v", err, tt.err)
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T %v is not a *FormatError", err, err)
			}
			if fe.File != path || fe.Line != tt.line || fe.Record != tt.record {
				t.Errorf("File, Line, Record = %q, %d, %d; want %q, %d, %d", fe.File, fe.Line, fe.Record, path, tt.line, tt.record)
			}
			if tt.offset >= 0 && fe.Offset != tt.offset {
				t.Errorf("Offset = %d, want %d", fe.Offset, tt.offset)
			}
			msg := err.Error()
			place := path + ": "
			switch {
			case tt.line > 0:
				place = fmt.Sprintf("%s:%d: ", path, tt.line)
			case tt.record > 0:
				place = fmt.Sprintf("%s: record %d (byte %d): ", path, tt.record, fe.Offset)
			}
			if !strings.HasPrefix(msg, place) {
				t.Errorf("message %q does not start with %q", msg, place)
			}
			if !strings.Contains(msg, tt.text) {
				t.Errorf("message %q does not contain %q", msg, tt.text)
			}
		})
	}
}

// TestLineTooLong refuses a line longer than 4 MiB.
func TestLineTooLong(t *testing.T) {
	data := []byte("a 1\nb" + strings.Repeat(" 1", maxLine/2+1) + "\n")
	_, err := ReadFrom(hideLen{bytes.NewReader(data)}, "long.txt", Options{})
	var fe *FormatError
	if !errors.Is(err, ErrTooLong) || !errors.As(err, &fe) || fe.Line != 2 || len(fe.Text) > maxText+3 {
		t.Fatalf("got %v", err)
	}
}

// failing fails after n bytes.
type failing struct {
	r   io.Reader
	n   int
	err error
}

func (f *failing) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, f.err
	}
	p = p[:min(len(p), f.n)]
	n, err := f.r.Read(p)
	f.n -= n
	return n, err
}

// TestReaderError passes the reader's own error on, with the file name.
func TestReaderError(t *testing.T) {
	boom := errors.New("disk on fire")
	data := encode(t, sample(), Word2VecText)
	for _, n := range []int{0, 3, 20, len(data) - 1} {
		_, err := ReadFrom(&failing{bytes.NewReader(data), n, boom}, "v.txt", Options{})
		if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "v.txt") {
			t.Errorf("failing after %d bytes: %v", n, err)
		}
	}
}
