package tnt

import (
	"context"
	"fmt"
	"math"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// Config is the tnt learner block.
type Config struct {
	// RareFrequency: the suffix model learns from the tokens of words
	// seen at most this many times in training (Brants 2000: 10).
	RareFrequency *int `hcl:"rare_frequency,optional" json:"rare_frequency,omitempty"`
}

// DefaultRareFrequency is the paper's threshold.
const DefaultRareFrequency = 10

// Impossible is the weight of a zero probability: a finite log 0 (model
// weights must be finite). Every nonzero probability of the model is
// above e^-60 or so per token (UD EWT: emissions above 1/f(t), the
// transitions' unigram part above λ1/N when λ1 > 0, as on any corpus with
// a trigram seen once), so for any sentence shorter than
// about ten thousand tokens a path through an Impossible weight scores
// below every path without one: it never wins while one without exists.
const Impossible = -1e6

// The template types the learner reads.
const (
	wordType   = "emission"
	suffixType = "suffix_trie"
)

// Learner is the TnT learner.
type Learner struct{ cfg Config }

var (
	_ learn.Learner         = (*Learner)(nil)
	_ learn.OrderLearner    = (*Learner)(nil)
	_ learn.TemplateChecker = (*Learner)(nil)
	_ learn.Noter           = (*Learner)(nil)
)

// New returns a TnT learner with default settings.
func New() learn.Learner { return &Learner{} }

// Config implements learn.Learner.
func (l *Learner) Config() any { return &l.cfg }

func (l *Learner) rare() int {
	if l.cfg.RareFrequency == nil {
		return DefaultRareFrequency
	}
	return *l.cfg.RareFrequency
}

// Validate implements learn.Learner.
func (l *Learner) Validate() hcl.Diagnostics {
	if r := l.rare(); r < 1 {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid rare_frequency",
			Detail: fmt.Sprintf("rare_frequency must be at least 1 (the suffix model learns from words seen at most this many times; TnT uses 10), got %d", r)}}
	}
	return nil
}

// TrainsSecondOrder implements learn.OrderLearner: TnT is second order.
func (*Learner) TrainsSecondOrder() bool { return true }

// CapabilityNote implements learn.Noter: where second-order learners are
// listed, tnt is the one that is an HMM.
func (*Learner) CapabilityNote(c learn.Capability) string {
	if c == learn.CanSecondOrder {
		return "the second-order HMM"
	}
	return ""
}

// CheckTemplates implements learn.TemplateChecker: one emission template
// (the words), one suffix_trie template and a transition template with
// order = 2, nothing else.
func (*Learner) CheckTemplates(ts []learn.TemplateInfo) error {
	var words, suffixes, trans []string
	order := 0
	for _, t := range ts {
		switch {
		case t.Transitions:
			trans, order = append(trans, t.Name), t.Order
		case t.Type == wordType:
			words = append(words, t.Name)
		case t.Type == suffixType:
			suffixes = append(suffixes, t.Name)
		default:
			return fmt.Errorf("tnt reads only an emission template (the word), a suffix_trie template and a transition template with order = 2; template %q is of type %s", t.Name, t.Type)
		}
	}
	switch {
	case len(words) != 1:
		return fmt.Errorf("tnt needs exactly one emission template (the word at offset 0), the spec has %d", len(words))
	case len(suffixes) != 1:
		return fmt.Errorf("tnt needs exactly one suffix_trie template (its unknown-word model), the spec has %d", len(suffixes))
	case len(trans) != 1 || order != 2:
		return fmt.Errorf("tnt is a second-order model: it needs a transition template with order = 2")
	}
	return nil
}

// Train implements learn.Learner. It is counting passes over the
// training data, so of learn.Loop only cancellation and progress would
// apply; there is no learning curve and nothing worth checkpointing.
func (l *Learner) Train(ctx context.Context, p *learn.Problem) (*learn.Result, error) {
	if p.Order != 2 || !p.Transitions {
		return nil, fmt.Errorf("tnt is a second-order model: it needs a transition template with order = 2")
	}
	wordGroup, suffixGroup, err := groups(p.Mapper)
	if err != nil {
		return nil, err
	}
	sents, err := learn.CompleteSentences(p, "tnt")
	if err != nil {
		return nil, err
	}
	c := newCounts(p, wordGroup, suffixGroup)
	if err := c.count(ctx, p, sents); err != nil {
		return nil, err
	}
	lambdas := c.tags.Lambdas()
	theta := Theta(c.tagProbs())
	m := linear.NewDense(p.NumAttrs, p.NumLabels, true)
	c.suffixWeights(m.W, theta, l.rare())
	c.wordWeights(m.W)
	m2, err := linear.WithTrigramList(m, linear.AllTrigrams(p.NumLabels))
	if err != nil {
		return nil, err
	}
	c.tags.weights(lambdas, m2.Start(), m2.TrigramWeights(m2.W), m2.Trigrams)
	p.Log.Info().Floats64("lambdas", lambdas[:]).Float64("theta", theta).Int("labels", p.NumLabels).Msg("tnt counted")
	return &learn.Result{Model: m2, Info: map[string]any{
		"lambda1": lambdas[0], "lambda2": lambdas[1], "lambda3": lambdas[2],
		"theta": theta, "rare_frequency": l.rare(),
	}}, nil
}

// groups finds the word and suffix template groups of m.
func groups(m learn.Mapper) (word, suffix int, err error) {
	word, suffix = -1, -1
	for g, t := range m.GroupTypes() {
		switch {
		case t == wordType && word < 0:
			word = g
		case t == suffixType && suffix < 0:
			suffix = g
		default:
			return 0, 0, fmt.Errorf("tnt reads one emission template and one suffix_trie template; template %d is another %s", g, t)
		}
	}
	if word < 0 || suffix < 0 {
		return 0, 0, fmt.Errorf("tnt needs an emission template (the word) and a suffix_trie template")
	}
	return word, suffix, nil
}

// logp is log x, Impossible for 0.
func logp(x float64) float64 {
	if x <= 0 {
		return Impossible
	}
	return max(math.Log(x), Impossible)
}
