// Package transition is the builtin "transition" template: label bigram
// weights (plus start and stop weights). Without it a spec describes a
// per-token classifier.
//
//	transition "trans" {}
package transition

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/feature"
)

// Template is the transition template. It emits no attributes: it switches
// on the model's transition weights.
type Template struct {
	cfg struct{}
}

var _ feature.StructureTemplate = (*Template)(nil)

// New returns a transition template.
func New() feature.Template { return &Template{} }

// Config implements feature.Template.
func (t *Template) Config() any { return &t.cfg }

// Validate implements feature.Template.
func (t *Template) Validate() hcl.Diagnostics { return nil }

// Compile implements feature.Template; there is nothing to extract.
func (t *Template) Compile(string, feature.Columns) (feature.Extractor, error) { return nil, nil }

// Transitions implements feature.StructureTemplate.
func (t *Template) Transitions() bool { return true }
