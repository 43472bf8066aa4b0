package registry

import (
	"fmt"
	"strings"

	"github.com/agext/levenshtein"
)

// maxTypoDistance is HCL's own threshold for its suggestions: names closer
// than this are plausible typos, farther ones are different names.
const maxTypoDistance = 3

// Suggest returns the candidate closest to given if it is close enough to
// be a plausible typo (edit distance below 3, or equal but for case), else
// "" (always for an empty given). Of equally close candidates the first wins, so the result depends
// only on the candidates' order, never on map order.
func Suggest(given string, candidates []string) string {
	if given == "" {
		return "" // nothing was typed, so nothing was mistyped
	}
	best, bestDist := "", maxTypoDistance
	for _, c := range candidates {
		d := levenshtein.Distance(given, c, nil)
		if strings.EqualFold(given, c) {
			d = 0 // "CRF" means "crf" whatever the edit distance
		}
		if d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// DidYouMean explains that given is not one of candidates ("There is no
// learner type "hm"."), then adds Hint.
func DidYouMean(given string, candidates []string, what string) string {
	return fmt.Sprintf("There is no %s %q.", what, given) + Hint(given, candidates)
}

// Hint is the sentence that follows a "there is no ...": a suggestion
// when one is close, else the list of candidates (none when empty), so the
// user always learns what would have worked.
func Hint(given string, candidates []string) string {
	if s := Suggest(given, candidates); s != "" {
		return fmt.Sprintf(" Did you mean %q?", s)
	}
	if len(candidates) > 0 {
		return " Choose one of: " + strings.Join(candidates, ", ") + "."
	}
	return ""
}
