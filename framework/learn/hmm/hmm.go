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

var _ learn.Learner = (*Learner)(nil)

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

// Train implements learn.Learner.
func (l *Learner) Train(ctx context.Context, p *learn.Problem) (*learn.Result, error) {
	alphaE, alphaT := l.alphas()
	if p.Mapper == nil {
		return nil, fmt.Errorf("hmm: the problem has no feature mapper (the HMM normalizes per template)")
	}
	d := p.Train
	nl, na, ng := p.NumLabels, p.NumAttrs, p.Mapper.NumGroups()
	attrGroup, unknownAttrs := p.Mapper.AttrGroups(), p.Mapper.UnknownAttrs()
	if len(attrGroup) != na {
		return nil, fmt.Errorf("hmm: the feature mapper has template groups for %d attributes, the problem %d", len(attrGroup), na)
	}
	withUnknown := l.cfg.Unknown != "drop"

	attrLabel := make([]float64, na*nl)
	attrTotal := make([]float64, na)
	groupLabel := make([]float64, ng*nl)
	trans := make([]float64, nl*nl)
	start := make([]float64, nl)
	stop := make([]float64, nl)
	for s := 0; s < d.NumSentences(); s++ {
		if s%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
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
				attrLabel[int(a)*nl+int(y)] += v
				attrTotal[a] += v
				groupLabel[int(attrGroup[a])*nl+int(y)] += v
			}
			switch {
			case t == lo:
				start[y]++
			case prev >= 0:
				trans[int(prev)*nl+int(y)]++
			}
			prev = y
		}
		if hi > lo && d.Labels[hi-1] >= 0 {
			stop[d.Labels[hi-1]]++
		}
	}

	isUnknown := make([]bool, na)
	if withUnknown {
		for _, a := range unknownAttrs {
			if a >= 0 {
				isUnknown[a] = true
			}
		}
	}
	// Values seen exactly once stand in for the unknown ones.
	hapax := make([]float64, ng*nl)
	vocab := make([]float64, ng)
	for a := 0; a < na; a++ {
		if isUnknown[a] {
			continue
		}
		g := int(attrGroup[a])
		vocab[g]++
		if attrTotal[a] == 1 {
			for y := 0; y < nl; y++ {
				hapax[g*nl+y] += attrLabel[a*nl+y]
			}
		}
	}

	m := linear.NewDense(na, nl, p.Transitions)
	logDenom := make([]float64, ng*nl)
	for g := 0; g < ng; g++ {
		for y := 0; y < nl; y++ {
			total := groupLabel[g*nl+y] + alphaE*vocab[g]
			if withUnknown {
				total += hapax[g*nl+y] + alphaE
			}
			logDenom[g*nl+y] = math.Log(total)
		}
	}
	for a := 0; a < na; a++ {
		g := int(attrGroup[a])
		for y := 0; y < nl; y++ {
			m.W[a*nl+y] = math.Log(attrLabel[a*nl+y]+alphaE) - logDenom[g*nl+y]
		}
	}
	for g, a := range unknownAttrs {
		if a < 0 {
			continue
		}
		for y := 0; y < nl; y++ {
			if withUnknown {
				m.W[int(a)*nl+y] = math.Log(hapax[g*nl+y]+alphaE) - logDenom[g*nl+y]
			} else {
				m.W[int(a)*nl+y] = 0
			}
		}
	}
	res := &learn.Result{Model: m, Info: map[string]any{"emission_smoothing": alphaE, "transition_smoothing": alphaT}}

	if p.Transitions {
		mt, ms, mz := m.Trans(), m.Start(), m.Stop()
		var sentences float64
		for y := 0; y < nl; y++ {
			sentences += start[y]
		}
		for prev := 0; prev < nl; prev++ {
			out := stop[prev]
			for y := 0; y < nl; y++ {
				out += trans[prev*nl+y]
			}
			denom := math.Log(out + alphaT*float64(nl+1))
			for y := 0; y < nl; y++ {
				mt[prev*nl+y] = math.Log(trans[prev*nl+y]+alphaT) - denom
			}
			mz[prev] = math.Log(stop[prev]+alphaT) - denom
		}
		for y := 0; y < nl; y++ {
			ms[y] = math.Log(start[y]+alphaT) - math.Log(sentences+alphaT*float64(nl))
		}
	}
	p.Log.Info().Int("attributes", na).Int("labels", nl).Int("templates", ng).Msg("hmm counted")
	return res, nil
}
