// Package hyphen is the builtin "hyphen" template: fires when the value
// contains a hyphen, a strong cue for compound modifiers and names.
//
//	hyphen "hyph" { column = "word" }
package hyphen

import (
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/builtin/window"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

// Template is the hyphen template.
type Template struct{ cfg window.Config }

var _ feature.Template = (*Template)(nil)

// New returns a zero hyphen template.
func New() feature.Template { return &Template{} }

// Config implements feature.Template.
func (t *Template) Config() any { return &t.cfg }

// Validate implements feature.Template.
func (t *Template) Validate() hcl.Diagnostics { return t.cfg.Validate() }

type extractor struct {
	*window.Bound
	keys [][]byte
}

var _ feature.ColumnReader = (*extractor)(nil)

// Compile implements feature.Template.
func (t *Template) Compile(name string, cols feature.Columns) (feature.Extractor, error) {
	b, err := t.cfg.Bind(name, cols)
	if err != nil {
		return nil, err
	}
	x := &extractor{Bound: b}
	for _, p := range b.Prefixes {
		x.keys = append(x.keys, append(append([]byte{}, p...), "=yes"...))
	}
	return x, nil
}

func (x *extractor) Extract(s *corpus.Sentence, sink feature.Sink) error {
	n := s.Len()
	for i := 0; i < n; i++ {
		for k, o := range x.Offsets {
			if j := i + o; j >= 0 && j < n && strings.IndexByte(s.Tokens[j][x.Column], '-') >= 0 {
				sink.Add(i, x.keys[k], 1)
			}
		}
	}
	return nil
}
