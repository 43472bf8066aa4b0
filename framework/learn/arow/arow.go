// Package arow is adaptive regularization of weight vectors (Crammer,
// Kulesza and Dredze 2009) for structured prediction, with a diagonal
// covariance, as CRFsuite offers it: every weight f has a variance σ_f
// (initially variance); where the decoded sequence ŷ differs from the
// gold y, with Δ = Φ(y) − Φ(ŷ) and ρ their Hamming distance,
//
//	loss = w·Φ(ŷ) − w·Φ(y) + ρ
//	α    = loss / (γ + Σ_f σ_f Δ_f²)
//	w_f ← w_f + α σ_f Δ_f
//	σ_f ← 1 / (1/σ_f + Δ_f² / γ)
//
// so weights seen often move less. Unlike CRFsuite, whose AROW returns the
// last weights, the weights are averaged over all steps by default
// (average = false gives CRFsuite's); epochs, shuffling, dev scoring and
// checkpoints (which hold the variances) are the online engine's
// (framework/learn/online). Trained by iterative parameter mixing
// (shards ≥ 2), each shard updates a copy of the mixed variances and the
// shards' variances are mixed with the same coefficients as their weights
// (the arithmetic mean under mix = "uniform"), so a feature's variance
// shrinks as fast as a shard sees it, not as fast as the whole corpus.
package arow

import (
	"context"
	"fmt"
	"math"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/online"
)

// Config is the arow learner block: the online learners' settings
// (online.Config) and AROW's own, named as in CRFsuite.
type Config struct {
	online.Config
	// Variance is every weight's initial variance (default 1).
	Variance *float64 `hcl:"variance,optional" json:"variance,omitempty"`
	// Gamma is the trade-off γ between keeping the weights and fitting
	// the current sentence (default 1).
	Gamma *float64 `hcl:"gamma,optional" json:"gamma,omitempty"`
}

// Learner is the AROW learner.
type Learner struct{ cfg Config }

// InitModel implements learn.Continuer.
func (l *Learner) InitModel() string { return l.cfg.InitModel }

var _ learn.Continuer = (*Learner)(nil)

var (
	_ learn.Learner           = (*Learner)(nil)
	_ learn.PairLearner       = (*Learner)(nil)
	_ learn.OrderLearner      = (*Learner)(nil)
	_ learn.CheckpointLearner = (*Learner)(nil)
)

// TrainsPairs implements learn.PairLearner: its updates along
// Φ(gold) − Φ(pred) include the pair features.
func (*Learner) TrainsPairs() bool { return true }

// TrainsSecondOrder implements learn.OrderLearner.
func (*Learner) TrainsSecondOrder() bool { return true }

// SavesCheckpoints implements learn.CheckpointLearner: the online
// trainer's epochs run on learn.Loop.
func (*Learner) SavesCheckpoints() bool { return true }

// New returns an AROW learner with CRFsuite's defaults.
func New() learn.Learner { return &Learner{} }

// Config implements learn.Learner.
func (l *Learner) Config() any { return &l.cfg }

func value(p *float64, def float64) float64 {
	if p == nil {
		return def
	}
	return *p
}

// Validate implements learn.Learner.
func (l *Learner) Validate() hcl.Diagnostics {
	diags := l.cfg.Config.Validate()
	for _, s := range []struct {
		name string
		v    *float64
	}{{"variance", l.cfg.Variance}, {"gamma", l.cfg.Gamma}} {
		if s.v != nil && (!(*s.v > 0) || math.IsInf(*s.v, 0)) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid arow setting",
				Detail: fmt.Sprintf("%s must be a finite number > 0, got %v", s.name, *s.v)})
		}
	}
	return diags
}

// Train implements learn.Learner.
func (l *Learner) Train(ctx context.Context, p *learn.Problem) (*learn.Result, error) {
	return l.trainWith(ctx, p, l.rule())
}

var _ online.Mixable = (*Learner)(nil)

// Rule implements online.Mixable: the update with the learner's settings.
func (l *Learner) Rule() online.Rule { return l.rule() }

// OnlineConfig implements online.Mixable.
func (l *Learner) OnlineConfig() *online.Config { return &l.cfg.Config }

func (l *Learner) rule() *Rule {
	return &Rule{Variance: value(l.cfg.Variance, 1), Gamma: value(l.cfg.Gamma, 1)}
}

func (l *Learner) trainWith(ctx context.Context, p *learn.Problem, r *Rule) (*learn.Result, error) {
	res, err := online.Train(ctx, p, "arow", &l.cfg.Config, r)
	if err != nil {
		return nil, err
	}
	res.Info["variance"], res.Info["gamma"] = r.Variance, r.Gamma
	return res, nil
}

// Rule is the AROW update (see the package doc). Sigma holds the
// variances, one per weight.
type Rule struct {
	Variance, Gamma float64
	Sigma           []float64
}

var (
	_ online.Rule   = (*Rule)(nil)
	_ online.Forker = (*Rule)(nil)
)

// Fork implements online.Forker: a rule with the same settings and
// variances of its own, for another shard replica under mixing.
func (r *Rule) Fork() online.Rule { return &Rule{Variance: r.Variance, Gamma: r.Gamma} }

// Start implements online.Rule: every variance starts at Variance.
func (r *Rule) Start(n int) {
	r.Sigma = make([]float64, n)
	for f := range r.Sigma {
		r.Sigma[f] = r.Variance
	}
}

// State implements online.Rule: checkpoints hold the variances.
func (r *Rule) State() []float64 { return r.Sigma }

// Update implements online.Rule: it leaves the weights alone when Δ is
// empty or the margin is already met.
func (r *Rule) Update(t *online.Trainer, tok0 int, gold, pred []int32, errors int) bool {
	feats, vals := t.Delta(tok0, gold, pred)
	if len(feats) == 0 {
		return false
	}
	loss := -t.Dot(feats, vals) + float64(errors)
	if loss <= 0 {
		return false
	}
	frac := r.Gamma
	for k, f := range feats {
		frac += vals[k] * vals[k] * r.Sigma[f]
	}
	alpha := loss / frac
	for k, f := range feats {
		v := vals[k]
		t.Add(int(f), alpha*r.Sigma[f]*v)
		r.Sigma[f] = 1 / (1/r.Sigma[f] + v*v/r.Gamma)
	}
	return true
}
