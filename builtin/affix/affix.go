// Package affix is the builtin "prefix" and "suffix" templates: the first
// or last n characters (runes) of a column's value, for each n in lengths.
//
//	suffix "suf" {
//	  column  = "word"
//	  lengths = [1, 2, 3, 4]   # default
//	}
//
// A value shorter than n yields the whole value, as Python slicing does in
// CRFsuite's NER example (token[-4:] of "ab" is "ab").
package affix

import (
	"fmt"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/builtin/window"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

// Config is a prefix or suffix block.
type Config struct {
	Column    string `hcl:"column" json:"column"`
	Offsets   []int  `hcl:"offsets,optional" json:"offsets,omitempty"`
	Lowercase bool   `hcl:"lowercase,optional" json:"lowercase,omitempty"`
	Lengths   []int  `hcl:"lengths,optional" json:"lengths,omitempty"`
}

// window returns the column-and-offsets part. gohcl cannot decode
// embedded structs, so the fields are repeated rather than embedded.
func (c *Config) window() *window.Config {
	return &window.Config{Column: c.Column, Offsets: c.Offsets, Lowercase: c.Lowercase}
}

// Template is a prefix or a suffix template.
type Template struct {
	suffix bool
	cfg    Config
}

var _ feature.Template = (*Template)(nil)

// NewPrefix returns a zero prefix template.
func NewPrefix() feature.Template { return &Template{} }

// NewSuffix returns a zero suffix template.
func NewSuffix() feature.Template { return &Template{suffix: true} }

// Config implements feature.Template.
func (t *Template) Config() any { return &t.cfg }

func (t *Template) lengths() []int {
	if len(t.cfg.Lengths) == 0 {
		return []int{1, 2, 3, 4}
	}
	return t.cfg.Lengths
}

// Validate implements feature.Template.
func (t *Template) Validate() hcl.Diagnostics {
	diags := t.cfg.window().Validate()
	for _, n := range t.cfg.Lengths {
		if n < 1 || n > 64 {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Invalid length",
				Detail: fmt.Sprintf("lengths must be between 1 and 64, got %d", n),
			})
		}
	}
	return diags
}

type extractor struct {
	*window.Bound
	suffix  bool
	lengths []int
	// prefixes[k][l] is "name[offset]:n=" for offset k and length l.
	prefixes [][][]byte
}

var _ feature.ColumnReader = (*extractor)(nil)

// Compile implements feature.Template.
func (t *Template) Compile(name string, cols feature.Columns) (feature.Extractor, error) {
	b, err := t.cfg.window().Bind(name, cols)
	if err != nil {
		return nil, err
	}
	x := &extractor{Bound: b, suffix: t.suffix, lengths: t.lengths()}
	x.prefixes = b.NumberedPrefixes(name, x.lengths)
	return x, nil
}

func (x *extractor) Extract(s *corpus.Sentence, sink feature.Sink) error {
	n := s.Len()
	for i := 0; i < n; i++ {
		for k, o := range x.Offsets {
			j := i + o
			if j < 0 || j >= n {
				continue
			}
			v := s.Tokens[j][x.Column]
			for l, length := range x.lengths {
				key := append(x.Buf[:0], x.prefixes[k][l]...)
				key = x.AppendValue(key, affix(v, length, x.suffix))
				sink.Add(i, key, 1)
				x.Buf = key
			}
		}
	}
	return nil
}

// affix returns the first or last n runes of v (all of v if shorter).
func affix(v string, n int, suffix bool) string {
	if !suffix {
		for i := range v {
			if n == 0 {
				return v[:i]
			}
			n--
		}
		return v
	}
	end := len(v)
	for end > 0 && n > 0 {
		_, size := utf8.DecodeLastRuneInString(v[:end])
		end -= size
		n--
	}
	return v[end:]
}
