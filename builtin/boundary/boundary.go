// Package boundary is the builtin "boundary" template: an attribute on the
// first token ("=BOS") and one on the last ("=EOS"), as CRFsuite's example
// extractors add __BOS__ and __EOS__.
//
//	boundary "bound" {}
package boundary

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

// Template is the boundary template.
type Template struct{ cfg struct{} }

var _ feature.Template = (*Template)(nil)

// New returns a boundary template.
func New() feature.Template { return &Template{} }

// Config implements feature.Template.
func (t *Template) Config() any { return &t.cfg }

// Validate implements feature.Template.
func (t *Template) Validate() hcl.Diagnostics { return nil }

type extractor struct{ bos, eos []byte }

var _ feature.ColumnReader = (*extractor)(nil)

// Compile implements feature.Template.
func (t *Template) Compile(name string, _ feature.Columns) (feature.Extractor, error) {
	return &extractor{bos: []byte(name + "=BOS"), eos: []byte(name + "=EOS")}, nil
}

// ReadColumns implements feature.ColumnReader: the boundary attributes
// depend on positions only.
func (x *extractor) ReadColumns() []int { return nil }

func (x *extractor) Extract(s *corpus.Sentence, sink feature.Sink) error {
	if n := s.Len(); n > 0 {
		sink.Add(0, x.bos, 1)
		sink.Add(n-1, x.eos, 1)
	}
	return nil
}
