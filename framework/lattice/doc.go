// Package lattice is the first-order linear-chain core shared by every
// learner and by the tagger: Viterbi, n-best, forward-backward with log Z
// and marginals, and scheme constraints.
//
// A lattice scores a label sequence y of a sentence of N tokens over L
// labels as
//
//	Start[y0] + Σi State[i*L+yi] + Σi>0 Trans[y(i-1)*L+yi] + Stop[y(N-1)]
//
// Scores are log-potentials; -Inf forbids a label or a bigram. All work
// happens in a Workspace that grows to the longest sentence it has seen and
// then never allocates again, so a Workspace per goroutine keeps decoding
// and gradient passes allocation-free.
package lattice
