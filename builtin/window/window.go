// Package window holds what most builtin templates share: reading one
// column at a set of offsets around the current token, and building
// attribute keys in a reused buffer so extraction allocates nothing.
package window

import (
	"fmt"
	"strconv"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

// Config is the column-and-offsets part of a template block.
type Config struct {
	Column    string `hcl:"column" json:"column"`
	Offsets   []int  `hcl:"offsets,optional" json:"offsets,omitempty"`
	Lowercase bool   `hcl:"lowercase,optional" json:"lowercase,omitempty"`
}

// MaxOffset bounds offsets so a typo (offsets = [1000000]) is reported
// instead of silently producing a template that never fires.
const MaxOffset = 100

// OffsetsOrDefault returns the offsets, [0] when none are given.
func (c *Config) OffsetsOrDefault() []int {
	if len(c.Offsets) == 0 {
		return []int{0}
	}
	return c.Offsets
}

// Validate checks the offsets.
func (c *Config) Validate() hcl.Diagnostics {
	return ValidateOffsets(c.Offsets)
}

// ValidateOffsets reports offsets out of [-MaxOffset, MaxOffset].
func ValidateOffsets(offsets []int) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, o := range offsets {
		if o < -MaxOffset || o > MaxOffset {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Offset out of range",
				Detail:   fmt.Sprintf("offset %d is outside [-%d, %d]", o, MaxOffset, MaxOffset),
			})
		}
	}
	return diags
}

// Bound is a Config compiled against a corpus's columns.
type Bound struct {
	Column    int
	Offsets   []int
	Lowercase bool
	// Prefixes[k] is "name[offset]" for Offsets[k], precomputed so keys
	// cost one append.
	Prefixes [][]byte
	Buf      []byte
}

// Bind resolves the column and precomputes key prefixes.
func (c *Config) Bind(name string, cols feature.Columns) (*Bound, error) {
	col, err := cols.Index(c.Column)
	if err != nil {
		return nil, err
	}
	b := &Bound{Column: col, Offsets: c.OffsetsOrDefault(), Lowercase: c.Lowercase}
	for _, o := range b.Offsets {
		b.Prefixes = append(b.Prefixes, []byte(OffsetPrefix(name, o)))
	}
	b.Buf = make([]byte, 0, 256)
	return b, nil
}

// NumberedPrefixes returns, for each offset of b and each n of ns, the key
// prefix "name[offset]:n=" (keys[k][l] for Offsets[k] and ns[l]): the
// templates that emit one attribute per length (prefix, suffix, clusters).
func (b *Bound) NumberedPrefixes(name string, ns []int) [][][]byte {
	keys := make([][][]byte, len(b.Offsets))
	for k, o := range b.Offsets {
		for _, n := range ns {
			keys[k] = append(keys[k], []byte(OffsetPrefix(name, o)+":"+strconv.Itoa(n)+"="))
		}
	}
	return keys
}

// OffsetPrefix is the key prefix of a template at an offset: "w[-1]".
func OffsetPrefix(name string, offset int) string {
	return name + "[" + strconv.Itoa(offset) + "]"
}

// Each calls fn for every (token, offset index, value) with the value at
// token+offset inside the sentence; positions outside are skipped, as
// CRFsuite's example feature extractors do.
func (b *Bound) Each(s *corpus.Sentence, fn func(i, k int, value string)) {
	n := s.Len()
	for i := 0; i < n; i++ {
		for k, o := range b.Offsets {
			j := i + o
			if j < 0 || j >= n {
				continue
			}
			fn(i, k, s.Tokens[j][b.Column])
		}
	}
}

// ReadColumns implements feature.ColumnReader for the extractors built on
// a Bound.
func (b *Bound) ReadColumns() []int { return []int{b.Column} }

var _ feature.ColumnReader = (*Bound)(nil)

// AppendValue appends v to dst, lowercased if the template asks for it.
func (b *Bound) AppendValue(dst []byte, v string) []byte {
	if b.Lowercase {
		return AppendLower(dst, v)
	}
	return append(dst, v...)
}

// AppendLower is feature.AppendLower, kept under its old name for the
// templates that import it from here.
func AppendLower(dst []byte, s string) []byte { return feature.AppendLower(dst, s) }
