package scheme

import "github.com/trellis-nlp/trellis/framework/lattice"

// Constraints returns the decoding constraints of scheme s over labels:
// the bigrams, first labels and last labels Allowed refuses, forbidden.
// Training (the perceptron), dev scoring and the tagger all decode under
// these, so they live with the scheme that defines them.
func Constraints(labels []string, s Scheme) *lattice.Constraints {
	trans, start, stop := Allowed(labels, s)
	return &lattice.Constraints{Trans: trans, Start: start, Stop: stop}
}
