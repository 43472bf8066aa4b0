package plural

import (
	"strconv"
	"strings"
)

// irregular holds the plurals that the rules in Noun get wrong, for the
// nouns trellis's messages use.
var irregular = map[string]string{
	"corpus": "corpora",
	"datum":  "data",
	"child":  "children",
	"matrix": "matrices",
	"index":  "indices",
	"byte":   "bytes",
	"epoch":  "epochs", // "ch" said as k
}

// Noun returns noun when n is 1 (or -1) and its plural otherwise. The last
// word of a phrase is the one that changes ("test sentence" becomes "test
// sentences").
func Noun(n int, noun string) string {
	if n == 1 || n == -1 {
		return noun
	}
	head, last := "", noun
	if i := strings.LastIndexByte(noun, ' '); i >= 0 {
		head, last = noun[:i+1], noun[i+1:]
	}
	return head + plural(last)
}

// Count returns n, a space and the noun in the number n asks for:
// Count(1, "corpus") is "1 corpus", Count(2, "corpus") "2 corpora".
func Count(n int, noun string) string {
	return strconv.Itoa(n) + " " + Noun(n, noun)
}

// Quoted renders names as a list of Go-quoted strings: `"a", "b", "c"`
// (what a message lists after "columns", "models", "templates").
func Quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// plural is the English plural of one word, by the usual spelling rules.
func plural(w string) string {
	if p, ok := irregular[w]; ok {
		return p
	}
	switch {
	case w == "":
		return w
	case strings.HasSuffix(w, "s"), strings.HasSuffix(w, "x"), strings.HasSuffix(w, "z"),
		strings.HasSuffix(w, "ch"), strings.HasSuffix(w, "sh"):
		return w + "es"
	case len(w) > 1 && w[len(w)-1] == 'y' && !strings.ContainsRune("aeiou", rune(w[len(w)-2])):
		return w[:len(w)-1] + "ies"
	}
	return w + "s"
}

// Pick returns one when n is 1 (or -1) and other otherwise, for the words
// whose number follows a count but are not nouns: Pick(n, "contradicts",
// "contradict").
func Pick(n int, one, other string) string {
	if n == 1 || n == -1 {
		return one
	}
	return other
}
