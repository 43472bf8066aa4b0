// Package annotate builds the object that trellis gives for a tagged
// sentence: its tokens with their labels, the spans of a span scheme, the
// words of a segmentation and, for raw text, every piece's character
// offsets into the input. `trellis tag --output json` prints one per
// sentence and `trellis serve` answers a text request with them, so both
// give the same shape.
package annotate

import (
	"strings"
	"unicode/utf8"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/tagger"
	"github.com/trellis-nlp/trellis/framework/tokenize"
)

// Sentence is a tagged sentence. The offsets are characters (code
// points) of the input, known for raw text only and absent otherwise.
type Sentence struct {
	Start  *int    `json:"start,omitempty"`
	End    *int    `json:"end,omitempty"`
	Text   string  `json:"text,omitempty"`
	Tokens []Token `json:"tokens"`
	// Labels are the tokens' labels again, as a list.
	Labels []string `json:"labels"`
	// Spans are the labelled spans of a span scheme (BIO, BIOES…).
	Spans []Span `json:"spans,omitempty"`
	// Words is the segmentation, for a model of the chars format.
	Words       []Token             `json:"words,omitempty"`
	Marginals   []float64           `json:"marginals,omitempty"`
	Probability *float64            `json:"probability,omitempty"`
	NBest       []tagger.RankedPath `json:"nbest,omitempty"`
}

// Token is a token, or a word of a segmentation.
type Token struct {
	Start *int   `json:"start,omitempty"`
	End   *int   `json:"end,omitempty"`
	Text  string `json:"text"`
	Label string `json:"label,omitempty"`
	// Tags are the labels of every model of a pipeline, by the name of
	// the column each labels (Label is the last one's).
	Tags map[string]string `json:"tags,omitempty"`
}

// Span is a labelled span; its tokens are [First, Last].
type Span struct {
	Start *int   `json:"start,omitempty"`
	End   *int   `json:"end,omitempty"`
	Label string `json:"label"`
	Text  string `json:"text"`
	First int    `json:"first"`
	Last  int    `json:"last"`
}

// Kind is what a model's labels make of a sentence beside the tokens.
type Kind int

const (
	// Tags are labels per token and nothing more (POS, scheme none).
	Tags Kind = iota
	// Spans are the chunks of a span scheme.
	Spans
	// Words are a segmentation of characters (the chars format).
	Words
)

// KindOf is the kind of a tagger's output.
func KindOf(t *tagger.Tagger) Kind {
	switch {
	case t.Format.Name() == corpus.NameChars:
		return Words
	case t.Scheme().HasSpans():
		return Spans
	}
	return Tags
}

// New returns the sentence of the tokens words labelled labels, in the
// scheme sch for Spans. text, when not nil, is the tokenization words
// came from, and gives the offsets (its Tokens are words).
func New(words, labels []string, kind Kind, sch scheme.Scheme, text *tokenize.Sentence) Sentence {
	s := Sentence{Tokens: make([]Token, len(words)), Labels: labels}
	if text != nil {
		s.Start, s.End, s.Text = &text.Start, &text.End, text.Text
	}
	for i, w := range words {
		s.Tokens[i] = Token{Text: w, Label: labels[i]}
		if text != nil {
			s.Tokens[i].Start, s.Tokens[i].End = &text.Tokens[i].Start, &text.Tokens[i].End
		}
	}
	switch kind {
	case Spans:
		s.Spans = spans(words, labels, sch, text)
	case Words:
		s.Words = segment(words, labels, text)
	}
	return s
}

// AddTags sets every token's Tags: tags[k][i] is token i's label by the
// model that labels the column cols[k] (a pipeline's models, in order).
func (s *Sentence) AddTags(cols []string, tags [][]string) {
	for i := range s.Tokens {
		s.Tokens[i].Tags = make(map[string]string, len(cols))
		for k, c := range cols {
			s.Tokens[i].Tags[c] = tags[k][i]
		}
	}
}

// spans returns the spans that labels give the tokens words.
func spans(words, labels []string, sch scheme.Scheme, text *tokenize.Sentence) []Span {
	var out []Span
	var rs []rune // text's characters, made when a span needs them
	for _, c := range scheme.Chunks(nil, labels, sch) {
		sp := Span{Label: c.Type, Text: strings.Join(words[c.Start:c.End], " "), First: c.Start, Last: c.End - 1}
		if text != nil {
			first, last := text.Tokens[c.Start], text.Tokens[c.End-1]
			sp.Start, sp.End = &first.Start, &last.End
			if rs == nil {
				rs = []rune(text.Text)
			}
			sp.Text = string(rs[first.Start-text.Start : last.End-text.Start]) // as it is in the input
		}
		out = append(out, sp)
	}
	return out
}

// segment returns a segmentation's words; text, when not nil, gives
// their offsets: a word starts where its first character does and ends
// where its last one does.
func segment(chars, labels []string, text *tokenize.Sentence) []Token {
	var out []Token
	k := 0 // the word's first character
	for _, w := range corpus.WordsFromLabels(chars, labels) {
		n := utf8.RuneCountInString(w)
		t := Token{Text: w}
		if text != nil {
			t.Start, t.End = &text.Tokens[k].Start, &text.Tokens[k+n-1].End
		}
		out = append(out, t)
		k += n
	}
	return out
}
