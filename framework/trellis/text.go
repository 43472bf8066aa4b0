package trellis

// This file holds raw text: tokenizers, and tagging text into the
// objects `trellis tag --input text --output json` prints.

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	"github.com/trellis-nlp/trellis/framework/annotate"
	"github.com/trellis-nlp/trellis/framework/pipeline"
	"github.com/trellis-nlp/trellis/framework/tokenize"
)

// NewTokenizer returns the tokenizer called name, safe for concurrent
// use: "rules" (tokenize.Rules, the baseline), "lines" (a sentence per
// line, split at white space), "chars" (a token per character), or a
// tokenizer model, by file path or shipped name ("en-tokenizer",
// learned from UD English EWT).
func NewTokenizer(name string) (tokenize.Tokenizer, error) {
	if tok, ok := tokenize.Builtin(name); ok {
		return tok, nil
	}
	m, err := Load(name)
	if err != nil {
		return nil, err
	}
	tok, err := tokenize.NewModel(m.tg)
	if err != nil {
		return nil, err
	}
	return &lockedTokenizer{tok: tok}, nil
}

// lockedTokenizer serializes a tokenizer that is not safe for concurrent
// use.
type lockedTokenizer struct {
	mu  sync.Mutex
	tok tokenize.Tokenizer
}

func (l *lockedTokenizer) Tokenize(text string) ([]tokenize.Sentence, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tok.Tokenize(text)
}

// TagText splits text into sentences with tok (a segmentation model reads
// characters, whatever tok is) and tags each: tokens with their labels
// and character offsets into text, and the spans of a span scheme or the
// words of a segmentation. The model must read only the words (Tag's
// rule).
func (m *Model) TagText(text string, tok tokenize.Tokenizer) ([]annotate.Sentence, error) {
	kind, sch := annotate.KindOf(m.tg), m.tg.Scheme()
	if fixed := tokenize.Fixed(m.tg); fixed != nil {
		tok = fixed
	}
	sents, err := tok.Tokenize(text)
	if err != nil {
		return nil, err
	}
	out := make([]annotate.Sentence, len(sents))
	for k := range sents {
		words := sents[k].Words()
		labels, err := m.Tag(words)
		if err != nil {
			return nil, err
		}
		out[k] = annotate.New(words, labels, kind, sch, &sents[k])
	}
	return out, nil
}

// Pipeline tags with several models in order, each reading the labels of
// the ones before it as the columns they are named after (a chunker
// reading a POS tagger's "pos"). Its methods are safe for concurrent use:
// a call holds every model's lock, taken in the order the models were
// loaded (Model.seq), so pipelines that share models never deadlock.
type Pipeline struct {
	models []*Model
	p      *pipeline.Pipeline
}

// NewPipeline checks that every column a model reads besides the words is
// labelled by an earlier one (pipeline.ErrNoProducer otherwise), and that
// no model is given twice. The models stay the caller's to close.
func NewPipeline(models ...*Model) (*Pipeline, error) {
	stages := make([]pipeline.Stage, len(models))
	for i, m := range models {
		if slices.Index(models, m) != i {
			return nil, fmt.Errorf("model %d is model %d again: a pipeline takes a model once", i+1, slices.Index(models, m)+1)
		}
		stages[i] = pipeline.Stage{Name: fmt.Sprintf("model %d (%s)", i+1, m.file.LabelColumn), Tagger: m.tg}
	}
	p, err := pipeline.New(stages)
	if err != nil {
		return nil, err
	}
	return &Pipeline{models: models, p: p}, nil
}

// Columns returns the column each model labels, in order (the keys of a
// token's Tags).
func (p *Pipeline) Columns() []string { return p.p.Columns() }

// Tag tags sentences given as their words with every model:
// labels[k][s][i] is model k's label of token i of sentence s.
func (p *Pipeline) Tag(words [][]string) ([][][]string, error) {
	unlock, err := p.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	return p.p.Tag(words)
}

// lock takes every model's lock, in the order the models were loaded
// (Model.seq), so pipelines that share models never deadlock; it returns
// what releases them, or ErrClosed when a model is closed.
func (p *Pipeline) lock() (func(), error) {
	byLoad := slices.SortedFunc(slices.Values(p.models), func(a, b *Model) int { return cmp.Compare(a.seq, b.seq) })
	var held []*Model
	unlock := func() {
		for _, m := range held {
			m.mu.Unlock()
		}
	}
	for _, m := range byLoad {
		if _, err := m.lock(); err != nil {
			unlock()
			return nil, err
		}
		held = append(held, m)
	}
	return unlock, nil
}

// TagText is Model.TagText through every model: each token's Label is
// the last model's, its Tags every model's by column, and the spans or
// words are the last model's.
func (p *Pipeline) TagText(text string, tok tokenize.Tokenizer) ([]annotate.Sentence, error) {
	last := p.models[len(p.models)-1].tg
	kind, sch := annotate.KindOf(last), last.Scheme()
	if fixed := tokenize.Fixed(p.models[0].tg); fixed != nil {
		tok = fixed
	}
	sents, err := tok.Tokenize(text)
	if err != nil {
		return nil, err
	}
	words := make([][]string, len(sents))
	for k := range sents {
		words[k] = sents[k].Words()
	}
	labels, err := p.Tag(words)
	if err != nil {
		return nil, err
	}
	cols := p.p.Columns()
	out := make([]annotate.Sentence, len(sents))
	for k := range sents {
		out[k] = annotate.New(words[k], labels[len(labels)-1][k], kind, sch, &sents[k])
		out[k].AddTags(cols, pipeline.Of(labels, k))
	}
	return out, nil
}
