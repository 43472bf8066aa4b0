// read.go: the Counter's readers for plain text, CoNLL columns and
// CoNLL-U FORMs, and InputError for text they cannot read.

package word2vec

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxLine is the longest line the readers take (a sentence per line).
const maxLine = 64 << 20

// InputError is text a reader cannot take: a CoNLL line without the
// asked column, a line longer than 64 MiB. Name and Line (1-based) say
// where.
type InputError struct {
	Name string
	Line int
	Msg  string
}

func (e *InputError) Error() string { return fmt.Sprintf("%s:%d: %s", e.Name, e.Line, e.Msg) }

// lines calls fn with each line of r (without its end), numbered from 1,
// dropping a UTF-8 byte order mark at the start. A read error is
// returned as it is, wrapped with name; a line too long is an
// *InputError.
func lines(name string, r io.Reader, fn func(n int, line []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), maxLine)
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
		return &InputError{Name: name, Line: n + 1, Msg: "line longer than 64 MiB"}
	case err != nil:
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// isSpace is ASCII white space: tokens are split on it only, so a UTF-8
// sequence (a non-breaking space) stays inside its token.
func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}

// fields appends the white-space separated fields of line to dst.
func fields(dst [][]byte, line []byte) [][]byte {
	for i := 0; i < len(line); {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		j := i
		for j < len(line) && !isSpace(line[j]) {
			j++
		}
		if j > i {
			dst = append(dst, line[i:j])
		}
		i = j
	}
	return dst
}

// ReadText adds pre-tokenized text: a sentence per line, tokens separated
// by ASCII white space. name is the text's name in errors.
func (c *Counter) ReadText(name string, r io.Reader) error {
	var f [][]byte
	defer c.EndSentence()
	return lines(name, r, func(_ int, line []byte) error {
		f = fields(f[:0], line)
		for _, t := range f {
			c.Add(t)
		}
		c.EndSentence()
		return nil
	})
}

// ReadCoNLL adds column (1-based) of a CoNLL file: a token per line,
// fields separated by spaces or tabs, sentences ended by blank lines;
// a line whose first field is -DOCSTART- ends the sentence and is
// skipped. A token line with fewer fields is an *InputError.
func (c *Counter) ReadCoNLL(name string, r io.Reader, column int) error {
	if column < 1 {
		return fmt.Errorf("word2vec: CoNLL column %d: columns count from 1", column)
	}
	var f [][]byte
	defer c.EndSentence()
	return lines(name, r, func(n int, line []byte) error {
		f = fields(f[:0], line)
		switch {
		case len(f) == 0:
			c.EndSentence()
		case string(f[0]) == "-DOCSTART-":
			c.EndSentence()
		case len(f) < column:
			return &InputError{Name: name, Line: n, Msg: fmt.Sprintf("the line has %d columns, not the %s asked for: %q", len(f), ordinal(column), clip(line))}
		default:
			c.Add(f[column-1])
		}
		return nil
	})
}

// ReadCoNLLU adds the FORM (second) field of a CoNLL-U file's word lines:
// comment lines, multiword token ranges (1-2) and empty nodes (1.1) are
// skipped; blank lines end sentences. A line that is none of these and
// has no tab is an *InputError.
func (c *Counter) ReadCoNLLU(name string, r io.Reader) error {
	defer c.EndSentence()
	return lines(name, r, func(n int, line []byte) error {
		switch {
		case len(bytes.TrimSpace(line)) == 0:
			c.EndSentence()
			return nil
		case line[0] == '#':
			return nil
		}
		id, rest, ok := bytes.Cut(line, []byte("\t"))
		if !ok {
			return &InputError{Name: name, Line: n, Msg: fmt.Sprintf("not a CoNLL-U line (ID, FORM, … separated by tabs): %q", clip(line))}
		}
		if bytes.ContainsAny(id, "-.") {
			return nil
		}
		form, _, _ := bytes.Cut(rest, []byte("\t"))
		c.Add(form)
		return nil
	})
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
