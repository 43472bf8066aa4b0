package trellis

// This file holds raw text: tokenizers, and tagging text into the
// objects `trellis tag --input text --output json` prints.

import (
	"sync"

	"github.com/trellis-nlp/trellis/framework/annotate"
	"github.com/trellis-nlp/trellis/framework/tokenize"
)

// NewTokenizer returns the tokenizer called name, safe for concurrent
// use: "rules" (tokenize.Rules, the baseline), "lines" (a sentence per
// line, split at white space), "chars" (a token per character), or a
// tokenizer model, by file path or shipped name ("en-tokenizer",
// learned from UD English EWT).
func NewTokenizer(name string) (tokenize.Tokenizer, error) {
	switch name {
	case "rules":
		return tokenize.Rules{}, nil
	case "lines":
		return tokenize.Lines{}, nil
	case "chars":
		return tokenize.Characters{}, nil
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
	if kind == annotate.Words {
		tok = tokenize.Characters{}
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
