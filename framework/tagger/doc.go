// Package tagger applies a model file to text: it re-creates the model's
// feature templates, encodes sentences with the model's vocabulary, and
// decodes with the shared lattice core. It is the same code path for the
// test set of `trellis run` and for `trellis tag`, so the figures a run
// reports are the figures a user gets.
//
// The tagger keeps no decoder of its own: state scores come from a
// linear.Scorer, and Viterbi, n-best and marginals from lattice, the
// model's transitions prepared once in a lattice.Chain with the scheme's
// constraints (scheme.Constraints) applied.
package tagger
