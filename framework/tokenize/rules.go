package tokenize

// This file holds Rules, the rule-based baseline.

import (
	"regexp"
	"strings"
)

// rulesToken is a run of letters, marks, digits and underscores, or any
// other character but white space alone: the word/punctuation split of
// NLTK's wordpunct_tokenize, in Unicode classes.
var rulesToken = regexp.MustCompile(`[\p{L}\p{M}\p{N}_]+|[^\p{L}\p{M}\p{N}_\s]`)

// Rules tokenizes with a regular expression (rulesToken), then splits the
// English clitics off as treebanks do ("didn't" is "did" "n't", "it's" is
// "it" "'s") and joins numbers ("3.5", "1,000"); it ends a sentence after
// a token ".", "!" or "?" that white space or the end of the text
// follows. It is the baseline a learned tokenizer is measured against,
// and safe for concurrent use.
type Rules struct{}

// Tokenize finds the tokens and the sentence ends.
func (Rules) Tokenize(text string) ([]Sentence, error) {
	var sents []Sentence
	var cur Sentence
	pos, last := 0, 0 // pos: the characters before byte last
	for _, loc := range refine(text, rulesToken.FindAllStringIndex(text, -1)) {
		pos += runeCount(text[last:loc[0]])
		n := runeCount(text[loc[0]:loc[1]])
		cur.Tokens = append(cur.Tokens, Token{pos, pos + n, text[loc[0]:loc[1]]})
		pos += n
		last = loc[1]
		if end := text[loc[0]:loc[1]]; (end == "." || end == "!" || end == "?") && (last == len(text) || startsSpace(text[last:])) {
			sents = appendSentence(sents, &cur)
		}
	}
	sents = appendSentence(sents, &cur)
	x := runeIndex{text: text}
	for i := range sents {
		sents[i].Text = x.slice(sents[i].Start, sents[i].End)
	}
	return sents, nil
}

// appendSentence appends cur, when it has tokens, and empties it.
func appendSentence(sents []Sentence, cur *Sentence) []Sentence {
	if len(cur.Tokens) == 0 {
		return sents
	}
	cur.Start, cur.End = cur.Tokens[0].Start, cur.Tokens[len(cur.Tokens)-1].End
	sents = append(sents, *cur)
	*cur = Sentence{}
	return sents
}

// clitics are what follows an apostrophe as a token of its own.
var clitics = map[string]bool{"s": true, "re": true, "ve": true, "ll": true, "d": true, "m": true}

// refine splits "n't" off the word before it, joins an apostrophe with
// the clitic after it, and joins digits around "." or ",": locs are byte
// spans of text, and so is the result.
func refine(text string, locs [][]int) [][]int {
	tok := func(i int) string {
		if i >= len(locs) {
			return ""
		}
		return text[locs[i][0]:locs[i][1]]
	}
	touch := func(i int) bool { return i+1 < len(locs) && locs[i][1] == locs[i+1][0] }
	digits := func(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
	out := make([][]int, 0, len(locs))
	for i := 0; i < len(locs); i++ {
		w := tok(i)
		switch {
		case len(w) > 1 && strings.HasSuffix(strings.ToLower(w), "n") && touch(i) && tok(i+1) == "'" && touch(i+1) && strings.EqualFold(tok(i+2), "t"):
			out = append(out, []int{locs[i][0], locs[i][1] - 1}, []int{locs[i][1] - 1, locs[i+2][1]})
			i += 2
		case w == "'" && i > 0 && touch(i-1) && touch(i) && clitics[strings.ToLower(tok(i+1))]:
			out = append(out, []int{locs[i][0], locs[i+1][1]})
			i++
		case digits(w):
			start := locs[i][0]
			for (tok(i+1) == "." || tok(i+1) == ",") && touch(i) && touch(i+1) && digits(tok(i+2)) {
				i += 2
			}
			out = append(out, []int{start, locs[i][1]})
		default:
			out = append(out, locs[i])
		}
	}
	return out
}
