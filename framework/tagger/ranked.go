package tagger

import "math"

// RankedPath is one of a sentence's k best label sequences as JSON shows
// it, in `trellis tag --output json` and in `trellis serve`'s answers
// alike. Score and Probability are null when not finite (a forbidden
// path's -Inf), which JSON numbers cannot hold.
type RankedPath struct {
	Labels []string `json:"labels"`
	// Words is the segmentation the labels make, for a chars model.
	Words       []string `json:"words,omitempty"`
	Score       *float64 `json:"score"`
	Probability *float64 `json:"probability"`
}

// Ranked returns d's paths, best first, as RankedPaths; words, if not
// nil, gives each path's Words.
func (d *Decoded) Ranked(words func(labels []string) []string) []RankedPath {
	out := make([]RankedPath, len(d.Paths))
	for r, p := range d.Paths {
		out[r] = RankedPath{Labels: p, Score: Finite(d.Scores[r]), Probability: Finite(d.Probabilities[r])}
		if words != nil {
			out[r].Words = words(p)
		}
	}
	return out
}

// Finite returns &v, or nil (JSON null) for a value JSON cannot hold
// (±Inf, NaN).
func Finite(v float64) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return &v
}
