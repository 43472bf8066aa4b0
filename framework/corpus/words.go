// words.go holds the readers of running text for the commands that count
// words rather than read labelled sentences (trellis clusters, trellis
// embeddings): plain text, a column of a CoNLL file, the forms of a
// CoNLL-U file, each word handed to a WordSink.

package corpus

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// WordSink receives words sentence by sentence. The slice Add gets is
// valid for the call only.
type WordSink interface {
	Add(word []byte)
	EndSentence()
}

// maxWordsLine is the longest line the word readers take (a sentence per
// line of plain text can be long).
const maxWordsLine = 64 << 20

// ReadTextWords reads pre-tokenized text: a sentence per line, words
// separated by ASCII white space (so a UTF-8 sequence, a non-breaking
// space, stays inside its word). name names r in errors.
func ReadTextWords(name string, r io.Reader, sink WordSink) error {
	var f [][]byte
	defer sink.EndSentence()
	return wordLines(name, r, func(_ int, line []byte) error {
		f = wordFields(f[:0], line)
		for _, w := range f {
			sink.Add(w)
		}
		sink.EndSentence()
		return nil
	})
}

// Splitter splits a line of running text into tokens, appending them
// to dst (clusters.Tokenize is one).
type Splitter func(dst []string, line string) []string

// ReadSplitWords reads running text: a sentence or paragraph per line,
// split into words by split. name names r in errors.
func ReadSplitWords(name string, r io.Reader, split Splitter, sink WordSink) error {
	var toks []string
	var buf []byte
	defer sink.EndSentence()
	return wordLines(name, r, func(_ int, line []byte) error {
		toks = split(toks[:0], string(line))
		for _, t := range toks {
			buf = append(buf[:0], t...)
			sink.Add(buf)
		}
		sink.EndSentence()
		return nil
	})
}

// ReadCoNLLWords reads column (1-based) of a CoNLL file: a word per line,
// fields separated by spaces or tabs, sentences ended by blank lines; a
// line whose first field is -DOCSTART- ends the sentence and is skipped.
// A word line with fewer fields is an *Error at its line.
func ReadCoNLLWords(name string, r io.Reader, column int, sink WordSink) error {
	if column < 1 {
		return fmt.Errorf("CoNLL column %d: columns count from 1", column)
	}
	var f [][]byte
	defer sink.EndSentence()
	return wordLines(name, r, func(n int, line []byte) error {
		f = wordFields(f[:0], line)
		switch {
		case len(f) == 0 || string(f[0]) == "-DOCSTART-":
			sink.EndSentence()
		case len(f) < column:
			return &Error{File: name, Line: n,
				Msg: fmt.Sprintf("the line has %d columns, not the %s asked for: %q", len(f), ordinal(column), clip(line))}
		default:
			sink.Add(f[column-1])
		}
		return nil
	})
}

// ReadCoNLLUWords reads the FORM (second) field of a CoNLL-U file's word
// lines: comments, multiword token ranges (1-2) and empty nodes (1.1) are
// skipped, blank lines end sentences. Any other line without a tab is an
// *Error at its line.
func ReadCoNLLUWords(name string, r io.Reader, sink WordSink) error {
	defer sink.EndSentence()
	return wordLines(name, r, func(n int, line []byte) error {
		switch {
		case len(bytes.TrimSpace(line)) == 0:
			sink.EndSentence()
			return nil
		case line[0] == '#':
			return nil
		}
		id, rest, ok := bytes.Cut(line, []byte("\t"))
		if !ok {
			return &Error{File: name, Line: n, Msg: fmt.Sprintf("not a CoNLL-U line (ID, FORM, … separated by tabs): %q", clip(line))}
		}
		if !bytes.ContainsAny(id, "-.") {
			form, _, _ := bytes.Cut(rest, []byte("\t"))
			sink.Add(form)
		}
		return nil
	})
}

// wordLines calls fn with each line of r (without its end), numbered from
// 1, a UTF-8 byte order mark at the start dropped. A read error is
// returned wrapped with name; a line too long is an *Error.
func wordLines(name string, r io.Reader, fn func(n int, line []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), maxWordsLine)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if err := fn(n, line); err != nil {
			return err
		}
	}
	switch err := sc.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		return &Error{File: name, Line: n + 1, Msg: "line longer than 64 MiB"}
	case err != nil:
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// wordFields appends the ASCII-white-space separated fields of line to dst.
func wordFields(dst [][]byte, line []byte) [][]byte {
	for i := 0; i < len(line); {
		for i < len(line) && isASCIISpace(line[i]) {
			i++
		}
		j := i
		for j < len(line) && !isASCIISpace(line[j]) {
			j++
		}
		if j > i {
			dst = append(dst, line[i:j])
		}
		i = j
	}
	return dst
}

func isASCIISpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}

// ordinal is "1st", "2nd", "3rd", "4th", ….
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// clip cuts a quoted line to 80 bytes.
func clip(b []byte) string {
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}
