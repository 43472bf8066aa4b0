// Package emission is the builtin "emission" template: the value of a
// column at one or more offsets, alone or joined into a conjunction.
//
//	emission "w" {                # w[-1]=the, w[0]=cat, … one attribute per offset
//	  column  = "word"
//	  offsets = [-2, -1, 0, 1, 2]
//	}
//	emission "pos3" {             # n-grams starting at each offset: pos[-1]=DT|NN|VBZ
//	  column  = "pos"
//	  offsets = [-2, -1, 0]
//	  ngram   = 3
//	}
//	emission "w_p" {              # any conjunction, CRF++ %x[-1,0]/%x[0,1] style
//	  join = ["word[-1]", "pos[0]"]
//	}
//
// A position outside the sentence produces no attribute (as in CRFsuite's
// example extractors) unless pad = true, which emits CRF++-style "_B-1",
// "_B+1" placeholders instead.
package emission

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/builtin/window"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

// Config is the emission block.
type Config struct {
	Column    string   `hcl:"column,optional" json:"column,omitempty"`
	Offsets   []int    `hcl:"offsets,optional" json:"offsets,omitempty"`
	Ngram     int      `hcl:"ngram,optional" json:"ngram,omitempty"`
	Join      []string `hcl:"join,optional" json:"join,omitempty"`
	Lowercase bool     `hcl:"lowercase,optional" json:"lowercase,omitempty"`
	Pad       bool     `hcl:"pad,optional" json:"pad,omitempty"`
}

// Template is the emission template.
type Template struct{ cfg Config }

var _ feature.Template = (*Template)(nil)

// New returns a zero emission template.
func New() feature.Template { return &Template{} }

// Config implements feature.Template.
func (t *Template) Config() any { return &t.cfg }

var joinItem = regexp.MustCompile(`^([^\[\]]+)\[(-?\d+)\]$`)

// Validate implements feature.Template.
func (t *Template) Validate() hcl.Diagnostics {
	c := &t.cfg
	var diags hcl.Diagnostics
	bad := func(summary, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail})
	}
	switch {
	case c.Column == "" && len(c.Join) == 0:
		bad("Missing column", `An emission template needs either "column" (with optional "offsets" and "ngram") or "join".`)
	case c.Column != "" && len(c.Join) > 0:
		bad("Conflicting attributes", `Use either "column" or "join", not both.`)
	case len(c.Join) > 0 && (len(c.Offsets) > 0 || c.Ngram != 0):
		bad("Conflicting attributes", `"offsets" and "ngram" go with "column"; "join" lists its own offsets as "column[offset]".`)
	}
	if c.Ngram < 0 || c.Ngram > 10 {
		bad("Invalid ngram", fmt.Sprintf("ngram must be between 1 and 10, got %d", c.Ngram))
	}
	for _, item := range c.Join {
		m := joinItem.FindStringSubmatch(item)
		if m == nil {
			bad("Invalid join item", fmt.Sprintf("%q is not of the form column[offset], e.g. \"word[-1]\"", item))
			continue
		}
		o, _ := strconv.Atoi(m[2])
		diags = append(diags, window.ValidateOffsets([]int{o})...)
	}
	diags = append(diags, window.ValidateOffsets(c.Offsets)...)
	return diags
}

// part is one (column, offset) factor of a conjunction.
type part struct{ col, off int }

type extractor struct {
	lowercase, pad bool
	// groups[k] is one attribute: its key prefix and its factors.
	groups []group
	buf    []byte
}

var _ feature.ColumnReader = (*extractor)(nil)

type group struct {
	prefix []byte
	parts  []part
}

// Compile implements feature.Template.
func (t *Template) Compile(name string, cols feature.Columns) (feature.Extractor, error) {
	c := &t.cfg
	x := &extractor{lowercase: c.Lowercase, pad: c.Pad, buf: make([]byte, 0, 256)}
	if len(c.Join) > 0 {
		g := group{prefix: []byte(name + "=")}
		for _, item := range c.Join {
			m := joinItem.FindStringSubmatch(item)
			if m == nil {
				return nil, fmt.Errorf("invalid join item %q", item)
			}
			col, err := cols.Index(m[1])
			if err != nil {
				return nil, err
			}
			o, _ := strconv.Atoi(m[2])
			g.parts = append(g.parts, part{col, o})
		}
		x.groups = append(x.groups, g)
		return x, nil
	}
	col, err := cols.Index(c.Column)
	if err != nil {
		return nil, err
	}
	n := c.Ngram
	if n == 0 {
		n = 1
	}
	offsets := c.Offsets
	if len(offsets) == 0 {
		offsets = []int{0}
	}
	for _, o := range offsets {
		g := group{prefix: []byte(window.OffsetPrefix(name, o) + "=")}
		for k := 0; k < n; k++ {
			g.parts = append(g.parts, part{col, o + k})
		}
		x.groups = append(x.groups, g)
	}
	return x, nil
}

// ReadColumns implements feature.ColumnReader: the columns of every factor.
func (x *extractor) ReadColumns() []int {
	var cols []int
	for _, g := range x.groups {
		for _, p := range g.parts {
			if !slices.Contains(cols, p.col) {
				cols = append(cols, p.col)
			}
		}
	}
	return cols
}

func (x *extractor) Extract(s *corpus.Sentence, sink feature.Sink) error {
	n := s.Len()
	for i := 0; i < n; i++ {
	groups:
		for _, g := range x.groups {
			key := append(x.buf[:0], g.prefix...)
			for k, p := range g.parts {
				if k > 0 {
					key = append(key, '|')
				}
				j := i + p.off
				if j < 0 || j >= n {
					if !x.pad {
						continue groups
					}
					key = appendPad(key, j, n)
					continue
				}
				if x.lowercase {
					key = window.AppendLower(key, s.Tokens[j][p.col])
				} else {
					key = append(key, s.Tokens[j][p.col]...)
				}
			}
			sink.Add(i, key, 1)
			x.buf = key
		}
	}
	return nil
}

func appendPad(dst []byte, j, n int) []byte {
	if j < 0 {
		dst = append(dst, "_B"...)
		return strconv.AppendInt(dst, int64(j), 10)
	}
	dst = append(dst, "_B+"...)
	return strconv.AppendInt(dst, int64(j-n+1), 10)
}
