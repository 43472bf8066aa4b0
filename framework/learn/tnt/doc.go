// Package tnt is the TnT learner (Brants 2000, "TnT — a statistical
// part-of-speech tagger"): a second-order hidden Markov model whose
// transitions interpolate unigram, bigram and trigram tag probabilities
// with weights set by deleted interpolation, whose known words emit by
// their relative frequency with each tag, and whose unknown words are
// scored by a suffix model. Like the HMM it is count and divide, and it
// emits the shared linear model form with log probabilities as weights,
// decoded exactly by the second-order lattice.
//
// # The transitions
//
// Each sentence is padded as ⟨s⟩ ⟨s⟩ t1 … tn ⟨/s⟩, and every outcome
// (t1 … tn and ⟨/s⟩) counts one unigram, one bigram and one trigram:
//
//	P(t3 | t1, t2) = λ1 P̂(t3) + λ2 P̂(t3 | t2) + λ3 P̂(t3 | t1, t2)
//
// with maximum-likelihood P̂ (a conditional whose context was never seen is
// 0, as in the paper: the distribution after an unseen tag pair then sums
// to λ1 + λ2, not 1, and a path through that pair pays log(λ1 + λ2) more)
// and the λs of the paper's deleted interpolation (Lambdas). The
// interpolated probability is nonzero for every trigram, seen or not (on
// any real corpus: λ1 = 0 only when no trigram is seen once, and a label
// never seen in training has P̂ = 0 at every order), so
// the model lists every label trigram (linear.AllTrigrams): its lattice
// has every pair state and every edge, (L+1)·L² edges a position, which
// for UD's 17 UPOS tags is 5,202 against a first-order lattice's 289 — a
// dense L³ pass, exact, and cheap at these sizes. The trigram weight of
// (a, b, c) is log P(c | a, b) (⟨s⟩ as a, ⟨/s⟩ as c), the start weight of t
// is log P(t | ⟨s⟩, ⟨s⟩), and the bigram transition and stop weights are 0.
//
// # The words
//
// The learner reads two templates: an emission template for the word
// (one attribute a token: the form, offset 0, as written) and a
// suffix_trie template, whose attributes at a token are the word's path in
// a suffix trie of its case class — the empty suffix, then the suffixes of
// 1 … min(n, max_length) runes, each the parent of the next. A known word
// w scores log P(w | t) = log f(w, t) / f(t); an unknown word scores
// log P(t | s) − log P̂(t) (Bayes, up to the word's own probability, the
// same for every tag), s its longest suffix in the trie, where the trie's
// counts are the tags of the tokens of words seen at most rare_frequency
// times, and
//
//	P(t | s1 … si) = (P̂(t | s1 … si) + θ P(t | s2 … si)) / (1 + θ)
//
// down to the root, whose P is the tag distribution of those rare tokens,
// θ the standard deviation of the unconditional tag probabilities P̂(t).
//
// A linear model scores every attribute a token has, but the suffix model
// must speak only for words unknown in training. The weights do the
// gating: a trie node's weight is log P(t | node) − log P(t | parent) (the
// root's, log P(t | root) − log P̂(t)), so the suffix attributes of a word
// sum to its longest trie suffix's term (a node that is not in the trie —
// a suffix only frequent words have — weighs 0, and so does the unknown
// value of either template); and a known word's weight is its log P(w | t)
// minus the sum of its own suffix attributes' weights, so that for a known
// word the two templates together score exactly log P(w | t). A word is
// unknown exactly when the emission template maps it to its unknown
// attribute, and then only the suffixes score. Train checks that each
// word has one suffix path (the two templates read the same column the
// same way).
//
// A probability 0 (a known word with a tag it never had in training; a
// tag no rare word had, for unknown words) is the weight Impossible, a
// finite stand-in for log 0 (model weights must be finite) low enough
// that no path through it wins while a path without one exists (in any
// sentence shorter than thousands of tokens; see Impossible).
//
// TnT also conditions the transitions on capitalization (it doubles the
// tag set, P(t3, c3 | t1, c1, t2, c2)); that is an input-conditioned
// trigram, which the linear model's trigram weights are not, so this
// learner leaves it out: capitalization enters through the separate
// suffix tries only.
package tnt
