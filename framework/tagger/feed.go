// Feeds: a model run on sentences of another column layout (a model
// stage of a second-stage model, whose format is not the second stage's).

package tagger

import (
	"fmt"
	"slices"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/plural"
)

// Layout is a corpus's column layout: its column names, word column and
// label column (-1 for none).
type Layout struct {
	Columns     []string
	Word, Label int
}

// Feed tags, with a model of its own format, sentences in another layout:
// each sentence becomes one in the model's format, its word column from
// the layout's word column and every other column the model reads from
// the layout's column of the same name.
type Feed struct {
	t  *Tagger
	in TokenInput
	// from[j] is the layout's column that fills the model's in.Extra[j];
	// word is the layout's word column.
	from []int
	word int
}

// NewFeed checks that t can be fed from sentences of layout l and returns
// the feed: t's format has words and is not characters (a segmentation
// model or tokenizer labels characters, not l's tokens), l has a word column, and every
// column t reads besides its word is one of l's, not its label column.
func NewFeed(t *Tagger, l Layout) (*Feed, error) {
	if name := t.Format.Name(); name == corpus.NameChars || name == corpus.NameRawtext {
		return nil, fmt.Errorf("the model reads characters (format %s): it labels characters, not tokens", name)
	}
	if len(t.Model.StageModels) > 0 {
		return nil, fmt.Errorf("the model is itself a second stage (its stage column %q); two stages are supported", t.Model.Stages[0].Column)
	}
	in, err := t.TokenInput()
	if err != nil {
		return nil, err
	}
	if l.Word < 0 || l.Word >= len(l.Columns) {
		return nil, fmt.Errorf("the corpus has no word column to give the model")
	}
	f := &Feed{t: t, in: in, word: l.Word}
	var missing []string
	for _, c := range in.ExtraNames {
		i := slices.Index(l.Columns, c)
		if i < 0 || i == l.Label {
			missing = append(missing, c)
		}
		f.from = append(f.from, i)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("the model reads %s besides its word column %q, which the corpus (columns %s, label %s) cannot give it",
			columnList(missing), in.Columns[in.Word], plural.Quoted(l.Columns), labelName(l))
	}
	return f, nil
}

// labelName is l's label column's name, or "none".
func labelName(l Layout) string {
	if l.Label < 0 || l.Label >= len(l.Columns) {
		return "none"
	}
	return fmt.Sprintf("%q", l.Columns[l.Label])
}

// Tag tags sents, given in the feed's layout, with its model.
func (f *Feed) Tag(sents []*corpus.Sentence) ([][]string, error) {
	return f.t.Tag(f.sentences(sents))
}

// Columns are the names of the layout's columns the feed reads: its word
// column and those it fills the model's other columns from.
func (f *Feed) Columns(l Layout) []string {
	out := []string{l.Columns[f.word]}
	for _, i := range f.from {
		out = append(out, l.Columns[i])
	}
	return out
}

// with returns the feed run by t (a replica of f's tagger).
func (f *Feed) with(t *Tagger) *Feed {
	g := *f
	g.t = t
	return &g
}

// sentences returns sents in the model's format: new rows, the words and
// the columns read copied, the document and position kept (so document
// templates and batching see the same documents).
func (f *Feed) sentences(sents []*corpus.Sentence) []*corpus.Sentence {
	out := make([]*corpus.Sentence, len(sents))
	var words []string
	extra := make([][]string, len(f.from))
	for k, s := range sents {
		words = words[:0]
		for j := range extra {
			extra[j] = extra[j][:0]
		}
		for _, tok := range s.Tokens {
			words = append(words, tok[f.word])
			for j, c := range f.from {
				extra[j] = append(extra[j], tok[c])
			}
		}
		fs := f.in.Sentence(words, extra)
		fs.File, fs.Line, fs.TokenLineNo = s.File, s.Line, s.TokenLineNo
		fs.DocStart, fs.DocLine, fs.Document = s.DocStart, s.DocLine, s.Document
		out[k] = fs
	}
	return out
}
