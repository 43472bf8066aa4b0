// relax.go holds Relaxation: how a lattice that allows no path is loosened
// until one is allowed, shared by the tagger and dev scoring.

package lattice

import "math"

// Relaxation loosens a sentence's lattice whose every path is forbidden,
// one step at a time, so that every sentence gets the best path of the
// tightest lattice that has one:
//
//  1. the chain without the scheme's constraints (Free), for a model whose
//     labels cannot satisfy them;
//  2. for a second-order lattice, the first-order lattice of the same
//     scores, for a sentence whose label trigrams are unlike any seen in
//     training.
//
// The tagger and dev scoring both decode through it, so a model is chosen
// on dev by the labels it would tag.
type Relaxation struct {
	// Free is the chain without constraints, or nil when the lattice has
	// none to drop (step 1 is then skipped).
	Free *Chain
}

// Relax loosens s by one step and reports whether it could. s must be
// the caller's copy: Relax changes what it points at, never the chain or
// the scores themselves.
func (r Relaxation) Relax(s *Scores) bool {
	switch {
	case r.Free != nil && s.Chain != r.Free:
		r.Free.Attach(s)
	case s.Order2 != nil:
		s.Order2, s.Trigram = nil, nil
	default:
		return false
	}
	return true
}

// DecodeRelaxed writes the sequence d.Method finds in s into dst and
// returns its score; when s allows no sequence it loosens s by r and
// decodes again with Viterbi, until one is allowed or r can loosen no
// further (the score is then -Inf). s is left as the lattice the path was
// found in, so it must be the caller's copy (see Relax).
func (d *Decoder) DecodeRelaxed(dst []int32, s *Scores, r Relaxation) float64 {
	score := d.Decode(dst, s)
	for math.IsInf(score, -1) && r.Relax(s) {
		score = d.ws.Viterbi(dst, s)
	}
	return score
}
