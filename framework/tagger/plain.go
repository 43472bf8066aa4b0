package tagger

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/trellis-nlp/trellis/framework/corpus"
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
// shows as the token): the word column the model records (the one a run
// computed OOV figures on), else "form" in conllu, the first column that
// is not the label in conll, "word" in slash, "char" in chars. It is -1
// for crfsuite, whose rows are attributes, not words.
func (t *Tagger) WordColumn() int {
	if t.Format.Name() == corpus.NameCRFsuite {
		return -1
	}
	if i := slices.Index(t.Format.Columns(), t.Model.WordColumn); i >= 0 && i != t.Format.LabelColumn() {
		return i
	}
	if t.Format.Name() == corpus.NameCoNLLU {
		return 1
	}
	if t.Format.LabelColumn() == 0 && len(t.Format.Columns()) > 1 {
		return 1
	}
	return 0
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
		quoted(e.Undeclared), e.Format)
}

// columnList renders columns as `the column "pos"` or `the columns "pos"
// and "chunk"`.
func columnList(cols []string) string {
	if len(cols) == 1 {
		return fmt.Sprintf("the column %q", cols[0])
	}
	return "the columns " + quoted(cols)
}

// quoted renders names as `"a", "b" and "c"`.
func quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// CheckPlain returns a *ColumnsError when the model cannot tag plain text:
// when its templates read any column but the word column (plugins say what
// they read when they are configured), or do not say what they read.
func (t *Tagger) CheckPlain() error {
	format := t.Format.Name() + ": " + strings.Join(t.Format.Columns(), " ")
	word := t.WordColumn()
	if word < 0 {
		return &ColumnsError{Format: format}
	}
	wordName := t.Format.Columns()[word]
	read, undeclared := t.mapper.ReadColumns()
	var other []string
	for _, c := range read {
		if c != wordName {
			other = append(other, c)
		}
	}
	if len(other) > 0 || len(undeclared) > 0 {
		return &ColumnsError{Format: format, Word: wordName, Columns: other, Undeclared: undeclared}
	}
	return nil
}

// NewReader returns a reader of r, named file in errors, for input of the
// given kind. Corpus input is read in the model's format, unlabelled lines
// allowed. Text and tokens input need a model that reads only the word
// column (CheckPlain's error otherwise); each token becomes a row in the
// model's column layout, the word column set and the others empty.
func (t *Tagger) NewReader(r io.Reader, file string, in Input) (corpus.Reader, error) {
	if in == Corpus {
		return t.Format.NewReader(r, file, corpus.ReadOptions{LabelOptional: true}), nil
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
