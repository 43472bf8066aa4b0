// Package memm is the maximum-entropy Markov model (McCallum et al. 2000;
// Wapiti's --type memm): P(y | x) = Π_i P(y_i | y_(i-1), x), each factor a
// softmax over y_i of the state scores plus the transition row of the
// previous label (the start weights for i = 0). Training maximizes the
// likelihood of each gold label given the gold previous one, with the
// CRF's optimizers and regularizers (L-BFGS, OWL-QN when c1 > 0, SGD;
// c1, c2 and the other crf settings mean what they mean there): this
// package is the crf package's Local form (crf.NewForm), whose objective
// is in framework/learn/crf/local.go.
//
// The model is a linear.Model marked Local, and the model file records it
// (header normalization = "local", format version 2). linear.Scorer then
// fills every lattice with log P(y_i | y_(i-1), x) — the per-position,
// per-previous-label normalizer goes into Scores.TransAt — so the tagger,
// n-best and marginals need nothing of their own: Viterbi finds the most
// probable label sequence, n-best the next most probable ones, and a
// marginal is P(y_i = c | x) under the MEMM's distribution over whole
// sequences (forward-backward over the local probabilities, whose sum
// over all sequences is 1); under a constrained scheme, that distribution
// renormalized over the sequences the scheme allows.
//
// Locally normalized, an MEMM suffers label bias (Lafferty et al. 2001):
// where a state has a single likely successor, the observation cannot
// change the path; memm_test.go shows it against the CRF.
package memm

import (
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/crf"
)

// Config is the memm learner block: the crf block's settings but hidden_states.
type Config = crf.LocalConfig

// New returns an MEMM learner with default settings (c2 = 1, L-BFGS).
func New() learn.Learner { return crf.NewForm(crf.Local) }
