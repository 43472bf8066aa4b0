// Package hmm is the count-and-divide learner: a first-order hidden Markov
// model whose emissions are naive Bayes over all of the spec's templates,
// expressed as log-probability weights in the shared linear model form.
//
// Each template is a categorical variable per label: every attribute a
// template emits at a token is one draw, so
//
//	log P(x_i | y) = Σ over attributes a at i of log P(a | y, template(a))
//
// with add-α smoothing per template. Unknown values get a per-template
// "unknown" attribute whose probability is estimated from the values seen
// once in training (hapax legomena, the classic Good-Turing intuition:
// unseen words behave like rare ones), so an unknown word is still scored
// by how often each label produces new words, and by its other templates
// (suffixes, shape) where the spec has them.
package hmm

import (
	"context"
	"fmt"
	"math"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// Config is the hmm learner block.
type Config struct {
	EmissionSmoothing   *float64 `hcl:"emission_smoothing,optional" json:"emission_smoothing,omitempty"`
	TransitionSmoothing *float64 `hcl:"transition_smoothing,optional" json:"transition_smoothing,omitempty"`
	// Unknown is "class" (the hapax-based unknown attribute per template,
	// the default) or "drop" (ignore unseen values).
	Unknown string `hcl:"unknown,optional" json:"unknown,omitempty"`
}

// Defaults, chosen on CoNLL-2000 and UD EWT train/dev: emissions need
// little smoothing because the vocabularies are large; transitions have
// few parameters and plenty of counts.
const (
	DefaultEmissionSmoothing   = 0.01
	DefaultTransitionSmoothing = 0.1
)

// Learner is the HMM learner.
type Learner struct{ cfg Config }

// The HMM is neither a learn.PairLearner nor a learn.OrderLearner: a
// generative model's emissions depend on the label alone, so an attribute
// scoring the bigram would need emissions of pairs, and its counts are
// first order (tnt is the second-order HMM).
var (
	_ learn.Learner              = (*Learner)(nil)
	_ learn.ProbabilisticLearner = (*Learner)(nil)
)

// Probabilistic implements learn.ProbabilisticLearner: the HMM's scores
// are its joint model's log-probabilities.
func (*Learner) Probabilistic() bool { return true }

// New returns an HMM learner with default settings.
func New() learn.Learner { return &Learner{} }

// Config implements learn.Learner.
func (l *Learner) Config() any { return &l.cfg }

func (l *Learner) alphas() (emit, trans float64) {
	emit, trans = DefaultEmissionSmoothing, DefaultTransitionSmoothing
	if l.cfg.EmissionSmoothing != nil {
		emit = *l.cfg.EmissionSmoothing
	}
	if l.cfg.TransitionSmoothing != nil {
		trans = *l.cfg.TransitionSmoothing
	}
	return emit, trans
}

// Validate implements learn.Learner.
func (l *Learner) Validate() hcl.Diagnostics {
	var diags hcl.Diagnostics
	emit, trans := l.alphas()
	for _, c := range []struct {
		name string
		v    float64
	}{{"emission_smoothing", emit}, {"transition_smoothing", trans}} {
		if !(c.v > 0) || math.IsInf(c.v, 0) {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Invalid smoothing",
				Detail: fmt.Sprintf("%s must be a positive number (add-α smoothing; 0 would give unseen events probability zero), got %v", c.name, c.v),
			})
		}
	}
	switch l.cfg.Unknown {
	case "", "class", "drop":
	default:
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "Invalid unknown-value handling",
			Detail: fmt.Sprintf(`unknown must be "class" or "drop", got %q`, l.cfg.Unknown),
		})
	}
	return diags
}

// Train implements learn.Learner. It is one counting pass, so of the
// iterative learners' learn.Loop only cancellation and progress apply; it
// has no learning curve to observe and nothing worth checkpointing.
func (l *Learner) Train(ctx context.Context, p *learn.Problem) (*learn.Result, error) {
	alphaE, alphaT := l.alphas()
	if p.Mapper == nil {
		return nil, fmt.Errorf("hmm: the problem has no feature mapper (the HMM normalizes per template)")
	}
	nl, na, ng := p.NumLabels, p.NumAttrs, p.Mapper.NumGroups()
	c := &counts{
		nl: nl, na: na, ng: ng, attrGroup: p.Mapper.AttrGroups(), unknownAttrs: p.Mapper.UnknownAttrs(),
		withUnknown: l.cfg.Unknown != "drop",
	}
	if len(c.attrGroup) != na {
		return nil, fmt.Errorf("hmm: the feature mapper has template groups for %d attributes, the problem %d", len(c.attrGroup), na)
	}
	if err := c.count(ctx, p); err != nil {
		return nil, err
	}
	c.hapaxes()
	m := linear.NewDense(na, nl, p.Transitions)
	c.emissions(m.W, alphaE)
	if p.Transitions {
		c.transitions(m.Trans(), m.Start(), m.Stop(), alphaT)
	}
	p.Log.Info().Int("attributes", na).Int("labels", nl).Int("templates", ng).Msg("hmm counted")
	return &learn.Result{Model: m, Info: map[string]any{"emission_smoothing": alphaE, "transition_smoothing": alphaT}}, nil
}

// counts are the HMM's sufficient statistics: (weighted) attribute-label,
// attribute and template-label counts, label bigrams, first and last
// labels, and the hapax counts standing in for unknown values.
type counts struct {
	nl, na, ng   int
	attrGroup    []int32
	unknownAttrs []int32
	withUnknown  bool

	attrLabel, attrTotal, groupLabel []float64
	trans, start, stop               []float64
	hapax, vocab                     []float64
}

// count makes the pass over the training data. A token without a gold
// label counts for nothing and breaks the label chain around it.
func (c *counts) count(ctx context.Context, p *learn.Problem) error {
	d, nl, attrGroup := p.Train, c.nl, c.attrGroup
	c.attrLabel, c.attrTotal, c.groupLabel = make([]float64, c.na*nl), make([]float64, c.na), make([]float64, c.ng*nl)
	c.trans, c.start, c.stop = make([]float64, nl*nl), make([]float64, nl), make([]float64, nl)
	bar := p.Progress.Start("hmm", int64(d.NumSentences()), "sentences")
	defer bar.Done()
	for s := 0; s < d.NumSentences(); s++ {
		if s%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			bar.Set(int64(s), "counting")
		}
		lo, hi := d.Sentence(s)
		prev := int32(-1)
		for t := lo; t < hi; t++ {
			y := d.Labels[t]
			if y < 0 {
				prev = -1
				continue
			}
			for k := d.TokenOff[t]; k < d.TokenOff[t+1]; k++ {
				a, v := d.Attrs[k], d.Value(k)
				c.attrLabel[int(a)*nl+int(y)] += v
				c.attrTotal[a] += v
				c.groupLabel[int(attrGroup[a])*nl+int(y)] += v
			}
			switch {
			case t == lo:
				c.start[y]++
			case prev >= 0:
				c.trans[int(prev)*nl+int(y)]++
			}
			prev = y
		}
		if hi > lo && d.Labels[hi-1] >= 0 {
			c.stop[d.Labels[hi-1]]++
		}
	}
	return nil
}

// hapaxes counts, per template and label, the values seen exactly once
// (they stand in for the unknown ones) and each template's vocabulary.
func (c *counts) hapaxes() {
	nl := c.nl
	isUnknown := make([]bool, c.na)
	if c.withUnknown {
		for _, a := range c.unknownAttrs {
			if a >= 0 {
				isUnknown[a] = true
			}
		}
	}
	c.hapax, c.vocab = make([]float64, c.ng*nl), make([]float64, c.ng)
	for a := 0; a < c.na; a++ {
		if isUnknown[a] {
			continue
		}
		g := int(c.attrGroup[a])
		c.vocab[g]++
		if c.attrTotal[a] == 1 {
			for y := 0; y < nl; y++ {
				c.hapax[g*nl+y] += c.attrLabel[a*nl+y]
			}
		}
	}
}

// emissions writes the smoothed log P(a | y, template(a)) into the state
// weights w (attribute-major), the unknown attributes' from the hapaxes.
func (c *counts) emissions(w []float64, alphaE float64) {
	nl := c.nl
	logDenom := make([]float64, c.ng*nl)
	for g := 0; g < c.ng; g++ {
		for y := 0; y < nl; y++ {
			total := c.groupLabel[g*nl+y] + alphaE*c.vocab[g]
			if c.withUnknown {
				total += c.hapax[g*nl+y] + alphaE
			}
			logDenom[g*nl+y] = math.Log(total)
		}
	}
	for a := 0; a < c.na; a++ {
		g := int(c.attrGroup[a])
		for y := 0; y < nl; y++ {
			w[a*nl+y] = math.Log(c.attrLabel[a*nl+y]+alphaE) - logDenom[g*nl+y]
		}
	}
	for g, a := range c.unknownAttrs {
		if a < 0 {
			continue
		}
		for y := 0; y < nl; y++ {
			if c.withUnknown {
				w[int(a)*nl+y] = math.Log(c.hapax[g*nl+y]+alphaE) - logDenom[g*nl+y]
			} else {
				w[int(a)*nl+y] = 0
			}
		}
	}
}

// transitions writes the smoothed log transition, start and stop
// probabilities into mt, ms and mz.
func (c *counts) transitions(mt, ms, mz []float64, alphaT float64) {
	nl := c.nl
	var sentences float64
	for y := 0; y < nl; y++ {
		sentences += c.start[y]
	}
	for prev := 0; prev < nl; prev++ {
		out := c.stop[prev]
		for y := 0; y < nl; y++ {
			out += c.trans[prev*nl+y]
		}
		denom := math.Log(out + alphaT*float64(nl+1))
		for y := 0; y < nl; y++ {
			mt[prev*nl+y] = math.Log(c.trans[prev*nl+y]+alphaT) - denom
		}
		mz[prev] = math.Log(c.stop[prev]+alphaT) - denom
	}
	for y := 0; y < nl; y++ {
		ms[y] = math.Log(c.start[y]+alphaT) - math.Log(sentences+alphaT*float64(nl))
	}
}
