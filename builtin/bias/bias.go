// Package bias is the builtin "bias" template: one attribute on every
// token, which gives discriminative learners a per-label prior.
//
//	bias "bias" {}
package bias

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

// Template is the bias template.
type Template struct{ cfg struct{} }

var _ feature.Template = (*Template)(nil)

// New returns a bias template.
func New() feature.Template { return &Template{} }

// Config implements feature.Template.
func (t *Template) Config() any { return &t.cfg }

// Validate implements feature.Template.
func (t *Template) Validate() hcl.Diagnostics { return nil }

type extractor struct{ key []byte }

var _ feature.ColumnReader = (*extractor)(nil)

// Compile implements feature.Template.
func (t *Template) Compile(name string, _ feature.Columns) (feature.Extractor, error) {
	return &extractor{key: []byte(name)}, nil
}

// ReadColumns implements feature.ColumnReader: bias reads no column.
func (x *extractor) ReadColumns() []int { return nil }

func (x *extractor) Extract(s *corpus.Sentence, sink feature.Sink) error {
	for i := 0; i < s.Len(); i++ {
		sink.Add(i, x.key, 1)
	}
	return nil
}
