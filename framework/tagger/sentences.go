package tagger

import (
	"fmt"
	"slices"

	"github.com/trellis-nlp/trellis/framework/corpus"
)

// TokenInput is what a model reads of a sentence handed over as tokens
// rather than as a file in the model's format (a service's request): the
// word column, which the tokens fill, and the other columns its templates
// read, which the caller must supply.
type TokenInput struct {
	// Columns are the format's columns, in corpus.Sentence.Tokens order.
	Columns []string
	// Word indexes the word column; Label the label column (-1 if none).
	Word, Label int
	// Extra indexes the other columns the model's templates read, in
	// column order; ExtraNames are their names.
	Extra      []int
	ExtraNames []string
}

// TokenInput says which columns t's templates read besides the word
// column, from what their extractors declare (feature.ColumnReader, as
// CheckPlain reads it). A template that declares nothing counts every
// column as read: the caller then asks for all of them rather than tag
// with a column silently empty. A format without a word column (crfsuite)
// cannot be given tokens.
func (t *Tagger) TokenInput() (TokenInput, error) {
	in := TokenInput{Columns: t.Format.Columns(), Label: t.Format.LabelColumn(), Word: t.WordColumn()}
	if in.Word < 0 {
		return TokenInput{}, fmt.Errorf("the model reads %s, which has no word column: it cannot be given tokens", t.Format.Name())
	}
	read, undeclared := t.readColumns()
	for i, c := range in.Columns {
		if i == in.Word || i == in.Label {
			continue
		}
		if len(undeclared) > 0 || slices.Contains(read, c) {
			in.Extra = append(in.Extra, i)
			in.ExtraNames = append(in.ExtraNames, c)
		}
	}
	return in, nil
}

// Sentence builds the sentence of words for a tagger of this input:
// extra[j] holds, token by token, the values of column Extra[j] (each as
// long as words); every other column reads "". The caller checks the
// lengths. All the sentence's values share one backing array.
func (in TokenInput) Sentence(words []string, extra [][]string) *corpus.Sentence {
	width := len(in.Columns)
	cells := make([]string, len(words)*width)
	s := &corpus.Sentence{Tokens: make([][]string, len(words))}
	for i, w := range words {
		row := cells[i*width : (i+1)*width : (i+1)*width]
		row[in.Word] = w
		for j, c := range in.Extra {
			row[c] = extra[j][i]
		}
		s.Tokens[i] = row
	}
	return s
}
