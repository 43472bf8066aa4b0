// Package pa is the structured passive-aggressive learner (Crammer et al.
// 2006) as CRFsuite offers it: decode each training sentence with the
// current weights and, where the best sequence ŷ differs from the gold y,
// move the weights along Δ = Φ(y) − Φ(ŷ) by the smallest step that gives
// the gold sequence a margin of √ρ(y, ŷ) over ŷ, ρ being the Hamming
// distance (the cost-sensitive update; 1 without error_sensitive):
//
//	loss = w·Φ(ŷ) − w·Φ(y) + √ρ
//	τ = loss / ‖Δ‖²                 (PA,    pa_type = 0)
//	τ = min(c, loss / ‖Δ‖²)          (PA-I,  pa_type = 1, the default)
//	τ = loss / (‖Δ‖² + 1 / (2c))     (PA-II, pa_type = 2)
//	w ← w + τ·Δ
//
// The returned weights are averaged over all steps, like the perceptron's;
// epochs, shuffling, dev scoring and checkpoints are the online engine's
// (framework/learn/online).
package pa

import (
	"context"
	"fmt"
	"math"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/online"
)

// Config is the pa learner block: the online learners' settings
// (online.Config) and PA's own, named as in CRFsuite.
type Config struct {
	online.Config
	// Type is 0 (PA), 1 (PA-I, the default) or 2 (PA-II): CRFsuite's
	// "type", named pa_type as in sklearn-crfsuite because a learner
	// block's type is the learner's.
	Type *int `hcl:"pa_type,optional" json:"pa_type,omitempty"`
	// C is the aggressiveness of PA-I and PA-II (default 1).
	C *float64 `hcl:"c,optional" json:"c,omitempty"`
	// ErrorSensitive makes the margin √(Hamming distance) rather than 1
	// (default true).
	ErrorSensitive *bool `hcl:"error_sensitive,optional" json:"error_sensitive,omitempty"`
}

// Learner is the passive-aggressive learner.
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

// New returns a PA-I learner with CRFsuite's defaults.
func New() learn.Learner { return &Learner{} }

// Config implements learn.Learner.
func (l *Learner) Config() any { return &l.cfg }

var _ online.Mixable = (*Learner)(nil)

// Rule implements online.Mixable: the update with the learner's settings.
func (l *Learner) Rule() online.Rule { return l.rule() }

// OnlineConfig implements online.Mixable.
func (l *Learner) OnlineConfig() *online.Config { return &l.cfg.Config }

func (l *Learner) rule() *Rule {
	r := &Rule{Type: 1, C: 1, ErrorSensitive: online.Flag(l.cfg.ErrorSensitive, true)}
	if l.cfg.Type != nil {
		r.Type = *l.cfg.Type
	}
	if l.cfg.C != nil {
		r.C = *l.cfg.C
	}
	return r
}

// Validate implements learn.Learner.
func (l *Learner) Validate() hcl.Diagnostics {
	diags := l.cfg.Config.Validate()
	if t := l.cfg.Type; t != nil && (*t < 0 || *t > 2) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid pa type",
			Detail: fmt.Sprintf("pa_type must be 0 (PA), 1 (PA-I) or 2 (PA-II), got %d", *t)})
	}
	if c := l.cfg.C; c != nil && (!(*c > 0) || math.IsInf(*c, 0)) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid pa setting",
			Detail: fmt.Sprintf("c must be a finite number > 0, got %v", *c)})
	}
	return diags
}

// Train implements learn.Learner.
func (l *Learner) Train(ctx context.Context, p *learn.Problem) (*learn.Result, error) {
	r := l.rule()
	res, err := online.Train(ctx, p, "pa", &l.cfg.Config, r)
	if err != nil {
		return nil, err
	}
	res.Info["pa_type"], res.Info["c"], res.Info["error_sensitive"] = r.Type, r.C, r.ErrorSensitive
	return res, nil
}

// Rule is the passive-aggressive update (see the package doc).
type Rule struct {
	Type           int
	C              float64
	ErrorSensitive bool
}

var _ online.Rule = (*Rule)(nil)

// Start implements online.Rule.
func (*Rule) Start(int) {}

// State implements online.Rule: PA keeps nothing but the weights.
func (*Rule) State() []float64 { return nil }

// Update implements online.Rule: it leaves the weights alone when Δ is
// zero or the margin is already met.
func (r *Rule) Update(t *online.Trainer, tok0 int, gold, pred []int32, errors int) bool {
	feats, vals := t.Delta(tok0, gold, pred)
	norm2 := 0.0
	for _, v := range vals {
		norm2 += v * v
	}
	if norm2 == 0 {
		return false // the two sequences have the same features: no direction to move in
	}
	loss := -t.Dot(feats, vals) + 1
	if r.ErrorSensitive {
		loss = -t.Dot(feats, vals) + math.Sqrt(float64(errors))
	}
	if loss <= 0 {
		return false
	}
	tau := r.Tau(loss, norm2)
	for k, f := range feats {
		t.Add(int(f), tau*vals[k])
	}
	return true
}

// Tau is the step size for a loss and ‖Δ‖².
func (r *Rule) Tau(loss, norm2 float64) float64 {
	switch r.Type {
	case 0:
		return loss / norm2
	case 1:
		return math.Min(r.C, loss/norm2)
	default:
		return loss / (norm2 + 0.5/r.C)
	}
}
