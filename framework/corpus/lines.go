package corpus

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"unicode/utf8"
)

// maxLineBytes bounds one line so that a file without line breaks (a
// binary file given by mistake) fails clearly instead of exhausting
// memory. It is a variable so tests can lower it.
var maxLineBytes = 64 << 20

// readBufferSize is the bufio buffer; lines longer than it are assembled
// in lineReader.long.
const readBufferSize = 64 << 10

var utf8BOM = []byte("\xef\xbb\xbf")

// lineReader splits its input into lines without their "\n" or "\r\n",
// strips a leading byte-order mark, checks UTF-8 and counts lines.
type lineReader struct {
	br      *bufio.Reader
	file    string
	lineNo  int    // 1-based number of the line last returned
	long    []byte // assembles a line longer than br's buffer
	started bool
	err     error // sticky: once set, next returns it
}

func newLineReader(r io.Reader, file string) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, readBufferSize), file: file}
}

func (lr *lineReader) errorf(line int, format string, args ...any) *Error {
	return &Error{File: lr.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// next returns the next line, valid only until the following call, or
// io.EOF after the last line.
func (lr *lineReader) next() ([]byte, error) {
	if lr.err != nil {
		return nil, lr.err
	}
	if cap(lr.long) > 1<<20 {
		lr.long = nil // do not keep a huge buffer alive after one long line
	}
	line, err := lr.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		lr.long = append(lr.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = lr.br.ReadSlice('\n')
			if len(lr.long)+len(line) > maxLineBytes {
				lr.err = lr.errorf(lr.lineNo+1, "line longer than %d MiB (is this a text file?)", maxLineBytes>>20)
				return nil, lr.err
			}
			lr.long = append(lr.long, line...)
		}
		line = lr.long
	}
	if err != nil && err != io.EOF {
		var pathErr *fs.PathError
		if !errors.As(err, &pathErr) {
			err = fmt.Errorf("%s: %w", lr.file, err)
		}
		lr.err = err
		return nil, err
	}
	if len(line) == 0 { // err is io.EOF: the previous line was the last
		lr.err = io.EOF
		return nil, io.EOF
	}
	lr.lineNo++
	if n := len(line); line[n-1] == '\n' {
		line = line[:n-1]
	}
	// Every trailing CR, not just CRLF's one: a tab-separated line
	// ending "x\r\r" would otherwise keep a cell ending in "\r", which
	// the writer cannot write back at the end of a line (it would read
	// as the line ending) — so a read, written, read again corpus would
	// differ (FuzzReadCoNLLU found it).
	line = bytes.TrimRight(line, "\r")
	if !lr.started {
		lr.started = true
		line = bytes.TrimPrefix(line, utf8BOM)
	}
	if !utf8.Valid(line) {
		lr.err = lr.errorf(lr.lineNo, "invalid UTF-8 at byte %d of %s", invalidUTF8At(line)+1, quoteLine(line))
		return nil, lr.err
	}
	return line, nil
}

// quoteLine is a line as a data error shows it: quoted, so that tabs and
// bad bytes are visible, and cut to 80 bytes.
func quoteLine(line []byte) string { return strconv.Quote(clip(line)) }

// isSpace reports whether b is ASCII whitespace (other than "\n", which
// never occurs inside a line).
func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\r' || b == '\v' || b == '\f'
}

// invalidUTF8At returns the offset of the first byte of line that is not
// valid UTF-8.
func invalidUTF8At(line []byte) int {
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRune(line[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(line)
}

// isBlank reports whether line holds only whitespace.
func isBlank(line []byte) bool {
	for _, b := range line {
		if !isSpace(b) {
			return false
		}
	}
	return true
}

// nextField returns the bounds [start, end) of the first whitespace-
// separated field of s at or after i, or start == len(s) if there is none.
func nextField[T string | []byte](s T, i int) (start, end int) {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	start = i
	for i < len(s) && !isSpace(s[i]) {
		i++
	}
	return start, i
}
