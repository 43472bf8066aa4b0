package spec

import (
	"fmt"
	"strings"

	"github.com/agext/levenshtein"
)

// suggest returns the candidate closest to given, if it is close enough to
// be a plausible typo (the same rule HCL uses for its own suggestions).
func suggest(given string, candidates []string) string {
	for _, c := range candidates {
		if levenshtein.Distance(given, c, nil) < 3 || strings.EqualFold(given, c) {
			return c
		}
	}
	return ""
}

// didYouMean explains that given is not one of candidates, suggesting the
// nearest.
func didYouMean(given string, candidates []string, what string) string {
	return fmt.Sprintf("There is no %s %q.", what, given) + hint(given, candidates)
}

// hint is the sentence didYouMean adds after "There is no ...": a
// suggestion, or the list of candidates.
func hint(given string, candidates []string) string {
	if s := suggest(given, candidates); s != "" {
		return fmt.Sprintf(" Did you mean %q?", s)
	}
	if len(candidates) > 0 {
		return " Choose one of: " + strings.Join(candidates, ", ") + "."
	}
	return ""
}
