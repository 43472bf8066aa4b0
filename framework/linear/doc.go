// Package linear holds the one model form every learner produces: a
// first-order linear-chain model with state weights per (attribute, label)
// pair, transition weights between labels, and start and stop weights.
//
// An HMM is such a model whose weights are log probabilities; a perceptron
// or CRF model is one whose weights were learned discriminatively. Decoding
// never asks which learner made a model.
package linear
