// This file holds the history feature space of a decisions template: its
// fixed layout of attribute names, built once from the label set, and
// Active, the one function that says which of them fire at a position
// given the labels assigned before it.

package transition

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/linear"
	"github.com/trellis-nlp/trellis/framework/scheme"
)

// MaxPrevious is the longest label history read as one n-gram.
const MaxPrevious = 3

// maxDocTypes bounds the label types the document features tell apart
// (a type set is a 64-bit mask).
const maxDocTypes = 64

// ErrTooManyTypes is the error of a document setting on a label set with
// more than 64 types.
var ErrTooManyTypes = errors.New("transition: the document history tells apart at most 64 label types")

// Layout is the history feature space of one decisions template over one
// label set: H attributes, attribute h conjoined with every label y (the
// weight of history feature (h, y) is element h*L+y of a dense [H][L]
// matrix). The attributes are, in order:
//
//   - for n = 2 … Previous, the n previous labels as one n-gram
//     ("NAME/prevN=A|B", oldest first, "<s>" before the sentence):
//     (L+1)^n attributes each;
//   - with Span, the open span ("NAME/span=none", "NAME/span=TYPE:1", …
//     "TYPE:4+"): 1 + 4·T attributes, T the span types;
//   - with Document, "NAME/seen=TYPE" for each type given to an earlier
//     occurrence of the token's word in the document, and "NAME/first=TYPE"
//     for the first occurrence's type: 2·D attributes, D the label types
//     (a label's type is what follows its span prefix; O is a type).
//
// A Layout is read only after NewLayout: searches share it.
type Layout struct {
	d     feature.Decisions
	l     int
	names []string
	// ngram[n] is the first attribute of the n-grams of n previous labels
	// (n ≥ 2; unused entries -1); span and doc the first span and document
	// attributes (-1 without them).
	ngram     [MaxPrevious + 1]int
	span, doc int
	// spanType[y] is label y's span type (-1 outside a span); starts is
	// an [L+1][L] matrix whose element [p][c] says that label c after p
	// (p = L: the sentence start) opens a span, as conlleval reads it;
	// closes[y] says that y (E-, S-) ends its span.
	spanType []int32
	starts   []bool
	closes   []bool
	// docType[y] is label y's type for the document features.
	docType []int32
	nDoc    int
}

// NewLayout lays out the history features of the decisions template
// named name with settings d over the labels (in ID order).
func NewLayout(name string, d feature.Decisions, labels []string) (*Layout, error) {
	l := len(labels)
	lay := &Layout{d: d, l: l, span: -1, doc: -1}
	for n := range lay.ngram {
		lay.ngram[n] = -1
	}
	if d.Previous > MaxPrevious {
		return nil, fmt.Errorf("transition: previous = %d, at most %d", d.Previous, MaxPrevious)
	}
	sym := func(y int) string {
		if y == l {
			return "<s>"
		}
		return labels[y]
	}
	for n := 2; n <= d.Previous; n++ {
		lay.ngram[n] = len(lay.names)
		count := pow(l+1, n)
		parts := make([]string, n)
		for idx := 0; idx < count; idx++ {
			// Digit m-1 of idx (base L+1) is the label m positions back.
			v := idx
			for m := 1; m <= n; m++ {
				parts[n-m] = sym(v % (l + 1))
				v /= l + 1
			}
			lay.names = append(lay.names, fmt.Sprintf("%s/prev%d=%s", name, n, strings.Join(parts, "|")))
		}
	}
	lay.chunks(labels)
	if d.Span {
		lay.span = len(lay.names)
		lay.names = append(lay.names, name+"/span=none")
		for _, t := range spanTypes(labels) {
			for b := 1; b <= 4; b++ {
				suffix := fmt.Sprint(b)
				if b == 4 {
					suffix = "4+"
				}
				lay.names = append(lay.names, fmt.Sprintf("%s/span=%s:%s", name, t, suffix))
			}
		}
	}
	if d.Document {
		types := docTypes(labels)
		if len(types) > maxDocTypes {
			return nil, ErrTooManyTypes
		}
		lay.doc, lay.nDoc = len(lay.names), len(types)
		lay.docType = make([]int32, l)
		for y, lab := range labels {
			lay.docType[y] = int32(slices.Index(types, docTypeOf(lab)))
		}
		for _, t := range types {
			lay.names = append(lay.names, fmt.Sprintf("%s/seen=%s", name, t))
		}
		for _, t := range types {
			lay.names = append(lay.names, fmt.Sprintf("%s/first=%s", name, t))
		}
	}
	return lay, nil
}

// chunks fills spanType, starts and closes from conlleval's reading of the
// labels (scheme.Chunks on one and two labels).
func (lay *Layout) chunks(labels []string) {
	l := len(labels)
	types := spanTypes(labels)
	lay.spanType = make([]int32, l)
	lay.closes = make([]bool, l)
	for y, lab := range labels {
		tag, typ := scheme.Split(lab)
		lay.spanType[y] = -1
		if tag != "O" && tag != "." {
			lay.spanType[y] = int32(slices.Index(types, typ))
		}
		lay.closes[y] = tag == "E" || tag == "S"
	}
	lay.starts = make([]bool, (l+1)*l)
	var buf []scheme.Chunk
	for c := 0; c < l; c++ {
		buf = scheme.Chunks(buf[:0], []string{labels[c]}, scheme.None)
		lay.starts[l*l+c] = len(buf) > 0
		for p := 0; p < l; p++ {
			buf = scheme.Chunks(buf[:0], []string{labels[p], labels[c]}, scheme.None)
			lay.starts[p*l+c] = len(buf) > 0 && buf[len(buf)-1].Start == 1
		}
	}
}

// spanTypes are the labels' span types, sorted.
func spanTypes(labels []string) []string {
	var ts []string
	for _, lab := range labels {
		tag, typ := scheme.Split(lab)
		if tag != "O" && tag != "." && !slices.Contains(ts, typ) {
			ts = append(ts, typ)
		}
	}
	slices.Sort(ts)
	return ts
}

// docTypeOf is a label's type for the document features: what follows
// its prefix (B-PER: PER), or the label itself when it has none (O).
func docTypeOf(label string) string {
	if _, typ := scheme.Split(label); typ != "" {
		return typ
	}
	return label
}

// docTypes are the labels' document types, sorted.
func docTypes(labels []string) []string {
	var ts []string
	for _, lab := range labels {
		if t := docTypeOf(lab); !slices.Contains(ts, t) {
			ts = append(ts, t)
		}
	}
	slices.Sort(ts)
	return ts
}

func pow(b, e int) int {
	r := 1
	for ; e > 0; e-- {
		r *= b
	}
	return r
}

// Names are the H attribute names, in layout order.
func (lay *Layout) Names() []string { return lay.names }

// H is the number of history attributes.
func (lay *Layout) H() int {
	if lay == nil {
		return 0
	}
	return len(lay.names)
}

// Labels is the number of labels the layout was built for.
func (lay *Layout) Labels() int { return lay.l }

// Decisions are the template settings the layout was built from.
func (lay *Layout) Decisions() feature.Decisions { return lay.d }

// Context is what a sentence's history features read beside its labels:
// the document keys of its tokens and the document's committed history.
type Context struct {
	// Keys[i] identifies token i's word in its document (Keys.Key), -1
	// for none; nil without document features.
	Keys []int32
	// PrevSame[i] is the last position before i with the same key, -1 for
	// none (SetKeys fills it).
	PrevSame []int32
	// Doc holds the types given in the document's earlier sentences; nil
	// reads as empty.
	Doc *Document
}

// SetKeys sets the sentence's keys and fills PrevSame (reusing its
// buffer; O(n²) over a sentence, which allocates nothing).
func (c *Context) SetKeys(keys []int32) {
	c.Keys = keys
	c.PrevSame = c.PrevSame[:0]
	for i, k := range keys {
		prev := int32(-1)
		if k >= 0 {
			for j := i - 1; j >= 0; j-- {
				if keys[j] == k {
					prev = int32(j)
					break
				}
			}
		}
		c.PrevSame = append(c.PrevSame, prev)
	}
}

// Active appends to dst the history attributes that fire at position i
// after the labels prefix[:i] (the sentence's earlier decisions) in
// context c, and returns it. It is the one definition of the history
// features: searches score with it and learners update with it.
func (lay *Layout) Active(dst []int32, prefix []int32, i int, c *Context) []int32 {
	if lay == nil {
		return dst
	}
	l := lay.l
	for n := 2; n <= lay.d.Previous; n++ {
		idx, mul := 0, 1
		for m := 1; m <= n; m++ {
			s := l // the start symbol before the sentence
			if i-m >= 0 {
				s = int(prefix[i-m])
			}
			idx += s * mul
			mul *= l + 1
		}
		dst = append(dst, int32(lay.ngram[n]+idx))
	}
	if lay.span >= 0 {
		dst = append(dst, int32(lay.span+lay.openSpan(prefix, i)))
	}
	if lay.doc >= 0 && c != nil && c.Keys != nil && c.Keys[i] >= 0 {
		dst = lay.document(dst, prefix, i, c)
	}
	return dst
}

// openSpan is the offset, within the span attributes, of the span open
// after prefix[:i]: 0 for none, else 1 + type·4 + bucket (length 1, 2, 3,
// 4+ as 0…3).
func (lay *Layout) openSpan(prefix []int32, i int) int {
	if i == 0 {
		return 0
	}
	c := prefix[i-1]
	if lay.spanType[c] < 0 || lay.closes[c] {
		return 0
	}
	l := lay.l
	j := i - 1
	for j > 0 && !lay.starts[int(prefix[j-1])*l+int(prefix[j])] {
		j--
	}
	return 1 + int(lay.spanType[c])*4 + min(i-j, 4) - 1
}

// document appends the document attributes of position i: the types seen
// at earlier occurrences of its key (the committed ones, then those along
// prefix) and the first occurrence's type.
func (lay *Layout) document(dst []int32, prefix []int32, i int, c *Context) []int32 {
	e, committed := c.Doc.entry(c.Keys[i])
	seen, first := e.seen, e.first
	if !committed {
		first = -1
	}
	for j := c.PrevSame[i]; j >= 0; j = c.PrevSame[j] {
		t := lay.docType[prefix[j]]
		seen |= 1 << uint(t)
		if !committed {
			first = t // the walk goes backwards: the last one met is the earliest
		}
	}
	for t := 0; t < lay.nDoc; t++ {
		if seen&(1<<uint(t)) != 0 {
			dst = append(dst, int32(lay.doc+t))
		}
	}
	if first >= 0 {
		dst = append(dst, int32(lay.doc+lay.nDoc+int(first)))
	}
	return dst
}

// Weights gathers a model's history weights into dst, an [H][L] matrix
// whose element h*L+y is the weight of (attrs[h], y) in m (0 when m has no
// such feature), and returns it. attrs[h] is the model attribute of
// history attribute h: the names of Layout.Names, looked up in the
// model's attribute list.
func Weights(dst []float64, m *linear.Model, attrs []int32) []float64 {
	l := m.NumLabels
	dst = append(dst[:0], make([]float64, len(attrs)*l)...)
	for h, a := range attrs {
		for f := m.FeatOff[a]; f < m.FeatOff[a+1]; f++ {
			dst[h*l+int(m.FeatLabel[f])] = m.W[f]
		}
	}
	return dst
}
