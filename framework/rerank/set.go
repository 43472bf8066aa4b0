// set.go holds a corpus of k-best lists with every candidate's features
// extracted once, flat, and, when gold labels are known, each candidate's
// span counts against them — what training, the oracle and scoring read.
package rerank

import (
	"cmp"

	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/scheme"
)

// Set is lists encoded for training or scoring. Candidates are numbered
// across the set: list i's are first[i] … first[i+1]-1, in rank order.
type Set struct {
	// first is a [lists+1] slice: list i's candidates are first[i]:first[i+1].
	first []int
	// start is a [candidates+1] slice: candidate c's indicator feature IDs
	// are ids[start[c]:start[c+1]], one per occurrence.
	start []int
	ids   []int32
	// real is a [candidates] slice: candidate c's score feature.
	real []float64
	// counts is a [candidates] slice of span counts against the gold
	// labels (nil without gold): candidate c's correct, predicted and (its
	// list's) gold spans.
	counts []Counts
}

// Counts are a labeling's span counts against gold, as conlleval counts
// them; summed over a corpus they give its precision, recall and F1.
type Counts struct{ Correct, Pred, Gold int }

// Add adds d to c.
func (c *Counts) Add(d Counts) {
	c.Correct += d.Correct
	c.Pred += d.Pred
	c.Gold += d.Gold
}

// F1 is conlleval's F1 of the counts, a fraction in [0,1] (0 when there
// is nothing to score), in framework/eval's arithmetic — 2PR/(P+R) — so
// that the two agree to the bit.
func (c Counts) F1() float64 {
	ratio := func(num, den int) float64 {
		if den == 0 {
			return 0
		}
		return float64(num) / float64(den)
	}
	p, r := ratio(c.Correct, c.Pred), ratio(c.Correct, c.Gold)
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// sentenceF1 is a sentence's F1 for choosing among candidates, as an
// exact fraction: 2C/(G+P), and 1 for no spans predicted where there are
// none, which conlleval's 0 would tie with every wrong candidate.
func (c Counts) sentenceF1() (num, den int64) {
	if c.Gold+c.Pred == 0 {
		return 1, 1
	}
	return 2 * int64(c.Correct), int64(c.Gold + c.Pred)
}

// cmpSentenceF1 compares a's and b's sentence F1 exactly: -1, 0 or +1.
func cmpSentenceF1(a, b Counts) int {
	an, ad := a.sentenceF1()
	bn, bd := b.sentenceF1()
	return cmp.Compare(an*bd, bn*ad)
}

// Encode extracts the features of every candidate of lists with ex,
// against the document index of lists themselves, and their span counts
// when every list has gold labels.
func Encode(lists []List, ex *Extractor) (*Set, error) {
	if err := checkLists(lists, false); err != nil {
		return nil, err
	}
	withGold := true
	for i := range lists {
		withGold = withGold && lists[i].Gold != nil
	}
	docs := NewDocIndex(lists)
	s := &Set{first: make([]int, 1, len(lists)+1), start: []int{0}}
	var gold, pred []scheme.Chunk
	for i := range lists {
		l := &lists[i]
		ex.Prepare(l, docs)
		if withGold {
			gold = scheme.Chunks(gold[:0], l.Gold, scheme.None)
		}
		for j := range l.Labels {
			var r float64
			s.ids, r = ex.Candidate(s.ids, j)
			s.start = append(s.start, len(s.ids))
			s.real = append(s.real, r)
			if withGold {
				pred = scheme.Chunks(pred[:0], l.Labels[j], scheme.None)
				s.counts = append(s.counts, Counts{eval.MatchChunks(gold, pred), len(pred), len(gold)})
			}
		}
		s.first = append(s.first, len(s.real))
	}
	return s, nil
}

// Lists is the number of lists.
func (s *Set) Lists() int { return len(s.first) - 1 }

// candidates returns list i's first candidate and how many it has.
func (s *Set) candidates(i int) (c0, k int) { return s.first[i], s.first[i+1] - s.first[i] }

// score is candidate c's score under weights w.
func (s *Set) score(w []float64, c int) float64 {
	v := w[scoreFeature] * s.real[c]
	for _, id := range s.ids[s.start[c]:s.start[c+1]] {
		v += w[id]
	}
	return v
}

// Best returns the rank of the best-scoring candidate of each list under
// w (ties to the better rank) in dst, reused.
func (s *Set) Best(dst []int, w []float64) []int {
	dst = dst[:0]
	for i := range s.Lists() {
		dst = append(dst, s.best(w, i))
	}
	return dst
}

func (s *Set) best(w []float64, i int) int {
	c0, k := s.candidates(i)
	best, bv := 0, s.score(w, c0)
	for j := 1; j < k; j++ {
		if v := s.score(w, c0+j); v > bv {
			best, bv = j, v
		}
	}
	return best
}
