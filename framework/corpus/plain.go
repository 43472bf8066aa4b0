package corpus

import (
	"bytes"
	"io"
	"strings"
)

// Plain text for tagging, in any model's column layout. NewTextReader and
// NewTokensReader read text that has only words and give every token a
// row of width columns: the token in column word, "" in the others (the
// label column among them). A tagger uses them when a model's templates
// read only the word column (see tagger.Tagger.NewReader).

// NewTextReader reads one sentence per line, tokens separated by white
// space; blank lines are skipped. Sentence.Lines holds the line and every
// token's TokenLine is 0.
func NewTextReader(r io.Reader, file string, width, word int) Reader {
	return &plainReader{lines: newLineReader(r, file), width: width, word: word}
}

// NewTokensReader reads one token per line, a blank line between
// sentences. A token is its line without leading and trailing white space,
// so it may hold spaces ("New York"), but not a tab: a line with a tab is
// refused, since it is more likely a column file given by mistake.
func NewTokensReader(r io.Reader, file string, width, word int) Reader {
	return &plainReader{lines: newLineReader(r, file), width: width, word: word, perLine: true}
}

type plainReader struct {
	lines       *lineReader
	width, word int
	perLine     bool // one token per line
	err         error
}

var _ Reader = (*plainReader)(nil)

func (r *plainReader) Read() (*Sentence, error) {
	if r.err != nil {
		return nil, r.err
	}
	var s *Sentence
	for {
		line, err := r.lines.next()
		if err != nil {
			if err == io.EOF && s != nil {
				return s, nil // the last sentence needs no blank line
			}
			r.err = err
			return nil, err
		}
		// Blank is what holds no token: white space of any kind (a line
		// of U+3000 ideographic spaces too).
		if !r.perLine {
			if tokens := strings.Fields(string(line)); len(tokens) > 0 {
				return r.sentence(string(line), tokens), nil
			}
			continue
		}
		tok := strings.TrimSpace(string(line))
		switch {
		case tok == "" && s == nil:
			continue
		case tok == "":
			return s, nil
		case bytes.IndexByte(line, '\t') >= 0:
			r.err = r.lines.errorf(r.lines.lineNo, "a token line holds a tab: %s; this input has one token per line (is it a file with columns? then tag it in the model's own format)", quoteLine(line))
			return nil, r.err
		}
		if s == nil {
			s = &Sentence{File: r.lines.file, Line: r.lines.lineNo}
		}
		s.Lines = append(s.Lines, tok)
		s.TokenLine = append(s.TokenLine, len(s.Lines)-1)
		s.TokenLineNo = append(s.TokenLineNo, r.lines.lineNo)
		s.Tokens = append(s.Tokens, r.row(tok))
	}
}

// sentence is one line of text with its tokens.
func (r *plainReader) sentence(line string, tokens []string) *Sentence {
	s := &Sentence{
		Tokens:      make([][]string, len(tokens)),
		Lines:       []string{line},
		TokenLine:   make([]int, len(tokens)),
		TokenLineNo: make([]int, len(tokens)),
		File:        r.lines.file,
		Line:        r.lines.lineNo,
	}
	cells := make([]string, r.width*len(tokens))
	for i, tok := range tokens {
		row := cells[i*r.width : (i+1)*r.width : (i+1)*r.width]
		row[r.word] = tok
		s.Tokens[i] = row
		s.TokenLineNo[i] = r.lines.lineNo
	}
	return s
}

func (r *plainReader) row(tok string) []string {
	row := make([]string, r.width)
	row[r.word] = tok
	return row
}
