// Package tokenize splits raw text into sentences and tokens that keep
// their character offsets into the text.
//
// A Tokenizer is one of:
//
//   - Model: a model of the rawtext format (a CRF over characters,
//     trained by a spec such as specs/ud-ewt-tokenizer.hcl), which learns
//     tokens and sentence ends from treebank text;
//   - Rules: a regular expression for tokens and a split after . ! ?
//     before white space, the baseline the learned model is measured
//     against;
//   - Lines: a sentence per line, tokens split at white space (text that
//     is tokenized already);
//   - Characters: a sentence per line, every character but white space a
//     token (the input of a word segmentation model).
//
// Offsets count characters (Unicode code points, as Python's str
// indexes), not bytes: Token.Start and Token.End delimit text
// [Start, End).
package tokenize

import (
	"strings"
	"unicode/utf8"

	"github.com/trellis-nlp/trellis/framework/corpus"
)

// Token is a token of a text: the characters [Start, End) of it.
type Token struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Text  string `json:"text"`
}

// Sentence is a sentence of a text: the characters [Start, End) of it,
// from its first token's start to its last token's end, and its tokens.
type Sentence struct {
	Start  int     `json:"start"`
	End    int     `json:"end"`
	Text   string  `json:"text"`
	Tokens []Token `json:"tokens"`
}

// Words returns the text of the sentence's tokens.
func (s *Sentence) Words() []string {
	words := make([]string, len(s.Tokens))
	for i, t := range s.Tokens {
		words[i] = t.Text
	}
	return words
}

// Tokenizer splits raw text into sentences. Offsets are characters of
// text. A Tokenizer is not safe for concurrent use unless it says so.
type Tokenizer interface {
	Tokenize(text string) ([]Sentence, error)
}

var (
	_ Tokenizer = (*Model)(nil)
	_ Tokenizer = Rules{}
	_ Tokenizer = Lines{}
	_ Tokenizer = Characters{}
)

// runeIndex maps rune offsets to byte offsets of one text, walking
// forward: offsets asked for must not decrease.
type runeIndex struct {
	text       string
	rune, byte int
}

// at returns the byte offset of rune offset r.
func (x *runeIndex) at(r int) int {
	for x.rune < r && x.byte < len(x.text) {
		_, n := utf8.DecodeRuneInString(x.text[x.byte:])
		x.byte += n
		x.rune++
	}
	return x.byte
}

// slice returns the runes [start, end) of the text; start must not be
// less than the last offset asked for.
func (x *runeIndex) slice(start, end int) string {
	b := x.at(start)
	return x.text[b:x.at(end)]
}

// Lines reads a sentence per line, tokens separated by white space: text
// that is tokenized already. Blank lines hold no sentence.
type Lines struct{}

// Tokenize splits text into lines and the lines at white space.
func (Lines) Tokenize(text string) ([]Sentence, error) {
	return splitLines(text, func(line string, base int, s *Sentence) {
		pos, start, startB := base, -1, 0
		for b, r := range line {
			switch {
			case corpus.IsTextSpace(r) && start >= 0:
				s.Tokens = append(s.Tokens, Token{start, pos, line[startB:b]})
				start = -1
			case !corpus.IsTextSpace(r) && start < 0:
				start, startB = pos, b
			}
			pos++
		}
		if start >= 0 {
			s.Tokens = append(s.Tokens, Token{start, pos, line[startB:]})
		}
	}), nil
}

// Characters reads a sentence per line, every character but white space
// a token: the input of a word segmentation (chars) model.
type Characters struct{}

// Tokenize splits text into lines and the lines into characters.
func (Characters) Tokenize(text string) ([]Sentence, error) {
	return splitLines(text, func(line string, base int, s *Sentence) {
		pos := base
		for b, r := range line {
			if !corpus.IsTextSpace(r) {
				s.Tokens = append(s.Tokens, Token{pos, pos + 1, line[b : b+utf8.RuneLen(r)]})
			}
			pos++
		}
	}), nil
}

// splitLines calls fill for every line of text (without its "\n" or
// "\r\n"), with the character offset of its start, and keeps the
// sentences that got tokens.
func splitLines(text string, fill func(line string, base int, s *Sentence)) []Sentence {
	var sents []Sentence
	base := 0
	for len(text) > 0 {
		line, rest, _ := strings.Cut(text, "\n")
		n := utf8.RuneCountInString(line)
		s := Sentence{}
		fill(strings.TrimSuffix(line, "\r"), base, &s)
		if len(s.Tokens) > 0 {
			s.Start, s.End = s.Tokens[0].Start, s.Tokens[len(s.Tokens)-1].End
			x := runeIndex{text: line}
			s.Text = x.slice(s.Start-base, s.End-base)
			sents = append(sents, s)
		}
		base += n + 1
		text = rest
	}
	return sents
}

// Builtin returns the tokenizer that is not a model called name: "rules"
// (Rules), "lines" (Lines) or "chars" (Characters); false for any other
// name, which callers read as a tokenizer model's file or shipped name.
func Builtin(name string) (Tokenizer, bool) {
	switch name {
	case "rules":
		return Rules{}, true
	case "lines":
		return Lines{}, true
	case "chars":
		return Characters{}, true
	}
	return nil, false
}

// runeCount is the characters of s.
func runeCount(s string) int { return utf8.RuneCountInString(s) }

// startsSpace reports whether s begins with white space.
func startsSpace(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return corpus.IsTextSpace(r)
}
