package main

import "github.com/trellis-nlp/trellis/framework/trellis"

// pruneRare drops, in place, the attributes seen fewer than minCount times
// in the training sentences: a spec's min_count (features { min_count = N
// }), which trellis.AttributeOptions has no field for. It counts as the
// feature mapper does before its prune, every occurrence whatever its
// value, so the model is the one `trellis run` trains with that min_count
// (TestPruneRareIsMinCount). Dev and tagged sentences keep their rare
// attributes, which the model does not know, as the spec's would.
func pruneRare(sents []trellis.AttributeSentence, minCount int) {
	if minCount <= 1 {
		return
	}
	counts := map[string]int{}
	for _, s := range sents {
		for _, tok := range s.Tokens {
			for _, a := range tok {
				counts[a.Name]++
			}
		}
	}
	for _, s := range sents {
		for i, tok := range s.Tokens {
			// Each token's slice ends where the next one's starts (its
			// capacity is its length), so filtering in place is safe.
			kept := tok[:0]
			for _, a := range tok {
				if counts[a.Name] >= minCount {
					kept = append(kept, a)
				}
			}
			s.Tokens[i] = kept
		}
	}
}
