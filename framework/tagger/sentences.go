package tagger

import (
	"errors"
	"slices"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/model"
)

// Input is what a model reads of a sentence handed over as tokens rather
// than as a file in the model's format (a service's request): the word
// column, which the tokens fill, and the other columns its templates read,
// which the caller must supply.
type Input struct {
	// Columns are the format's columns, in corpus.Sentence.Tokens order.
	Columns []string
	// Word indexes the word column; Label the label column (-1 if none).
	Word, Label int
	// Extra indexes the other columns the model's templates read, in
	// column order; ExtraNames are their names.
	Extra      []int
	ExtraNames []string
}

// hiddenPrefix makes a column name that no template names: the probe of
// ModelInput hides a column from the templates by renaming it.
const hiddenPrefix = "\x00hidden:"

// ModelInput finds which columns m's templates read besides the word
// column. Every template looks its columns up by name when it is compiled
// (feature.Columns.Index, plugins included), so ModelInput compiles the
// model's templates with every other column hidden and gives back, one at
// a time, the columns whose absence they report. reg must be a registry
// the model's templates instantiate from; a plugin template starts its
// plugin, so give it a plugin host to close afterwards. A failure that
// names no column (a plugin refusing the hidden columns on its own terms)
// counts every column as read: the caller then asks for all of them
// rather than tag with a column silently empty.
func ModelInput(m *model.Model, reg *feature.Registry) (Input, error) {
	f, err := corpus.New(m.Format)
	if err != nil {
		return Input{}, err
	}
	in := Input{Columns: f.Columns(), Label: f.LabelColumn()}
	in.Word = wordColumn(in.Columns, in.Label, m.WordColumn)
	hidden := map[int]bool{}
	for i := range in.Columns {
		if i != in.Word && i != in.Label {
			hidden[i] = true
		}
	}
	for len(hidden) > 0 {
		names := slices.Clone(in.Columns)
		for i := range hidden {
			names[i] = hiddenPrefix + names[i]
		}
		mp, err := m.Mapper(reg, feature.Columns{Names: names, Label: in.Label})
		if err == nil {
			mp.Close()
			break
		}
		var ce *feature.ColumnError
		i := -1
		if errors.As(err, &ce) && !ce.Label {
			i = slices.Index(in.Columns, ce.Column)
		}
		if i < 0 || !hidden[i] {
			// Not a hidden column: every column is taken as read.
			clear(hidden)
			break
		}
		delete(hidden, i)
	}
	for i := range in.Columns {
		if i != in.Word && i != in.Label && !hidden[i] {
			in.Extra = append(in.Extra, i)
			in.ExtraNames = append(in.ExtraNames, in.Columns[i])
		}
	}
	return in, nil
}

// wordColumn is the model's word column: the one the model file names,
// else (older models) the first of "form", "word" or "char", else the
// first column that is not the label, as the run that trained it chose.
func wordColumn(cols []string, label int, name string) int {
	if i := slices.Index(cols, name); name != "" && i >= 0 && i != label {
		return i
	}
	for i, c := range cols {
		if (c == "form" || c == "word" || c == "char") && i != label {
			return i
		}
	}
	for i := range cols {
		if i != label {
			return i
		}
	}
	return 0
}

// Sentence builds the sentence of words for a tagger of this input:
// extra[j] holds, token by token, the values of column Extra[j] (each as
// long as words); every other column reads "". The caller checks the
// lengths. All the sentence's values share one backing array.
func (in Input) Sentence(words []string, extra [][]string) *corpus.Sentence {
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
