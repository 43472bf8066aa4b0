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
//	emission "U05" {              # cells in literal text: U05=the/cat
//	  format = "{word[-1]}/{word[0]}"
//	}
//
// A format is literal text with cells "{column[offset]}"; "{{" and "}}"
// stand for literal braces. It is what `trellis import crfpp` turns a
// CRF++ template line into: the attribute's key is the block name, "=",
// and the text with every cell replaced by its value, so two templates
// never share an attribute.
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
	"strings"

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
	Format    string   `hcl:"format,optional" json:"format,omitempty"`
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
	kinds := 0
	for _, set := range []bool{c.Column != "", len(c.Join) > 0, c.Format != ""} {
		if set {
			kinds++
		}
	}
	switch {
	case kinds == 0:
		bad("Missing column", `An emission template needs "column" (with optional "offsets" and "ngram"), "join" or "format".`)
	case kinds > 1:
		bad("Conflicting attributes", `Use one of "column", "join" and "format".`)
	case c.Column == "" && (len(c.Offsets) > 0 || c.Ngram != 0):
		bad("Conflicting attributes", `"offsets" and "ngram" go with "column"; "join" and "format" name their own offsets as "column[offset]".`)
	}
	if c.Ngram < 0 || c.Ngram > 10 {
		bad("Invalid ngram", fmt.Sprintf("ngram must be between 1 and 10, got %d", c.Ngram))
	}
	for _, item := range c.Join {
		cell, err := parseCell(item)
		if err != nil {
			bad("Invalid join item", err.Error())
			continue
		}
		diags = append(diags, window.ValidateOffsets([]int{cell.off})...)
	}
	if c.Format != "" {
		f, err := ParseFormat(c.Format)
		if err != nil {
			bad("Invalid format", err.Error())
		}
		for _, cell := range f.Cells {
			diags = append(diags, window.ValidateOffsets([]int{cell.Offset})...)
		}
	}
	diags = append(diags, window.ValidateOffsets(c.Offsets)...)
	return diags
}

// cellRef is a "column[offset]" reference before its column is resolved.
type cellRef struct {
	column string
	off    int
}

func parseCell(item string) (cellRef, error) {
	m := joinItem.FindStringSubmatch(item)
	if m == nil {
		return cellRef{}, fmt.Errorf("%q is not of the form column[offset], e.g. \"word[-1]\"", item)
	}
	o, err := strconv.Atoi(m[2])
	if err != nil {
		return cellRef{}, fmt.Errorf("%q: offset %s is out of range", item, m[2])
	}
	return cellRef{m[1], o}, nil
}

// Format is a parsed format string: Literals[k] comes before Cells[k], and
// the last literal (len(Literals) == len(Cells)+1) after the last cell.
type Format struct {
	Literals []string
	Cells    []Cell
}

// Cell is one "{column[offset]}" of a format.
type Cell struct {
	Column string
	Offset int
}

// ParseFormat parses literal text with "{column[offset]}" cells; "{{" and
// "}}" are literal braces.
func ParseFormat(s string) (Format, error) {
	var f Format
	var lit []byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case (c == '{' || c == '}') && i+1 < len(s) && s[i+1] == c:
			lit = append(lit, c)
			i++
		case c == '}':
			return Format{}, fmt.Errorf("format %q: a lone \"}\" at byte %d (write \"}}\" for a literal brace)", s, i)
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return Format{}, fmt.Errorf("format %q: the cell at byte %d has no closing \"}\" (write \"{{\" for a literal brace)", s, i)
			}
			ref, err := parseCell(s[i+1 : i+end])
			if err != nil {
				return Format{}, fmt.Errorf("format %q: cell at byte %d: %v", s, i, err)
			}
			f.Literals = append(f.Literals, string(lit))
			f.Cells = append(f.Cells, Cell{ref.column, ref.off})
			lit = lit[:0]
			i += end
		default:
			lit = append(lit, c)
		}
	}
	f.Literals = append(f.Literals, string(lit))
	return f, nil
}

// EscapeLiteral returns s with its braces doubled, to stand for itself in
// a format.
func EscapeLiteral(s string) string {
	return strings.NewReplacer("{", "{{", "}", "}}").Replace(s)
}

// part is one (column, offset) factor of a conjunction and the literal
// text written before it.
type part struct {
	col, off int
	before   []byte
}

type extractor struct {
	lowercase, pad bool
	// groups[k] is one attribute: its key prefix, factors and final text.
	groups []group
	buf    []byte
}

var _ feature.ColumnReader = (*extractor)(nil)

type group struct {
	prefix []byte
	parts  []part
	tail   []byte
}

var bar = []byte("|")

// Compile implements feature.Template.
func (t *Template) Compile(name string, cols feature.Columns) (feature.Extractor, error) {
	c := &t.cfg
	x := &extractor{lowercase: c.Lowercase, pad: c.Pad, buf: make([]byte, 0, 256)}
	switch {
	case c.Format != "":
		f, err := ParseFormat(c.Format)
		if err != nil {
			return nil, err
		}
		g := group{prefix: []byte(name + "="), tail: []byte(f.Literals[len(f.Cells)])}
		for k, cell := range f.Cells {
			col, err := cols.Index(cell.Column)
			if err != nil {
				return nil, err
			}
			g.parts = append(g.parts, part{col, cell.Offset, []byte(f.Literals[k])})
		}
		x.groups = append(x.groups, g)
		return x, nil
	case len(c.Join) > 0:
		g := group{prefix: []byte(name + "=")}
		for k, item := range c.Join {
			ref, err := parseCell(item)
			if err != nil {
				return nil, err
			}
			col, err := cols.Index(ref.column)
			if err != nil {
				return nil, err
			}
			g.parts = append(g.parts, part{col, ref.off, separator(k)})
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
			g.parts = append(g.parts, part{col, o + k, separator(k)})
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

// separator is what comes before the k-th factor of a join or n-gram.
func separator(k int) []byte {
	if k == 0 {
		return nil
	}
	return bar
}

var _ feature.CellExtractor = (*extractor)(nil)

func (x *extractor) Extract(s *corpus.Sentence, sink feature.Sink) error {
	n := s.Len()
	for i := 0; i < n; i++ {
		for k := range x.groups {
			if x.inside(k, i, n) {
				x.buf = x.AppendKey(x.buf[:0], s, k, i)
				sink.Add(i, x.buf, 1)
			}
		}
	}
	return nil
}

// inside reports whether group k has an attribute at token i of an
// n-token sentence: every factor inside the sentence, or padding.
func (x *extractor) inside(k, i, n int) bool {
	if x.pad {
		return true
	}
	for _, p := range x.groups[k].parts {
		if j := i + p.off; j < 0 || j >= n {
			return false
		}
	}
	return true
}

// CellShapes implements feature.CellExtractor: one shape per group, its
// factors as cells.
func (x *extractor) CellShapes() []feature.CellShape {
	shapes := make([]feature.CellShape, len(x.groups))
	for k, g := range x.groups {
		shapes[k].Pad = x.pad
		for _, p := range g.parts {
			shapes[k].Cells = append(shapes[k].Cells, feature.Cell{Column: p.col, Offset: p.off})
		}
	}
	return shapes
}

// AppendKey implements feature.CellExtractor: the key of group k at
// token i, the one Extract adds.
func (x *extractor) AppendKey(dst []byte, s *corpus.Sentence, k, i int) []byte {
	g := &x.groups[k]
	n := s.Len()
	dst = append(dst, g.prefix...)
	for _, p := range g.parts {
		dst = append(dst, p.before...)
		switch j := i + p.off; {
		case j < 0 || j >= n:
			dst = appendPad(dst, j, n)
		case x.lowercase:
			dst = window.AppendLower(dst, s.Tokens[j][p.col])
		default:
			dst = append(dst, s.Tokens[j][p.col]...)
		}
	}
	return append(dst, g.tail...)
}

// appendPad appends the placeholder for position j of a sentence of n
// tokens, CRF++'s strings: "_B-1" for the token before the first, "_B-2"
// before that, "_B+1" for the token after the last, and so on.
func appendPad(dst []byte, j, n int) []byte {
	if j < 0 {
		dst = append(dst, "_B"...)
		return strconv.AppendInt(dst, int64(j), 10)
	}
	dst = append(dst, "_B+"...)
	return strconv.AppendInt(dst, int64(j-n+1), 10)
}
