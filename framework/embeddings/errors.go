// errors.go: the sentinel errors and *FormatError, which says where in a
// file the reader found a problem.

package embeddings

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The sentinel errors. Every error Read and ReadFrom return for bad input
// is a *FormatError that wraps one of them (test with errors.Is); Write
// and New wrap them too.
var (
	// ErrEmpty: the file holds no line or record at all (or only blank
	// lines); Write and New: no words.
	ErrEmpty = errors.New("no vectors")
	// ErrHeader: a word2vec header that is not "V D" with 0 < V and
	// 0 < D ≤ MaxDim.
	ErrHeader = errors.New("bad header")
	// ErrDim: the file's dimension differs from Options.Dim, or a GloVe
	// file's first line has more than MaxDim values; also (not in a
	// *FormatError) an Options.Dim outside 0..MaxDim.
	ErrDim = errors.New("wrong dimension")
	// ErrValues: a row with fewer or more values than the dimension (from
	// the header, or from a GloVe file's first line).
	ErrValues = errors.New("wrong number of values")
	// ErrNumber: a value that is not a decimal number, is NaN or
	// infinite, or is out of float32's range.
	ErrNumber = errors.New("bad number")
	// ErrWord: a word that is empty, not valid UTF-8, or holds ASCII
	// whitespace or NUL; Write and New: also a repeated word.
	ErrWord = errors.New("bad word")
	// ErrTruncated: the file ends before the header's V words, or inside a
	// binary record.
	ErrTruncated = errors.New("truncated file")
	// ErrExtra: more than the header's V words, or other non-blank data
	// after them.
	ErrExtra = errors.New("data after the last vector")
	// ErrTooLong: a line longer than 4 MiB, or a binary word longer than
	// the read buffer (1 MiB).
	ErrTooLong = errors.New("line too long")
	// ErrFormat: a compressed archive or a fastText model (.bin) rather
	// than vectors; also returned for an invalid Options.Format.
	ErrFormat = errors.New("not a word-vector file")
)

// maxText is how much of the offending line FormatError.Text keeps.
const maxText = 80

// FormatError is bad input at a place in a file. Its message is
//
//	FILE:LINE: MSG: "TEXT"                  (text files)
//	FILE: record N (byte OFFSET): MSG: "TEXT" (binary records)
//	FILE: MSG                               (the whole file)
type FormatError struct {
	// File is the name passed to ReadFrom (the path, for Read).
	File string
	// Line is the 1-based line of a text file, counting every line
	// (blank ones and the header too); 0 in a binary file's records and
	// for problems of the whole file. A word2vec binary header is line 1.
	Line int
	// Record is the 1-based record of a binary file (the header is not a
	// record); 0 elsewhere.
	Record int
	// Offset is the byte offset of the line's start (text) or of the bad
	// byte (binary), counted in the decompressed bytes of a gzip file.
	Offset int64
	// Msg says what is wrong ("row has 3 values, want 300"); "" means
	// Err's message.
	Msg string
	// Text is the offending line (text) or word (binary), cut to at most
	// 80 bytes at a character boundary with "..." marking a cut; "" when
	// there is none (as at the end of a truncated file).
	Text string
	// Err is one of the sentinel errors above, or the reader's own error
	// (an I/O or gzip error) when reading failed.
	Err error
}

// Error formats the error as described on the type.
func (e *FormatError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	switch {
	case e.Line > 0:
		b.WriteString(":" + strconv.Itoa(e.Line))
	case e.Record > 0:
		b.WriteString(": record " + strconv.Itoa(e.Record) + " (byte " + strconv.FormatInt(e.Offset, 10) + ")")
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Msg != "" {
		b.WriteString(e.Msg)
	} else if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	if e.Text != "" {
		b.WriteString(": " + strconv.Quote(e.Text))
	}
	return b.String()
}

// Unwrap returns Err, for errors.Is and errors.As.
func (e *FormatError) Unwrap() error { return e.Err }

// clip returns b as a string of at most maxText bytes, cut at a character
// boundary and marked with "...".
func clip(b []byte) string {
	if len(b) <= maxText {
		return string(b)
	}
	cut := maxText
	for cut > maxText-utf8.UTFMax && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + "..."
}
