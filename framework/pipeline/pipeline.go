// Package pipeline chains models: a model that reads a column besides the
// words (a chunker reading POS tags) gets it from an earlier model whose
// label column has that name (a POS tagger). The pipeline tags a batch of
// sentences given as words, one model after the other, each reading the
// words and the labels of the models before it; nothing is written in
// between.
package pipeline

import (
	"errors"
	"fmt"
	"slices"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/plural"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// ErrNoProducer is a column a model reads that no earlier model produces.
var ErrNoProducer = errors.New("no earlier model produces the column")

// Stage is one model of a pipeline.
type Stage struct {
	// Name says which model it is in errors (its file or shipped name).
	Name   string
	Tagger *tagger.Tagger
}

// Pipeline tags with its stages in order. It is not safe for concurrent
// use (nor are its taggers).
type Pipeline struct {
	stages []Stage
	inputs []tagger.TokenInput
	// feeds[k][j] is the stage whose labels fill stage k's column
	// inputs[k].Extra[j].
	feeds [][]int
	// Columns[k] is the name of stage k's label column.
	columns []string
}

// New checks that every column a stage reads besides the words is the
// label column of an earlier stage (the latest, when several are) and
// returns the pipeline. A stage whose format has no word column, or that
// reads a column no earlier stage produces, is an error naming it.
func New(stages []Stage) (*Pipeline, error) {
	if len(stages) == 0 {
		return nil, errors.New("a pipeline needs at least one model")
	}
	p := &Pipeline{stages: stages}
	for _, st := range stages {
		in, err := st.Tagger.TokenInput()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", st.Name, err)
		}
		feed := make([]int, len(in.Extra))
		for j, col := range in.ExtraNames {
			if feed[j] = lastIndex(p.columns, col); feed[j] < 0 {
				return nil, fmt.Errorf("%s reads the column %q: %w (%s); put a model that labels %q before it",
					st.Name, col, ErrNoProducer, p.produced(), col)
			}
		}
		p.inputs = append(p.inputs, in)
		p.feeds = append(p.feeds, feed)
		p.columns = append(p.columns, labelColumn(st.Tagger))
	}
	return p, nil
}

// labelColumn is the name of the column t labels.
func labelColumn(t *tagger.Tagger) string {
	if l := t.Format.LabelColumn(); l >= 0 {
		return t.Format.Columns()[l]
	}
	return t.Model.LabelColumn
}

// lastIndex is the index of the last name in names, -1 if none.
func lastIndex(names []string, name string) int {
	for i := len(names) - 1; i >= 0; i-- {
		if names[i] == name {
			return i
		}
	}
	return -1
}

// produced says which columns the stages so far label.
func (p *Pipeline) produced() string {
	if len(p.columns) == 0 {
		return "it is the first model"
	}
	return "the models before it label " + plural.Quoted(p.columns)
}

// Columns returns the label column of every stage, in order.
func (p *Pipeline) Columns() []string { return slices.Clone(p.columns) }

// Stages returns the stages.
func (p *Pipeline) Stages() []Stage { return slices.Clone(p.stages) }

// Tag tags sentences given as their words with every stage in order.
// labels[k][s][i] is stage k's label of token i of sentence s.
func (p *Pipeline) Tag(words [][]string) ([][][]string, error) {
	labels := make([][][]string, len(p.stages))
	for k, st := range p.stages {
		out, err := st.Tagger.Tag(p.Sentences(k, words, labels))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", st.Name, err)
		}
		labels[k] = out
	}
	return labels, nil
}

// Of returns sentence s's labels by each stage, from labels as Tag gives
// them: Of(labels, s)[k] is labels[k][s].
func Of(labels [][][]string, s int) [][]string {
	out := make([][]string, len(labels))
	for k := range labels {
		out[k] = labels[k][s]
	}
	return out
}

// Sentences returns the sentences of words for stage k, in its column
// layout: the words, and the columns it reads filled from labels, the
// earlier stages' labels as Tag gives them (labels[j] for j < k). It is
// for a caller that tags stage k itself (in detail, say).
func (p *Pipeline) Sentences(k int, words [][]string, labels [][][]string) []*corpus.Sentence {
	in := p.inputs[k]
	batch := make([]*corpus.Sentence, len(words))
	for s, w := range words {
		extra := make([][]string, len(in.Extra))
		for j, from := range p.feeds[k] {
			extra[j] = labels[from][s]
		}
		batch[s] = in.Sentence(w, extra)
	}
	return batch
}
