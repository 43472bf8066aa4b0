// Package maxent is the per-token maximum-entropy learner (multinomial
// logistic regression, Wapiti's --type maxent): each token's label is
// predicted on its own from the same state features as the CRF's,
// P(y_i | x) ∝ exp(Σ w·f(x, i, y_i)). Transition templates are ignored,
// with a warning that says so. Decoding is each token's best label; under
// a constrained scheme, the best sequence the scheme allows (Viterbi with
// zero transition scores), and the tagger's marginals are the per-token
// probabilities (renormalized over the sequences the scheme allows).
//
// The objective — the negative log-likelihood of the gold labels plus
// c1·‖w‖₁ + c2·‖w‖² — is trained by the CRF's optimizers (L-BFGS, OWL-QN
// when c1 > 0, SGD) with the CRF's settings, which mean what they mean
// there: this package is the crf package's PerToken form (crf.NewForm),
// whose objective is in framework/learn/crf/local.go.
package maxent

import (
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/crf"
)

// Config is the maxent learner block: the crf block's settings but hidden_states.
type Config = crf.LocalConfig

// New returns a maxent learner with default settings (c2 = 1, L-BFGS).
func New() learn.Learner { return crf.NewForm(crf.PerToken) }
