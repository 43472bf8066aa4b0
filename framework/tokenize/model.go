package tokenize

// This file holds Model, the learned tokenizer: a tagger over the
// characters of raw text (the rawtext format).

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// ErrNotTokenizer is a model that is not of the rawtext format, so it
// cannot tokenize.
var ErrNotTokenizer = errors.New("not a tokenizer model")

// MaxParagraph bounds the characters tagged as one sequence. Text is
// tagged a paragraph at a time (paragraphs end at blank lines, and a
// sentence ends with its paragraph); a paragraph longer than this is cut
// at the last line break, else the last white space, before the bound, so
// that memory stays bounded on text without blank lines. A cut ends a
// sentence, so it costs at most one false sentence end per MaxParagraph
// characters.
const MaxParagraph = 1 << 15

// Model tokenizes with a tagger of a rawtext model. It is not safe for
// concurrent use (nor is its tagger); give each goroutine its own, over
// tagger.Replica.
type Model struct {
	t     *tagger.Tagger
	width int // the format's columns
	// batch, rows and cells are Tokenize's buffers, reused: every
	// paragraph's rows in one backing array.
	batch []*corpus.Sentence
	rows  [][]string
	cells []string
}

// NewModel returns the tokenizer of t, whose model must be of the
// rawtext format (ErrNotTokenizer otherwise). t stays the caller's to
// close.
func NewModel(t *tagger.Tagger) (*Model, error) {
	if name := t.Format.Name(); name != corpus.NameRawtext {
		return nil, fmt.Errorf("%w: the model reads the %s format, and a tokenizer is a model of the %s format (as specs/ud-ewt-tokenizer.hcl trains)",
			ErrNotTokenizer, name, corpus.NameRawtext)
	}
	return &Model{t: t, width: len(t.Format.Columns())}, nil
}

// Fixed returns the tokenizer that model t fixes, whatever tokenizer a
// caller asks for: Characters for a word segmentation model (the chars
// format), whose tokens are characters; nil for any other model. Every
// reader of raw text (tag, serve, the Go API, pipelines) asks it.
func Fixed(t *tagger.Tagger) Tokenizer {
	if t.Format.Name() == corpus.NameChars {
		return Characters{}
	}
	return nil
}

// paragraph is a piece of the text tagged as one sequence: text starts
// at character base of the whole.
type paragraph struct {
	text string
	base int
}

// Tokenize tags text a paragraph at a time and reads tokens and
// sentence ends from the labels.
func (m *Model) Tokenize(text string) ([]Sentence, error) {
	paras := paragraphs(text)
	total := 0
	for _, p := range paras {
		total += utf8.RuneCountInString(p.text)
	}
	if cap(m.rows) < total {
		m.rows, m.cells = make([][]string, total), make([]string, total*m.width)
	}
	m.batch = m.batch[:0]
	r := 0
	for _, p := range paras {
		n := utf8.RuneCountInString(p.text)
		rows, _ := corpus.TextRows(p.text, m.width, m.rows[r:r+n:r+n], m.cells[r*m.width:(r+n)*m.width:(r+n)*m.width])
		m.batch = append(m.batch, &corpus.Sentence{Tokens: rows})
		r += n
	}
	labels, err := m.t.Tag(m.batch)
	if err != nil {
		return nil, err
	}
	var sents []Sentence
	for k, p := range paras {
		sents = appendSentences(sents, p, labels[k])
	}
	return sents, nil
}

// appendSentences appends the sentences that labels give p.
func appendSentences(sents []Sentence, p paragraph, labels []string) []Sentence {
	tokens, spans := corpus.TextSpans(labels)
	x, text := runeIndex{text: p.text}, runeIndex{text: p.text}
	k := 0
	for _, sp := range spans {
		s := Sentence{Start: p.base + sp.Start, End: p.base + sp.End, Text: text.slice(sp.Start, sp.End)}
		for ; k < len(tokens) && tokens[k].End <= sp.End; k++ {
			t := tokens[k]
			s.Tokens = append(s.Tokens, Token{p.base + t.Start, p.base + t.End, x.slice(t.Start, t.End)})
		}
		sents = append(sents, s)
	}
	return sents
}

// paragraphs cuts text at blank lines, and where a paragraph would be
// longer than MaxParagraph characters.
func paragraphs(text string) []paragraph {
	var paras []paragraph
	base := 0
	for len(text) > 0 {
		end, next := paragraphEnd(text)
		if p := text[:end]; strings.TrimFunc(p, corpus.IsTextSpace) != "" {
			paras = append(paras, paragraph{p, base})
		}
		base += utf8.RuneCountInString(text[:next])
		text = text[next:]
	}
	return paras
}

// paragraphEnd returns the byte offset where text's first paragraph
// ends and where the next one starts.
func paragraphEnd(text string) (end, next int) {
	runes, lastBreak, lastSpace := 0, -1, -1
	for b, r := range text {
		if runes == MaxParagraph {
			switch {
			case lastBreak > 0:
				return lastBreak, lastBreak
			case lastSpace > 0:
				return lastSpace, lastSpace
			}
			return b, b
		}
		runes++
		if r != '\n' {
			if corpus.IsTextSpace(r) {
				lastSpace = b
			}
			continue
		}
		lastBreak = b
		// A blank line: the next line holds white space only.
		rest := text[b+1:]
		line, _, found := strings.Cut(rest, "\n")
		if found && strings.TrimFunc(line, corpus.IsTextSpace) == "" {
			return b, b + 1 + len(line) + 1
		}
	}
	return len(text), len(text)
}
