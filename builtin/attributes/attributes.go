// Package attributes is the builtin "attributes" template: every attribute
// of a corpus in CRFsuite's format, as the file gives it, with its value.
// It is how feature files made for CRFsuite train unchanged.
//
//	attributes "crf" {}    # "w[0]=He" with value 1, "len:3" as "len" with value 3
//
// or, with prefix = true, the same attributes keyed "crf=w[0]=He" and
// "crf=len":
//
//	attributes "crf" {
//	  prefix = true
//	}
//
// Fields are read with corpus.AppendCRFsuiteAttribute: "name" or
// "name:value", "\:" and "\\" escaped in names. A non-finite value is an
// error naming its token and the token's line.
//
// By default attribute names are kept exactly as in the file, unlike
// other templates, which prefix their attributes with the block label: a
// model then holds the names a CRFsuite user knows. The price is that an
// attribute can coincide with another template's ("bias" and a bias
// template named "bias"), and two attributes templates emit the same
// keys; prefix = true keeps them apart.
package attributes

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

// Column is the corpus column the template reads: the crfsuite format's
// column holding every field after the label.
const Column = "attributes"

// Config is the attributes block.
type Config struct {
	// Prefix puts the block label and "=" before every attribute name.
	Prefix bool `hcl:"prefix,optional" json:"prefix,omitempty"`
}

// Template is the attributes template.
type Template struct{ cfg Config }

var _ feature.Template = (*Template)(nil)

// New returns a zero attributes template.
func New() feature.Template { return &Template{} }

// Config implements feature.Template.
func (t *Template) Config() any { return &t.cfg }

// Validate implements feature.Template.
func (t *Template) Validate() hcl.Diagnostics { return nil }

// Compile implements feature.Template.
func (t *Template) Compile(name string, cols feature.Columns) (feature.Extractor, error) {
	col, err := cols.Index(Column)
	if err != nil {
		return nil, fmt.Errorf(`the attributes template reads the %q column of a corpus in CRFsuite's format (format = %q): %w`, Column, corpus.NameCRFsuite, err)
	}
	x := &extractor{col: col, buf: make([]byte, 0, 256)}
	// In the crfsuite format "attributes" is the last column and every
	// field from it to the end of the row is an attribute. Anywhere else
	// (a conll file with such a column) only that one field is.
	x.tail = col == len(cols.Names)-1
	if t.cfg.Prefix {
		x.buf = append(x.buf, name+"="...)
	}
	x.prefix = len(x.buf)
	return x, nil
}

type extractor struct {
	col    int
	tail   bool
	prefix int    // length of the key prefix at the start of buf
	buf    []byte // reused key buffer, holding the prefix
}

var _ feature.ColumnReader = (*extractor)(nil)

// ReadColumns implements feature.ColumnReader.
func (x *extractor) ReadColumns() []int { return []int{x.col} }

// Extract implements feature.Extractor.
func (x *extractor) Extract(s *corpus.Sentence, sink feature.Sink) error {
	for i, row := range s.Tokens {
		if x.col >= len(row) {
			continue
		}
		fields := row[x.col : x.col+1]
		if x.tail {
			fields = row[x.col:]
		}
		for _, f := range fields {
			if f == "" {
				continue // the padding of a token without attributes
			}
			key, value, err := corpus.AppendCRFsuiteAttribute(x.buf[:x.prefix], f)
			if err != nil {
				return locate(s, i, err)
			}
			sink.Add(i, key, value)
			x.buf = key
		}
	}
	return nil
}

// locate names token i and its line in err. The file and the sentence's
// first line are not added: feature.Encoder puts "file:line: " before
// every extractor error, and the token's own line is what finds a bad
// value in a large feature file.
func locate(s *corpus.Sentence, i int, err error) error {
	if i < len(s.TokenLineNo) && s.TokenLineNo[i] > 0 {
		return fmt.Errorf("token %d (line %d): %w", i+1, s.TokenLineNo[i], err)
	}
	return fmt.Errorf("token %d: %w", i+1, err) // a sentence built in code has no lines
}
