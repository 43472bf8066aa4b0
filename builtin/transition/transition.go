// Package transition is the builtin "transition" template: label bigram
// weights (plus start and stop weights). Without it a spec describes a
// per-token classifier. order = 2 makes the model second order: a weight
// for each label trigram seen in training as well (y[i] conditioned on
// y[i-2] and y[i-1]).
//
//	transition "trans" {}
//	transition "trans" { order = 2 }
package transition

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/feature"
)

// Config is the transition template's settings. A first-order template's
// config is {} in a model file, as before the setting existed.
type Config struct {
	// Order is the Markov order: 1 (the default) or 2.
	Order int `hcl:"order,optional" json:"order,omitempty"`
}

// Template is the transition template. It emits no attributes: it switches
// on the model's transition weights.
type Template struct {
	cfg Config
}

var _ feature.OrderTemplate = (*Template)(nil)

// New returns a transition template.
func New() feature.Template { return &Template{} }

// Config implements feature.Template.
func (t *Template) Config() any { return &t.cfg }

// Validate implements feature.Template.
func (t *Template) Validate() hcl.Diagnostics {
	if o := t.cfg.Order; o != 0 && o != 1 && o != 2 {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid order",
			Detail: fmt.Sprintf("order must be 1 (label bigrams) or 2 (label trigrams too, a second-order model), got %d.", o)}}
	}
	return nil
}

// Order implements feature.OrderTemplate.
func (t *Template) Order() int { return max(t.cfg.Order, 1) }

// Compile implements feature.Template; there is nothing to extract.
func (t *Template) Compile(string, feature.Columns) (feature.Extractor, error) { return nil, nil }

// Transitions implements feature.StructureTemplate.
func (t *Template) Transitions() bool { return true }
