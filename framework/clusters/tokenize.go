package clusters

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokenize splits a line of running text into tokens the way the CoNLL
// corpora are tokenized (Penn Treebank style, simplified): punctuation
// apart from words ("Washington," is "Washington" ","), the clitics 's,
// 're, 've, 'll, 'd, 'm and n't apart ("don't" is "do" "n't"), a final
// period apart unless the word is an abbreviation (letters with another
// period, as U.S., or a capitalized word of at most three letters, as
// Mr. or Jan.). It appends to dst and returns it.
func Tokenize(dst []string, line string) []string {
	for _, f := range strings.Fields(line) {
		dst = tokenizeWord(dst, f)
	}
	return dst
}

// leading and trailing are the punctuation split off a word's ends.
const (
	leading  = "\"'`([{<*_$#"
	trailing = "\"'`)]}>,;:!?*_%"
)

func tokenizeWord(dst []string, w string) []string {
	for len(w) > 1 && strings.IndexByte(leading, w[0]) >= 0 {
		if strings.HasPrefix(w, "``") || strings.HasPrefix(w, "''") {
			dst, w = append(dst, w[:2]), w[2:]
			continue
		}
		dst, w = append(dst, w[:1]), w[1:]
	}
	var tail []string
	for len(w) > 1 {
		last := w[len(w)-1]
		if strings.IndexByte(trailing, last) >= 0 {
			tail, w = append(tail, w[len(w)-1:]), w[:len(w)-1]
			continue
		}
		if last == '.' && !abbreviation(w) {
			n := len(w) - 1
			for n > 0 && w[n-1] == '.' { // "..." stays whole
				n--
			}
			tail, w = append(tail, w[n:]), w[:n]
			continue
		}
		break
	}
	if w != "" {
		dst = splitClitic(dst, w)
	}
	for i := len(tail) - 1; i >= 0; i-- {
		dst = append(dst, tail[i])
	}
	return dst
}

// abbreviation reports whether w (ending in a period) keeps its period.
func abbreviation(w string) bool {
	body := w[:len(w)-1]
	if body == "" || strings.Trim(body, ".") == "" {
		return false
	}
	for _, r := range body {
		if r != '.' && !unicode.IsLetter(r) {
			return false
		}
	}
	if strings.Contains(body, ".") {
		return true
	}
	r, _ := utf8.DecodeRuneInString(body)
	return len(body) <= 3 && r >= 'A' && r <= 'Z'
}

// clitics are split off a word's end (checked in this order; the
// apostrophe may be ASCII or U+2019).
var clitics = []string{"n't", "'s", "'re", "'ve", "'ll", "'d", "'m", "n’t", "’s", "’re", "’ve", "’ll", "’d", "’m"}

func splitClitic(dst []string, w string) []string {
	lower := strings.ToLower(w)
	for _, c := range clitics {
		if len(w) > len(c) && strings.HasSuffix(lower, c) {
			return append(dst, w[:len(w)-len(c)], w[len(w)-len(c):])
		}
	}
	return append(dst, w)
}
