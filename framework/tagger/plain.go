package tagger

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/plural"
)

// Input is the kind of text a tagger reads.
type Input string

const (
	// Corpus is the model's own corpus format (its columns, its layout).
	Corpus Input = "corpus"
	// Text is one sentence per line, tokens separated by white space. For
	// a model of the chars (segmentation) format it is raw text: every
	// character is a token, white space is dropped.
	Text Input = "text"
	// Tokens is one token per line, a blank line between sentences; for a
	// chars model, one character per line.
	Tokens Input = "tokens"
)

// ParseInput returns the Input named s.
func ParseInput(s string) (Input, error) {
	switch in := Input(s); in {
	case Corpus, Text, Tokens:
		return in, nil
	}
	return "", fmt.Errorf("unknown input %q (want corpus, text or tokens)", s)
}

// WordColumn returns the index of the column that holds the tokens
// themselves in the model's format (what plain text fills and what output
// shows as the token): the word column the model records (the one its run
// computed OOV figures on), else corpus.WordColumn's choice, as training
// makes it. It is -1 for crfsuite, whose rows are attributes, not words.
func (t *Tagger) WordColumn() int { return wordColumn(t.Model, t.Format) }

// wordColumn is WordColumn of model m read in format f.
func wordColumn(m *model.Model, f corpus.Format) int {
	if f.Name() == corpus.NameCRFsuite {
		return -1
	}
	if i := slices.Index(f.Columns(), m.WordColumn); i >= 0 && i != f.LabelColumn() {
		return i
	}
	return corpus.WordColumn(f.Name(), f.Columns(), f.LabelColumn())
}

// ColumnsError is a model that cannot tag plain text: its templates read
// columns besides the word column (a POS or chunk column that text does
// not have), or do not say what they read, or its format has no words.
type ColumnsError struct {
	Format     string   // the model's format, its columns named
	Word       string   // the word column, "" for crfsuite
	Columns    []string // the other columns the templates read
	Undeclared []string // templates that do not say which columns they read
}

func (e *ColumnsError) Error() string {
	switch {
	case e.Word == "":
		return fmt.Sprintf("the model reads %s: it has no word column, so it cannot tag plain text; tag a file in its format instead", e.Format)
	case len(e.Columns) > 0:
		return fmt.Sprintf("the model's templates read %s besides the word column %q, which plain text does not have; tag a file in the model's format (%s) instead",
			columnList(e.Columns), e.Word, e.Format)
	}
	return fmt.Sprintf("the templates %s of the model do not say which columns they read, so it cannot be told whether plain text is enough; tag a file in the model's format (%s) instead",
		plural.Quoted(e.Undeclared), e.Format)
}

// columnList renders columns as `the column "pos"` or `the columns "pos",
// "chunk"`.
func columnList(cols []string) string {
	return "the " + plural.Noun(len(cols), "column") + " " + plural.Quoted(cols)
}

// CheckPlain returns a *ColumnsError when the model cannot tag plain text:
// when its templates read any column but the word column (plugins say what
// they read when they are configured), or do not say what they read. It
// asks TokenInput which columns besides the word the model needs.
func (t *Tagger) CheckPlain() error {
	format := t.Format.Name() + ": " + strings.Join(t.Format.Columns(), " ")
	in, err := t.TokenInput()
	if err != nil {
		return &ColumnsError{Format: format}
	}
	if len(in.Extra) == 0 {
		return nil
	}
	// TokenInput counts every column as read when a template does not
	// say what it reads; the error names only the declared ones, and the
	// templates that declare nothing.
	read, undeclared := t.readColumns()
	ce := &ColumnsError{Format: format, Word: in.Columns[in.Word], Undeclared: undeclared}
	for _, c := range in.ExtraNames {
		if slices.Contains(read, c) {
			ce.Columns = append(ce.Columns, c)
		}
	}
	return ce
}

// NewReader returns a reader of r, named file in errors, for input of the
// given kind. Corpus input is read in the model's format, unlabelled lines
// allowed. Text and tokens input need a model that reads only the word
// column (CheckPlain's error otherwise); each token becomes a row in the
// model's column layout, the word column set and the others empty.
func (t *Tagger) NewReader(r io.Reader, file string, in Input) (corpus.Reader, error) {
	if in == Corpus {
		return plainHint{t.Format.NewReader(r, file, corpus.ReadOptions{LabelOptional: true})}, nil
	}
	if err := t.CheckPlain(); err != nil {
		return nil, err
	}
	width, word := len(t.Format.Columns()), t.WordColumn()
	switch {
	case t.Format.Name() == corpus.NameChars && in == Text:
		// Raw text: the chars format reads a line as characters.
		return t.Format.NewReader(r, file, corpus.ReadOptions{LabelOptional: true}), nil
	case t.Format.Name() == corpus.NameChars:
		return &oneCharReader{corpus.NewTokensReader(r, file, width, word), word}, nil
	case in == Text:
		return corpus.NewTextReader(r, file, width, word), nil
	}
	return corpus.NewTokensReader(r, file, width, word), nil
}

// plainHint adds a hint to the error of a line with one column where the
// format wants several: most likely plain text, which --input text reads.
type plainHint struct{ corpus.Reader }

func (r plainHint) Read() (*corpus.Sentence, error) {
	s, err := r.Reader.Read()
	if ce := (*corpus.Error)(nil); errors.As(err, &ce) && ce.Found == 1 {
		hinted := *ce
		hinted.Msg += " (plain text? use --input text)"
		return s, &hinted
	}
	return s, err
}

// Recycle hands s back to the wrapped reader if it recycles.
func (r plainHint) Recycle(s *corpus.Sentence) {
	if rc, ok := r.Reader.(corpus.Recycler); ok {
		rc.Recycle(s)
	}
}

// oneCharReader checks that every token is one character, as the tokens
// of a chars model are.
type oneCharReader struct {
	corpus.Reader
	word int
}

func (r *oneCharReader) Read() (*corpus.Sentence, error) {
	s, err := r.Reader.Read()
	if err != nil {
		return s, err
	}
	for i, row := range s.Tokens {
		if n := len([]rune(row[r.word])); n != 1 {
			return nil, &corpus.Error{File: s.File, Line: s.TokenLineNo[i],
				Msg: fmt.Sprintf("%q is %d characters; a segmentation (chars) model tags one character per line with --input tokens (--input text reads raw text)", row[r.word], n)}
		}
	}
	return s, nil
}
