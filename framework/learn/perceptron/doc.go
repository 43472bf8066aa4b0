// Package perceptron is the averaged structured perceptron (Collins 2002):
// decode each training sentence with the current weights (Viterbi on the
// shared lattice core), and where the best sequence differs from the gold
// one, add the gold sequence's features and subtract the predicted ones.
// The returned weights are the average over all steps, which generalizes
// far better than the last vector; the average is kept with the timestamp
// trick rather than by summing the vector after every sentence.
//
// The epochs, shuffling, averaging, dev scoring and checkpoints are the
// online engine's (framework/learn/online); this package is the update
// rule and the configuration.
package perceptron
