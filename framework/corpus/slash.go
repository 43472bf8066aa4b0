package corpus

import (
	"bufio"
	"io"
	"strings"
)

var slashColumns = []string{"word", "tag"}

// slashFormat is one sentence per line of "word/TAG" tokens (the Brown /
// NLTK tagged-text layout).
type slashFormat struct {
	label int
}

var _ Format = (*slashFormat)(nil)

func (f *slashFormat) Name() string      { return NameSlash }
func (f *slashFormat) Columns() []string { return append([]string(nil), slashColumns...) }
func (f *slashFormat) LabelColumn() int  { return f.label }

func (f *slashFormat) NewReader(r io.Reader, file string, opts ReadOptions) Reader {
	return &slashReader{lines: newLineReader(r, file), labelOptional: opts.LabelOptional}
}

func (f *slashFormat) NewWriter(w io.Writer) Writer {
	return &slashWriter{bw: bufio.NewWriterSize(w, writeBufferSize)}
}

type slashReader struct {
	lines         *lineReader
	labelOptional bool
	err           error
}

var _ Reader = (*slashReader)(nil)

func (r *slashReader) Read() (*Sentence, error) {
	if r.err != nil {
		return nil, r.err
	}
	for {
		line, err := r.lines.next()
		if err != nil {
			r.err = err
			return nil, err
		}
		if isBlank(line) {
			continue
		}
		s, err := r.parse(string(line))
		if err != nil {
			r.err = err
			return nil, err
		}
		return s, nil
	}
}

func (r *slashReader) parse(text string) (*Sentence, error) {
	lineNo := r.lines.lineNo
	n := countFields(text)
	s := &Sentence{
		Tokens: make([][]string, n),
		Lines:  []string{text},
		File:   r.lines.file,
		Line:   lineNo,
	}
	cells := make([]string, 2*n)
	ints := make([]int, 2*n)
	s.TokenLine, s.TokenLineNo = ints[:n:n], ints[n:] // TokenLine stays all 0: the one line
	for k, i := 0, 0; k < n; k++ {
		start, end := nextField(text, i)
		i = end
		tok := text[start:end]
		row := cells[2*k : 2*k+2 : 2*k+2]
		cut := lastSlash(tok)
		if cut <= 0 || cut == len(tok)-1 {
			if !r.labelOptional {
				msg := "token %q is not word/TAG"
				switch {
				case cut == 0:
					msg = "token %q has an empty word"
				case cut > 0:
					msg = "token %q has an empty tag"
				}
				return nil, r.lines.errorf(lineNo, msg, tok)
			}
			row[0] = unescapeSlash(tok)
		} else {
			row[0], row[1] = unescapeSlash(tok[:cut]), unescapeSlash(tok[cut+1:])
		}
		s.Tokens[k] = row
		s.TokenLineNo[k] = lineNo
	}
	return s, nil
}

// lastSlash returns the index of the last "/" in tok that is not escaped
// as "\/", or -1.
func lastSlash(tok string) int {
	for i := len(tok) - 1; i >= 0; i-- {
		if tok[i] == '/' && (i == 0 || tok[i-1] != '\\') {
			return i
		}
	}
	return -1
}

func unescapeSlash(s string) string {
	if !strings.Contains(s, `\/`) {
		return s // the common case allocates nothing
	}
	return strings.ReplaceAll(s, `\/`, "/")
}

func escapeSlash(s string) string {
	if !strings.Contains(s, "/") {
		return s
	}
	return strings.ReplaceAll(s, "/", `\/`)
}

// slashWriter writes each token's original text followed by "/" and the
// predicted label, so the gold tag (if any) stays next to the prediction.
// (A token whose text ends in a backslash cannot be read back as written:
// the format has no way to escape the backslash itself.)
type slashWriter struct {
	bw *bufio.Writer
}

var _ Writer = (*slashWriter)(nil)

func (w *slashWriter) Write(s *Sentence, predicted []string) error {
	if err := checkPredicted(s, predicted); err != nil {
		return err
	}
	raw := ""
	if len(s.Lines) == 1 && countFields(s.Lines[0]) == len(s.Tokens) {
		raw = s.Lines[0]
	}
	for k, i := 0, 0; k < len(s.Tokens); k++ {
		if k > 0 {
			w.bw.WriteByte(' ')
		}
		if raw != "" {
			start, end := nextField(raw, i)
			i = end
			w.bw.WriteString(raw[start:end])
		} else {
			// A sentence built in code rather than read: rebuild word/TAG.
			row := s.Tokens[k]
			if len(row) > 0 {
				w.bw.WriteString(escapeSlash(row[0]))
			}
			if len(row) > 1 && row[1] != "" {
				w.bw.WriteByte('/')
				w.bw.WriteString(escapeSlash(row[1]))
			}
		}
		w.bw.WriteByte('/')
		w.bw.WriteString(predicted[k])
	}
	return w.bw.WriteByte('\n')
}

func (w *slashWriter) Flush() error { return w.bw.Flush() }

// countFields counts the whitespace-separated fields of s.
func countFields(s string) int {
	n := 0
	for i := 0; ; n++ {
		start, end := nextField(s, i)
		if start == len(s) {
			return n
		}
		i = end
	}
}
