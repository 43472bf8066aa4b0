// list.go holds the k-best candidate list of one sentence, the reranker's
// unit of data, and the checks every entry point runs on it.
package rerank

import (
	"errors"
	"fmt"
	"math"
)

// Sentinel errors; the messages that wrap them say which list and why.
var (
	ErrEmptyList   = errors.New("rerank: a list has no candidates")
	ErrShape       = errors.New("rerank: a list's buffers do not fit its sentence")
	ErrScoreOrder  = errors.New("rerank: candidates are not sorted best first")
	ErrNoGold      = errors.New("rerank: training needs gold labels")
	ErrModelFormat = errors.New("rerank: not a reranker model")
	ErrSettings    = errors.New("rerank: invalid settings")
	ErrNotFinite   = errors.New("rerank: non-finite weights")
)

// List is one sentence's k-best list from a first-pass model.
//
// Candidate j is the first pass's rank j (0 is its 1-best), so the rank is
// the index and is not stored again. The labels are in the scheme the
// first pass emits (the corpus's: IOB1 for CoNLL-2003 as distributed),
// which is what scheme.Chunks and conlleval read.
type List struct {
	// Words is an [n] slice: Words[i] is token i's word column.
	Words []string
	// Doc identifies the sentence's document (DocKeys makes the keys);
	// lists with the same Doc look across each other for the document
	// features. A negative Doc is a document of its own.
	Doc int
	// Labels is a [k][n] slice whose element [j][i] is candidate j's label
	// of token i.
	Labels [][]string
	// Scores is a [k] slice: Scores[j] is the first pass's score of
	// candidate j (a log-probability or a linear path score: only
	// differences to Scores[0] are used), non-increasing in j.
	Scores []float64
	// Gold is an [n] slice of the gold labels, nil when unknown (tagging).
	Gold []string
}

// K is the number of candidates.
func (l *List) K() int { return len(l.Labels) }

// Check reports a list whose buffers do not fit each other: no candidate,
// a candidate or the gold labels of the wrong length, scores missing,
// not finite or not sorted best first.
func (l *List) Check() error {
	n := len(l.Words)
	switch {
	case len(l.Labels) == 0:
		return ErrEmptyList
	case len(l.Scores) != len(l.Labels):
		return fmt.Errorf("%w: %d candidates, %d scores", ErrShape, len(l.Labels), len(l.Scores))
	case l.Gold != nil && len(l.Gold) != n:
		return fmt.Errorf("%w: %d words, %d gold labels", ErrShape, n, len(l.Gold))
	}
	for j, c := range l.Labels {
		if len(c) != n {
			return fmt.Errorf("%w: %d words, candidate %d has %d labels", ErrShape, n, j, len(c))
		}
		s := l.Scores[j]
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return fmt.Errorf("%w: candidate %d scores %g", ErrShape, j, s)
		}
		if j > 0 && s > l.Scores[j-1] {
			return fmt.Errorf("%w: candidate %d scores %g > candidate %d's %g", ErrScoreOrder, j, s, j-1, l.Scores[j-1])
		}
	}
	return nil
}

// checkLists runs Check on every list, naming the first bad one; withGold
// also requires gold labels.
func checkLists(lists []List, withGold bool) error {
	for i := range lists {
		if err := lists[i].Check(); err != nil {
			return fmt.Errorf("list %d: %w", i, err)
		}
		if withGold && lists[i].Gold == nil {
			return fmt.Errorf("list %d: %w", i, ErrNoGold)
		}
	}
	return nil
}
