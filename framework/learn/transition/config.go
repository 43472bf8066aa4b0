// Package transition is the transition-based labeler (learner type
// "transition"): labels are assigned left to right by the search of
// framework/transition, whose scores may read the whole decision history
// (a decisions template), and the weights are trained as a structured
// averaged perceptron on that search:
//
//   - beam ≥ 2: beam search with early update (Collins & Roark 2004: stop
//     at the first position where the gold prefix falls out of the beam
//     and update toward it against the beam's best prefix) or
//     max-violation update (Huang et al. 2012: search to the end, update
//     at the prefix length where the best prefix beats the gold one by
//     most);
//   - beam = 1: greedy search trained on roll-ins (DAgger-style, Ross et
//     al. 2011): at each position the history is gold with probability
//     β_epoch and the model's own prediction otherwise, and the update is
//     toward the gold label given the history actually rolled in (for a
//     per-token loss, the dynamic oracle's label). β_epoch = beta ·
//     beta_decay^(epoch−1), the draws seeded from the spec.
//
// The model is one linear.Model: the history attributes (transition.Layout)
// are appended to the mapper's attributes with a weight for every label
// (learn.Result.ExtraAttrs), and the model header records the search width
// (learn.Result.SearchBeam) that tagging and dev scoring decode with.
package transition

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/online"
)

// Config is the learner block.
type Config struct {
	// Epochs is the number of passes over the training data (default 10).
	Epochs *int `hcl:"epochs,optional" json:"epochs,omitempty"`
	// Beam is the search width, in training and tagging (default 1:
	// greedy).
	Beam *int `hcl:"beam,optional" json:"beam,omitempty"`
	// Update is the beam perceptron's update: "early" (the default) or
	// "max_violation". Only beam ≥ 2 takes it.
	Update string `hcl:"update,optional" json:"update,omitempty"`
	// Beta is the probability that greedy training's roll-in follows the
	// gold label in the first epoch (default 1); BetaDecay multiplies it
	// every epoch (default 0.5). Only beam = 1 takes them.
	Beta      *float64 `hcl:"beta,optional" json:"beta,omitempty"`
	BetaDecay *float64 `hcl:"beta_decay,optional" json:"beta_decay,omitempty"`
	// Shuffle, Average, BestEpoch and Features are the online learners'.
	online.Common
}

// Defaults.
const (
	DefaultEpochs    = 10
	DefaultBeam      = 1
	DefaultBeta      = 1.0
	DefaultBetaDecay = 0.5
)

// Update is the beam perceptron's update rule (a mode, not a flag).
type Update int

const (
	// Early stops at the first position where gold leaves the beam.
	Early Update = iota
	// MaxViolation updates at the prefix of largest violation.
	MaxViolation
)

func (u Update) String() string {
	if u == MaxViolation {
		return "max_violation"
	}
	return "early"
}

// parseUpdate reads the update setting.
func parseUpdate(s string) (Update, bool) {
	switch s {
	case "", "early":
		return Early, true
	case "max_violation":
		return MaxViolation, true
	}
	return Early, false
}

func num[T any](v *T, def T) T {
	if v == nil {
		return def
	}
	return *v
}

// beam is the configured width.
func (c *Config) beam() int { return num(c.Beam, DefaultBeam) }

// Validate checks the settings; details begin with the setting's name,
// where the spec places them.
func (c *Config) Validate() hcl.Diagnostics {
	var diags hcl.Diagnostics
	bad := func(summary, detail string, args ...any) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, args...)})
	}
	if e := c.Epochs; e != nil && (*e < 1 || *e > 100000) {
		bad("Invalid epochs", "epochs must be between 1 and 100000, got %d", *e)
	}
	if b := c.Beam; b != nil && (*b < 1 || *b > 1024) {
		bad("Invalid beam width", "beam must be between 1 (greedy) and 1024, got %d", *b)
	}
	if _, ok := parseUpdate(c.Update); !ok {
		bad("Invalid update", `update must be "early" (the default) or "max_violation", got %q`, c.Update)
	}
	if c.Update != "" && c.beam() == 1 {
		bad("Update without a beam", `update is the beam perceptron's (beam ≥ 2); greedy search (beam = 1) trains by roll-ins (beta, beta_decay). Set beam or remove update.`)
	}
	for _, s := range []struct {
		name string
		v    *float64
	}{{"beta", c.Beta}, {"beta_decay", c.BetaDecay}} {
		if s.v == nil {
			continue
		}
		if !(*s.v >= 0 && *s.v <= 1) {
			bad("Invalid "+s.name, "%s must be between 0 and 1, got %v", s.name, *s.v)
		}
		if c.beam() > 1 {
			bad("Roll-in setting with a beam", "%s is greedy training's roll-in (beam = 1); beam search trains by its update. Remove %s or the beam.", s.name, s.name)
		}
	}
	diags = append(diags, learn.ValidateFeatures(c.Features)...)
	return diags
}
