// Package history is the builtin "history" template: Ratinov & Roth's
// (2009) extended prediction history for two-stage models. It reads a
// word column and a column of labels a first-stage learner predicted (a
// learner's stage block makes one) and, for each token, aggregates the
// labels predicted for the other occurrences of its word (compared
// case-insensitively) in its document:
//
//   - "NAME/has=TYPE" for every label type predicted at some other
//     occurrence (the type is the label without a one-letter span prefix:
//     B-PER and I-PER are PER; O stays O);
//
//   - "NAME/maj=TYPE" for the type predicted most often at the other
//     occurrences (ties go to the type first in byte order);
//
//   - with first = true, "NAME/first=TYPE" for a token whose word occurred
//     earlier in the document: the type predicted at its first occurrence
//     (a name's first mention is usually its fullest, "Mr John Smith"
//     before "Smith").
//
// A token whose word occurs nowhere else in its document gets nothing.
// The block:
//
//	history "hist" {
//	  column    = "word" # the words whose occurrences are grouped
//	  predicted = "pred" # the first stage's labels (the stage's column)
//	  first     = false  # also the type at the word's first occurrence
//	}
//
// Documents are the corpus's (corpus.Sentence.Document), as for the
// document template; the extractor is a feature.DocumentExtractor that
// indexes a batch once and then extracts without allocating.
package history

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/builtin/window"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

// Config is the template's block.
type Config struct {
	Column    string `hcl:"column" json:"column"`
	Predicted string `hcl:"predicted" json:"predicted"`
	First     bool   `hcl:"first,optional" json:"first,omitempty"`
}

// Template is the history template.
type Template struct{ cfg Config }

var _ feature.Template = (*Template)(nil)

// New returns a zero history template.
func New() feature.Template { return &Template{} }

// Config implements feature.Template.
func (t *Template) Config() any { return &t.cfg }

// Validate implements feature.Template.
func (t *Template) Validate() hcl.Diagnostics {
	if t.cfg.Column == t.cfg.Predicted {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Same column twice",
			Detail: fmt.Sprintf("predicted = %q is the words' column; it names the column of a first stage's labels (a learner's stage column).", t.cfg.Predicted)}}
	}
	return nil
}

// Compile implements feature.Template.
func (t *Template) Compile(name string, cols feature.Columns) (feature.Extractor, error) {
	col, err := cols.Index(t.cfg.Column)
	if err != nil {
		return nil, err
	}
	pred, err := cols.Index(t.cfg.Predicted)
	if err != nil {
		return nil, err
	}
	return &extractor{column: col, predicted: pred, name: name, first: t.cfg.First, keys: map[string]typeKeys{},
		words: map[string]int32{}, docs: map[docKey]int32{}, types: map[wordKey]int32{}, labels: map[string]int32{},
		sentOff: map[*corpus.Sentence]int32{}}, nil
}

type docKey struct {
	file string
	doc  int
}

// wordKey is a word in a document, whose occurrences are grouped.
type wordKey struct{ doc, word int32 }

// typeKeys are the attribute keys of one label type.
type typeKeys struct{ has, maj, first []byte }

// extractor indexes a batch (Documents) and extracts sentence by
// sentence. Tokens of the batch live in flat arrays; a sentence's start
// at sentOff[s]. counts[g*L+y] is how often label type y was predicted
// for word group g, L the batch's number of label types.
type extractor struct {
	column, predicted int
	name              string
	first             bool
	keys              map[string]typeKeys // by label type, kept across batches

	words   map[string]int32
	docs    map[docKey]int32
	types   map[wordKey]int32
	labels  map[string]int32 // label type → its ID in this batch
	typeOf  []typeKeys       // by label ID
	names   []string         // by label ID
	sentOff map[*corpus.Sentence]int32
	tokWord []int32 // the token's word group
	tokPred []int32 // the token's predicted label type
	counts  []int32
	firstOf []int32 // by word group: the flat index of its first token
	groups  int
	buf     []byte
}

var (
	_ feature.DocumentExtractor = (*extractor)(nil)
	_ feature.ColumnReader      = (*extractor)(nil)
)

// ReadColumns implements feature.ColumnReader.
func (x *extractor) ReadColumns() []int { return []int{x.column, x.predicted} }

// labelType is a label without a one-letter span prefix ("B-PER" → "PER").
func labelType(label string) string {
	if len(label) > 2 && label[1] == '-' {
		return label[2:]
	}
	return label
}

// Documents implements feature.DocumentExtractor.
func (x *extractor) Documents(sents []*corpus.Sentence) error {
	if len(sents) == 0 { // release the index and its buffers
		x.words, x.docs, x.types, x.labels = map[string]int32{}, map[docKey]int32{}, map[wordKey]int32{}, map[string]int32{}
		x.sentOff = map[*corpus.Sentence]int32{}
		x.typeOf, x.names, x.tokWord, x.tokPred, x.counts, x.firstOf = nil, nil, nil, nil, nil, nil
		return nil
	}
	clear(x.words)
	clear(x.docs)
	clear(x.types)
	clear(x.labels)
	clear(x.sentOff)
	x.typeOf, x.names, x.tokWord, x.tokPred = x.typeOf[:0], x.names[:0], x.tokWord[:0], x.tokPred[:0]
	for _, s := range sents {
		if _, dup := x.sentOff[s]; dup {
			continue
		}
		x.sentOff[s] = int32(len(x.tokWord))
		dk := docKey{s.File, s.Document}
		d, ok := x.docs[dk]
		if !ok {
			d = int32(len(x.docs))
			x.docs[dk] = d
		}
		for _, row := range s.Tokens {
			x.tokWord = append(x.tokWord, x.group(d, row[x.column]))
			x.tokPred = append(x.tokPred, x.label(labelType(row[x.predicted])))
		}
	}
	x.groups = len(x.types)
	L := len(x.names)
	x.counts = append(x.counts[:0], make([]int32, x.groups*L)...)
	x.firstOf = append(x.firstOf[:0], make([]int32, x.groups)...)
	for t := len(x.tokWord) - 1; t >= 0; t-- {
		g := x.tokWord[t]
		x.counts[int(g)*L+int(x.tokPred[t])]++
		x.firstOf[g] = int32(t)
	}
	return nil
}

// group returns the ID of word w's group in document d.
func (x *extractor) group(d int32, w string) int32 {
	x.buf = window.AppendLower(x.buf[:0], w)
	id, ok := x.words[string(x.buf)]
	if !ok {
		id = int32(len(x.words))
		x.words[string(x.buf)] = id
	}
	wk := wordKey{d, id}
	g, ok := x.types[wk]
	if !ok {
		g = int32(len(x.types))
		x.types[wk] = g
	}
	return g
}

// label returns the batch ID of label type y.
func (x *extractor) label(y string) int32 {
	id, ok := x.labels[y]
	if ok {
		return id
	}
	k, ok := x.keys[y]
	if !ok {
		k = typeKeys{has: []byte(x.name + "/has=" + y), maj: []byte(x.name + "/maj=" + y), first: []byte(x.name + "/first=" + y)}
		x.keys[y] = k
	}
	id = int32(len(x.names))
	x.labels[y] = id
	x.names = append(x.names, y)
	x.typeOf = append(x.typeOf, k)
	return id
}

// Extract implements feature.Extractor for a sentence of the last batch
// handed to Documents.
func (x *extractor) Extract(s *corpus.Sentence, sink feature.Sink) error {
	off, ok := x.sentOff[s]
	if !ok {
		return fmt.Errorf("history features: the sentence was not in the batch of documents indexed (an encoder that skipped Documents)")
	}
	L := len(x.names)
	for i := range s.Len() {
		t := int(off) + i
		row := x.counts[int(x.tokWord[t])*L : (int(x.tokWord[t])+1)*L]
		best, bestN := -1, int32(0)
		for y, n := range row {
			if int32(y) == x.tokPred[t] {
				n-- // the token's own prediction is not its history
			}
			if n == 0 {
				continue
			}
			sink.Add(i, x.typeOf[y].has, 1)
			if n > bestN || (n == bestN && strings.Compare(x.names[y], x.names[best]) < 0) {
				best, bestN = y, n
			}
		}
		if best >= 0 {
			sink.Add(i, x.typeOf[best].maj, 1)
		}
		if f := x.firstOf[x.tokWord[t]]; x.first && int(f) < t {
			sink.Add(i, x.typeOf[x.tokPred[f]].first, 1)
		}
	}
	return nil
}
