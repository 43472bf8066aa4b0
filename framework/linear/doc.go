// Package linear holds the one model form every learner produces: a
// first-order linear-chain model with state weights per (attribute, label)
// pair, transition weights between labels, and start and stop weights.
//
// An HMM is such a model whose weights are log probabilities; a perceptron
// or CRF model is one whose weights were learned discriminatively. Decoding
// never asks which learner made a model.
//
// Scorer turns a weight vector into the State half of a lattice.Scores
// (Scorer.Lattice); it is the only state-scoring code, behind the tagger,
// the perceptron, dev scoring and the CRF (through Model.Lattice). The
// sentence-independent half is a lattice.Chain built from Trans, Start
// and Stop. When models gain input-conditioned transitions, Scorer.Lattice
// is where their per-position terms go (lattice.Scores.TransAt), and every
// decoder gets them.
package linear
