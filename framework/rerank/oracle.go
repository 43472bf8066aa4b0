// oracle.go holds the oracles of a set of k-best lists — the best
// candidates by span F1 against gold — and the scoring of a choice of
// candidates.
package rerank

import (
	"github.com/trellis-nlp/trellis/framework/eval"
)

// Counts sums the span counts of the chosen candidates: choice is a
// [lists] slice whose element i is list i's chosen rank. The set must
// have been encoded with gold labels.
func (s *Set) Counts(choice []int) Counts {
	var t Counts
	for i, j := range choice {
		t.Add(s.counts[s.first[i]+j])
	}
	return t
}

// HasGold reports whether the set carries span counts against gold.
func (s *Set) HasGold() bool { return s.counts != nil }

// SentenceOracle chooses, per list, the candidate with the highest
// sentence F1 against gold, ties to the better rank: the reranker's
// training target.
func (s *Set) SentenceOracle() []int {
	out := make([]int, s.Lists())
	for i := range out {
		c0, k := s.candidates(i)
		for j := 1; j < k; j++ {
			if cmpSentenceF1(s.counts[c0+j], s.counts[c0+out[i]]) > 0 {
				out[i] = j
			}
		}
	}
	return out
}

// oracleBest marks, in a [candidates] slice, the candidates whose
// sentence F1 is their list's highest (the oracle-best candidates).
func (s *Set) oracleBest() []bool {
	out := make([]bool, len(s.real))
	for i, j := range s.SentenceOracle() {
		c0, k := s.candidates(i)
		for r := range k {
			out[c0+r] = cmpSentenceF1(s.counts[c0+r], s.counts[c0+j]) == 0
		}
	}
	return out
}

// Oracle chooses, per list, the candidates whose corpus-level F1 — the
// counts summed over the lists, as conlleval sums them — is the highest
// any choice reaches, and returns that choice and its counts. Corpus F1
// does not decompose over sentences, but F1 = 2C/(G+P) is a ratio, and
// for a fixed λ the choice maximizing 2C − λ(G+P) does (Dinkelbach's
// method): each list takes its candidate maximizing 2c − λp, λ becomes the
// F1 reached, until it no longer grows; the λ it stops at is the optimum.
// The comparisons are in integers, so it is exact. Ties go to the better
// rank.
func (s *Set) Oracle() ([]int, Counts) {
	choice := s.SentenceOracle()
	t := s.Counts(choice)
	for {
		// Maximize c·(G+P) − C·p per list: 2c − λp with λ = 2C/(G+P),
		// times (G+P)/2.
		num, den := int64(t.Correct), int64(t.Gold+t.Pred)
		next := make([]int, len(choice))
		for i := range next {
			c0, k := s.candidates(i)
			var best int64
			for j := range k {
				c := s.counts[c0+j]
				v := int64(c.Correct)*den - num*int64(c.Pred)
				if j == 0 || v > best {
					next[i], best = j, v
				}
			}
		}
		u := s.Counts(next)
		// Stop unless Correct'/(G+P') > Correct/(G+P).
		if int64(u.Correct)*den <= num*int64(u.Gold+u.Pred) {
			return choice, t
		}
		choice, t = next, u
	}
}

// Sentences are the chosen candidates of lists as eval's gold/predicted
// pairs (labels shared, not copied), for eval.Evaluate and eval.Compare.
func Sentences(lists []List, choice []int) []eval.Sentence {
	out := make([]eval.Sentence, len(lists))
	for i := range lists {
		out[i] = eval.Sentence{Gold: lists[i].Gold, Pred: lists[i].Labels[choice[i]]}
	}
	return out
}
