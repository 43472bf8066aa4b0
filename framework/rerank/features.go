// features.go holds the global features of a whole labeling: label
// n-grams, span types, each span's length, shape and words, document
// consistency, and the first pass's rank and score. Keys are built in a
// reused buffer and interned in a Dict; once a list is prepared, a
// candidate's extraction allocates nothing but new dictionary entries.
package rerank

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/trellis-nlp/trellis/framework/scheme"
)

// The feature groups a Settings.Features list names.
const (
	GroupNGram = "ngram" // label bigrams and trigrams
	GroupTypes = "types" // how many spans of each type, and in all
	GroupSpan  = "span"  // each span's type with its length and shape
	GroupWords = "words" // each span's type with its first, last, whole, previous and next words
	GroupDoc   = "doc"   // the types the document's other sentences give the same words and strings
	GroupRank  = "rank"  // the first pass's rank, bucketed
)

// Groups are every feature group, in the order they are extracted.
var Groups = []string{GroupNGram, GroupTypes, GroupSpan, GroupWords, GroupDoc, GroupRank}

// groupSet is a set of groups, a bit per index in Groups.
type groupSet uint8

func parseGroups(names []string) (groupSet, error) {
	if names == nil {
		names = Groups
	}
	var g groupSet
	for _, n := range names {
		k := slices.Index(Groups, n)
		if k < 0 {
			return 0, fmt.Errorf("%w: unknown feature group %q (have %s)", ErrSettings, n, strings.Join(Groups, ", "))
		}
		g |= 1 << k
	}
	return g, nil
}

func (g groupSet) has(name string) bool { return g&(1<<slices.Index(Groups, name)) != 0 }

// Buckets, as constant strings so that keys need no formatting.
var (
	lengthBuckets = []string{"0", "1", "2", "3", "4", "5+"}
	countBuckets  = []string{"0", "1", "2", "3", "4+"}
	rankBuckets   = []string{"0", "1", "2", "3-4", "3-4", "5-9", "5-9", "5-9", "5-9", "5-9"}
)

func bucket(b []string, n int) string { return b[min(n, len(b)-1)] }

func rankBucket(r int) string {
	switch {
	case r < len(rankBuckets):
		return rankBuckets[r]
	case r < 20:
		return "10-19"
	}
	return "20+"
}

// Extractor extracts candidates' features into a Dict. Prepare a list,
// then call Candidate for each of its candidates. Not safe for concurrent
// use: its buffers are reused from candidate to candidate.
type Extractor struct {
	dict   *Dict
	groups groupSet
	// Lowercased words and shapes, cached across lists.
	lower, shape map[string]string

	// The prepared list: its words' lowercase forms and shapes ([n]), its
	// 1-best's chunks, and major, an [n] slice whose element i is the
	// type the document's other sentences most often give word i ("" when
	// it is not capitalized or not seen elsewhere).
	list   *List
	docs   *DocIndex
	lw, sh []string
	own    []scheme.Chunk
	ownTyp []int32
	major  []string

	// Per-candidate scratch: its chunks, typ (an [n] slice whose element i
	// is token i's type, outside for none), type counts, key buffer.
	chunks []scheme.Chunk
	typ    []string
	tcount []typeCount
	row    []int32
	buf    []byte
	ids    []int32
}

type typeCount struct {
	typ string
	n   int
}

// NewExtractor extracts the named groups (nil: all) into dict.
func NewExtractor(dict *Dict, groups []string) (*Extractor, error) {
	g, err := parseGroups(groups)
	if err != nil {
		return nil, err
	}
	return &Extractor{dict: dict, groups: g, lower: map[string]string{}, shape: map[string]string{}}, nil
}

// Prepare readies the extractor for l's candidates; docs (nil: no
// document features) must index the lists l belongs to, l included.
func (e *Extractor) Prepare(l *List, docs *DocIndex) {
	e.list, e.docs = l, docs
	n := len(l.Words)
	e.lw, e.sh = slices.Grow(e.lw[:0], n)[:n], slices.Grow(e.sh[:0], n)[:n]
	for i, w := range l.Words {
		e.lw[i], e.sh[i] = e.cached(e.lower, w, strings.ToLower), e.cached(e.shape, w, Shape)
	}
	e.major = slices.Grow(e.major[:0], n)[:n]
	clear(e.major)
	if docs == nil || l.Doc < 0 || !e.groups.has(GroupDoc) {
		return
	}
	e.own = scheme.Chunks(e.own[:0], l.Labels[0], scheme.None)
	e.ownTyp = docs.tokenTypes(e.ownTyp, e.own, n)
	for i, w := range l.Words {
		if !capitalized(w) {
			continue
		}
		e.buf = append(docKey(e.buf[:0], l.Doc), w...)
		row := e.others(docs.lookup(docs.tok, e.buf))
		if row == nil {
			continue
		}
		// The sentence's own 1-best is in the index: take it out.
		for t, v := range l.Words {
			if v == w {
				row[e.ownTyp[t]]--
			}
		}
		e.major[i] = docs.majority(row)
	}
}

// others copies a counter row into scratch (nil for nil).
func (e *Extractor) others(row []int32) []int32 {
	if row == nil {
		return nil
	}
	e.row = append(e.row[:0], row...)
	return e.row
}

func (e *Extractor) cached(m map[string]string, w string, f func(string) string) string {
	if v, ok := m[w]; ok {
		return v
	}
	v := f(w)
	m[w] = v
	return v
}

// Candidate appends the indicator features of the prepared list's
// candidate j to dst (an ID per occurrence: a feature seen twice is
// listed twice) and returns them with the real-valued score feature,
// Scores[j] − Scores[0].
func (e *Extractor) Candidate(dst []int32, j int) ([]int32, float64) {
	l := e.list
	labels := l.Labels[j]
	e.ids = dst
	e.chunks = scheme.Chunks(e.chunks[:0], labels, scheme.None)
	n := len(labels)
	e.typ = slices.Grow(e.typ[:0], n)[:n]
	for i := range e.typ {
		e.typ[i] = outside
	}
	for _, c := range e.chunks {
		for i := c.Start; i < c.End; i++ {
			e.typ[i] = c.Type
		}
	}
	if e.groups.has(GroupNGram) {
		e.ngrams(labels)
	}
	if e.groups.has(GroupTypes) {
		e.typeCounts()
	}
	for _, c := range e.chunks {
		e.span(c)
	}
	if e.groups.has(GroupDoc) && e.docs != nil && l.Doc >= 0 {
		e.document()
	}
	if e.groups.has(GroupRank) {
		e.emit("rank=", rankBucket(j))
	}
	return e.ids, l.Scores[j] - l.Scores[0]
}

// ngrams: the label bigrams and trigrams, with <s> and </s> at the ends.
func (e *Extractor) ngrams(labels []string) {
	p2, p1 := "<s>", "<s>"
	for i := 0; i <= len(labels); i++ {
		y := "</s>"
		if i < len(labels) {
			y = labels[i]
		}
		e.emit("bi=", p1, y)
		e.emit("tri=", p2, p1, y)
		p2, p1 = p1, y
	}
}

// typeCounts: the number of spans of each type (in order of first
// appearance, so that IDs are assigned reproducibly) and of all spans.
func (e *Extractor) typeCounts() {
	e.tcount = e.tcount[:0]
	for _, c := range e.chunks {
		k := slices.IndexFunc(e.tcount, func(tc typeCount) bool { return tc.typ == c.Type })
		if k < 0 {
			e.tcount = append(e.tcount, typeCount{typ: c.Type})
			k = len(e.tcount) - 1
		}
		e.tcount[k].n++
	}
	for _, tc := range e.tcount {
		e.emit("ntype=", tc.typ, bucket(countBuckets, tc.n))
	}
	e.emit("nspans=", bucket(countBuckets, len(e.chunks)))
}

// span: one span's length and shape, and its words.
func (e *Extractor) span(c scheme.Chunk) {
	if e.groups.has(GroupSpan) {
		e.emit("len=", c.Type, bucket(lengthBuckets, c.End-c.Start))
		e.buf = append(append(append(e.buf[:0], "shape="...), c.Type...), '|')
		e.buf = appendSpan(e.buf, e.sh[c.Start:c.End])
		e.intern()
	}
	if !e.groups.has(GroupWords) {
		return
	}
	e.emit("first=", c.Type, e.lw[c.Start])
	e.emit("last=", c.Type, e.lw[c.End-1])
	e.buf = append(append(append(e.buf[:0], "str="...), c.Type...), '|')
	e.buf = appendSpan(e.buf, e.list.Words[c.Start:c.End])
	e.intern()
	prev, next := "<s>", "</s>"
	if c.Start > 0 {
		prev = e.lw[c.Start-1]
	}
	if c.End < len(e.lw) {
		next = e.lw[c.End]
	}
	e.emit("prev=", c.Type, prev)
	e.emit("next=", c.Type, next)
}

// document: for each capitalized token the document's other sentences
// also have, the candidate's type with the type they most often give it;
// for each span whose string they also mark as a span, the span's type
// with the type they most often give that string.
func (e *Extractor) document() {
	for i, m := range e.major {
		if m != "" {
			e.emit("dtok=", e.typ[i], m)
		}
	}
	l, docs := e.list, e.docs
	for _, c := range e.chunks {
		e.buf = appendSpan(docKey(e.buf[:0], l.Doc), l.Words[c.Start:c.End])
		row := e.others(docs.lookup(docs.span, e.buf))
		if row == nil {
			continue
		}
		for _, o := range e.own {
			if o.End-o.Start == c.End-c.Start && slices.Equal(l.Words[o.Start:o.End], l.Words[c.Start:c.End]) {
				row[docs.typeID[o.Type]]--
			}
		}
		if m := docs.majority(row); m != "" {
			e.emit("dspan=", c.Type, m)
		}
	}
}

// emit interns the key prefix + parts joined by '|'.
func (e *Extractor) emit(prefix string, parts ...string) {
	e.buf = append(e.buf[:0], prefix...)
	for k, p := range parts {
		if k > 0 {
			e.buf = append(e.buf, '|')
		}
		e.buf = append(e.buf, p...)
	}
	e.intern()
}

// intern adds the key in buf to the candidate's features, unless the
// dictionary is frozen and does not know it.
func (e *Extractor) intern() {
	if id, ok := e.dict.ID(e.buf); ok {
		e.ids = append(e.ids, id)
	}
}

// majority is the type counted most often in row (ties to the first in
// name order, outside first), "" when row counts nothing.
func (ix *DocIndex) majority(row []int32) string {
	best := -1
	for t, v := range row {
		if v > 0 && (best < 0 || v > row[best]) {
			best = t
		}
	}
	if best < 0 {
		return ""
	}
	return ix.types[best]
}

func capitalized(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// Shape is a word's compact shape: upper-case letters become X,
// lower-case ones x, digits d, other characters stay, and a run of the
// same symbol is one ("Smith" Xx, "U.S." X.X., "1996" d, "3-0" d-d).
func Shape(w string) string {
	var b strings.Builder
	var last rune = -1
	for _, r := range w {
		switch {
		case unicode.IsUpper(r):
			r = 'X'
		case unicode.IsLower(r):
			r = 'x'
		case unicode.IsDigit(r):
			r = 'd'
		}
		if r != last {
			b.WriteRune(r)
			last = r
		}
	}
	return b.String()
}
