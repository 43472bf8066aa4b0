// Package digit is the builtin "digit" template: classes of tokens made of
// or containing digits, which matter for numbers, dates, codes and years.
//
//	digit "dig" { column = "word" }
//
// It emits every class that applies: "has" (some digit), "all" (only
// digits), "2d" and "4d" (exactly two or four digits, as in CRFsuite's NER
// example: days, years), "alnum" (digits and letters), "num" (digits with
// number punctuation only: 1,000 3.5 1/2 10-12).
package digit

import (
	"unicode"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/builtin/window"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

// Template is the digit template.
type Template struct{ cfg window.Config }

var _ feature.Template = (*Template)(nil)

// New returns a zero digit template.
func New() feature.Template { return &Template{} }

// Config implements feature.Template.
func (t *Template) Config() any { return &t.cfg }

// Validate implements feature.Template.
func (t *Template) Validate() hcl.Diagnostics { return t.cfg.Validate() }

const (
	classHas = iota
	classAll
	class2d
	class4d
	classAlnum
	classNum
	numClasses
)

var classNames = [numClasses]string{"has", "all", "2d", "4d", "alnum", "num"}

type extractor struct {
	*window.Bound
	keys [][numClasses][]byte
}

var _ feature.ColumnReader = (*extractor)(nil)

// Compile implements feature.Template.
func (t *Template) Compile(name string, cols feature.Columns) (feature.Extractor, error) {
	b, err := t.cfg.Bind(name, cols)
	if err != nil {
		return nil, err
	}
	x := &extractor{Bound: b, keys: make([][numClasses][]byte, len(b.Offsets))}
	for k, p := range b.Prefixes {
		for c, cn := range classNames {
			x.keys[k][c] = append(append(append([]byte{}, p...), '='), cn...)
		}
	}
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
			var digits, letters, numPunct, other int
			for _, r := range s.Tokens[j][x.Column] {
				switch {
				case r >= '0' && r <= '9' || unicode.IsDigit(r):
					digits++
				case unicode.IsLetter(r):
					letters++
				case r == ',' || r == '.' || r == '/' || r == '-' || r == ':':
					numPunct++
				default:
					other++
				}
			}
			if digits == 0 {
				continue
			}
			keys := &x.keys[k]
			sink.Add(i, keys[classHas], 1)
			if letters == 0 && numPunct == 0 && other == 0 {
				sink.Add(i, keys[classAll], 1)
				switch digits {
				case 2:
					sink.Add(i, keys[class2d], 1)
				case 4:
					sink.Add(i, keys[class4d], 1)
				}
			}
			if letters > 0 {
				sink.Add(i, keys[classAlnum], 1)
			}
			if numPunct > 0 && letters == 0 && other == 0 {
				sink.Add(i, keys[classNum], 1)
			}
		}
	}
	return nil
}
