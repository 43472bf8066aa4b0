// Package suffixtrie is the builtin "suffix_trie" template: a token's
// path in a suffix trie, for the TnT learner's unknown-word model (Brants
// 2000). A word of n runes emits, in this order,
//
//	name:C:0=        the root: the empty suffix
//	name:C:1=s       its last rune
//	name:C:2=es      its last two runes
//	…                up to min(n, max_length) runes
//
// where C is "U" for a word whose first rune is upper case and "l"
// otherwise, so capitalized and uncapitalized words have tries of their
// own (TnT's separate suffix models). Unlike the suffix template, no
// length exceeds the word: each attribute is one trie node, and each
// token's attributes come root first, each the parent of the next, which
// is what the tnt learner reads (the encoder keeps a token's attributes of
// one template in the order they are added).
//
//	suffix_trie "suffix" {
//	  column     = "form"
//	  max_length = 10   # the default, Brants (2000)
//	}
package suffixtrie

import (
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

// DefaultMaxLength is TnT's longest suffix (Brants 2000, section 2.3).
const DefaultMaxLength = 10

// Config is a suffix_trie block.
type Config struct {
	Column    string `hcl:"column" json:"column"`
	MaxLength *int   `hcl:"max_length,optional" json:"max_length,omitempty"`
}

// Template is the suffix_trie template.
type Template struct{ cfg Config }

var _ feature.Template = (*Template)(nil)

// New returns a zero suffix_trie template.
func New() feature.Template { return &Template{} }

// Config implements feature.Template.
func (t *Template) Config() any { return &t.cfg }

func (t *Template) maxLength() int {
	if t.cfg.MaxLength == nil {
		return DefaultMaxLength
	}
	return *t.cfg.MaxLength
}

// Validate implements feature.Template.
func (t *Template) Validate() hcl.Diagnostics {
	if n := t.maxLength(); n < 1 || n > 64 {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid max_length",
			Detail: fmt.Sprintf("max_length must be between 1 and 64 (runes; TnT uses 10), got %d", n)}}
	}
	return nil
}

type extractor struct {
	column int
	max    int
	// prefixes[c][n] is "name:C:n=" for case class c (0 lower, 1 upper).
	prefixes [2][][]byte
	buf      []byte
}

var _ feature.ColumnReader = (*extractor)(nil)

// Compile implements feature.Template.
func (t *Template) Compile(name string, cols feature.Columns) (feature.Extractor, error) {
	col, err := cols.Index(t.cfg.Column)
	if err != nil {
		return nil, err
	}
	x := &extractor{column: col, max: t.maxLength(), buf: make([]byte, 0, 128)}
	for c, class := range []string{"l", "U"} {
		for n := 0; n <= x.max; n++ {
			x.prefixes[c] = append(x.prefixes[c], []byte(name+":"+class+":"+strconv.Itoa(n)+"="))
		}
	}
	return x, nil
}

// ReadColumns implements feature.ColumnReader.
func (x *extractor) ReadColumns() []int { return []int{x.column} }

// Extract implements feature.Extractor.
func (x *extractor) Extract(s *corpus.Sentence, sink feature.Sink) error {
	for i, tok := range s.Tokens {
		v := tok[x.column]
		class := 0
		if Capitalized(v) {
			class = 1
		}
		end := len(v)
		for n := 0; n <= x.max; n++ {
			if n > 0 {
				if end == 0 {
					break
				}
				_, size := utf8.DecodeLastRuneInString(v[:end])
				end -= size
			}
			key := append(x.buf[:0], x.prefixes[class][n]...)
			key = append(key, v[end:]...)
			sink.Add(i, key, 1)
			x.buf = key
		}
	}
	return nil
}

// Capitalized reports whether w's first rune is upper case: TnT's
// capitalized words.
func Capitalized(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}
