// Package shape is the builtin "shape" and "case" templates.
//
// shape maps every character to a class: upper-case letters to X,
// lower-case to x, digits to d, anything else to itself ("McDonald's" →
// "XxXxxxxx'x"); kind = "compact" collapses runs ("XxXx'x"), as CRFsuite's
// NER example does with its "shaped" feature.
//
//	shape "shape" { column = "word" }
//	shape "shp"   { column = "word", kind = "compact" }
//
// case emits one class per value: "upper" (letters all upper-case), "lower",
// "title" (one upper-case letter first, the rest lower), "mixed", or
// "none" (no letters).
//
//	case "case" { column = "word" }
package shape

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/builtin/window"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

// Config is a shape block.
type Config struct {
	Column    string `hcl:"column" json:"column"`
	Offsets   []int  `hcl:"offsets,optional" json:"offsets,omitempty"`
	Lowercase bool   `hcl:"lowercase,optional" json:"lowercase,omitempty"`
	Kind      string `hcl:"kind,optional" json:"kind,omitempty"`
}

// window returns the column-and-offsets part. gohcl cannot decode
// embedded structs, so the fields are repeated rather than embedded.
func (c *Config) window() *window.Config {
	return &window.Config{Column: c.Column, Offsets: c.Offsets, Lowercase: c.Lowercase}
}

// Template is the shape template.
type Template struct{ cfg Config }

var _ feature.Template = (*Template)(nil)

// New returns a zero shape template.
func New() feature.Template { return &Template{} }

// Config implements feature.Template.
func (t *Template) Config() any { return &t.cfg }

// Validate implements feature.Template.
func (t *Template) Validate() hcl.Diagnostics {
	diags := t.cfg.window().Validate()
	switch t.cfg.Kind {
	case "", "full", "compact":
	default:
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "Invalid shape kind",
			Detail: fmt.Sprintf(`kind must be "full" or "compact", got %q`, t.cfg.Kind),
		})
	}
	return diags
}

type shapeExtractor struct {
	*window.Bound
	compact bool
}

var _ feature.ColumnReader = (*shapeExtractor)(nil)

// Compile implements feature.Template.
func (t *Template) Compile(name string, cols feature.Columns) (feature.Extractor, error) {
	b, err := t.cfg.window().Bind(name, cols)
	if err != nil {
		return nil, err
	}
	return &shapeExtractor{Bound: b, compact: t.cfg.Kind == "compact"}, nil
}

func class(r rune) rune {
	switch {
	case unicode.IsUpper(r):
		return 'X'
	case unicode.IsLower(r), unicode.IsLetter(r):
		return 'x'
	case unicode.IsDigit(r):
		return 'd'
	}
	return r
}

func (x *shapeExtractor) Extract(s *corpus.Sentence, sink feature.Sink) error {
	n := s.Len()
	for i := 0; i < n; i++ {
		for k, o := range x.Offsets {
			j := i + o
			if j < 0 || j >= n {
				continue
			}
			key := append(append(x.Buf[:0], x.Prefixes[k]...), '=')
			last := rune(-1)
			for _, r := range s.Tokens[j][x.Column] {
				c := class(r)
				if x.compact && c == last {
					continue
				}
				last = c
				key = utf8.AppendRune(key, c)
			}
			sink.Add(i, key, 1)
			x.Buf = key
		}
	}
	return nil
}

// CaseTemplate is the case template.
type CaseTemplate struct{ cfg window.Config }

var _ feature.Template = (*CaseTemplate)(nil)

// NewCase returns a zero case template.
func NewCase() feature.Template { return &CaseTemplate{} }

// Config implements feature.Template.
func (t *CaseTemplate) Config() any { return &t.cfg }

// Validate implements feature.Template.
func (t *CaseTemplate) Validate() hcl.Diagnostics { return t.cfg.Validate() }

var caseNames = []string{"upper", "lower", "title", "mixed", "none"}

type caseExtractor struct {
	*window.Bound
	keys [][][]byte
}

var _ feature.ColumnReader = (*caseExtractor)(nil)

// Compile implements feature.Template.
func (t *CaseTemplate) Compile(name string, cols feature.Columns) (feature.Extractor, error) {
	b, err := t.cfg.Bind(name, cols)
	if err != nil {
		return nil, err
	}
	x := &caseExtractor{Bound: b}
	for _, p := range b.Prefixes {
		var row [][]byte
		for _, c := range caseNames {
			row = append(row, append(append(append([]byte{}, p...), '='), c...))
		}
		x.keys = append(x.keys, row)
	}
	return x, nil
}

func caseClass(v string) int {
	upper, lower, firstUpper, first := 0, 0, false, true
	for _, r := range v {
		switch {
		case unicode.IsUpper(r):
			upper++
			if first {
				firstUpper = true
			}
		case unicode.IsLower(r):
			lower++
		default:
			if !unicode.IsLetter(r) {
				first = false
				continue
			}
		}
		first = false
	}
	switch {
	case upper == 0 && lower == 0:
		return 4
	case lower == 0:
		return 0
	case upper == 0:
		return 1
	case upper == 1 && firstUpper:
		return 2
	}
	return 3
}

func (x *caseExtractor) Extract(s *corpus.Sentence, sink feature.Sink) error {
	n := s.Len()
	for i := 0; i < n; i++ {
		for k, o := range x.Offsets {
			if j := i + o; j >= 0 && j < n {
				sink.Add(i, x.keys[k][caseClass(s.Tokens[j][x.Column])], 1)
			}
		}
	}
	return nil
}
