// Package document is the builtin "document" template: features of a token
// read from the whole document it is in, not only its sentence. For the
// token's word (compared case-insensitively) it emits
//
//   - how often the word recurs in the document: "NAME/n=0", "=1", "=2",
//     "=3+" other occurrences, and "NAME/first" or "NAME/later" (whether an
//     earlier sentence or token of the document has the word);
//
//   - the capitalisation of its other occurrences where it tells
//     something, paired with the token's own: "NAME/case=SELF:OTHER" with
//     SELF one of lower, cap, init (capitalised and sentence-initial),
//     upper, other and OTHER one of lower, cap (capitalised, not
//     sentence-initial), upper — so a sentence-initial "Bank" that is
//     "bank" elsewhere fires "case=init:lower", and an all-caps headline
//     word that is "Japan" in the text fires "case=upper:cap";
//
//   - the words around its other occurrences, Ratinov & Roth's (2009)
//     context aggregation: "NAME/ctx[-1]=mr" when some other occurrence
//     follows "Mr" (contexts lowercased, offsets within context), for
//     capitalised tokens (all tokens with all_words) whose word occurs at
//     most max_occurrences times in the document; with context_case, also
//     the capitalisation class of those words, "NAME/ctxcase[-1]=cap"
//     (another occurrence is preceded by a capitalised word: it is part of
//     a longer name there).
//
// The block, with its defaults:
//
//	document "doc" {
//	  column          = "word"
//	  context         = 2     # words either side of other occurrences; 0: none
//	  max_occurrences = 20    # more frequent words get no context features
//	  all_words       = false # contexts for lower-case tokens too
//	  context_case    = false # and the capitalisation class of context words
//	}
//
// Documents are the corpus's ("-DOCSTART-" in CoNLL, "# newdoc" in
// CoNLL-U, corpus.Sentence.Document); a file without boundaries is one
// document. The extractor is a feature.DocumentExtractor: it indexes a
// batch's documents once (time linear in the tokens, the context lists
// sorted) and then extracts each sentence without allocating.
package document

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/builtin/window"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

// Defaults of the optional settings.
const (
	DefaultContext        = 2
	DefaultMaxOccurrences = 20
	// MaxContext bounds context so a typo is reported rather than run.
	MaxContext = 10
)

// Config is the template's block.
type Config struct {
	Column string `hcl:"column" json:"column"`
	// Context is the number of words either side of each other occurrence
	// that are aggregated; nil: DefaultContext, 0: no context features.
	Context *int `hcl:"context,optional" json:"context,omitempty"`
	// MaxOccurrences: a word seen more often in its document gets no
	// context features (0: DefaultMaxOccurrences). It bounds the
	// attributes per token, so a huge document costs linear time.
	MaxOccurrences int `hcl:"max_occurrences,optional" json:"max_occurrences,omitempty"`
	// AllWords aggregates contexts for every token, not only those that
	// begin with an upper-case letter.
	AllWords bool `hcl:"all_words,optional" json:"all_words,omitempty"`
	// ContextCase adds the capitalisation class of each context word.
	ContextCase bool `hcl:"context_case,optional" json:"context_case,omitempty"`
}

// Template is the document template.
type Template struct{ cfg Config }

var _ feature.Template = (*Template)(nil)

// New returns a zero document template.
func New() feature.Template { return &Template{} }

// Config implements feature.Template.
func (t *Template) Config() any { return &t.cfg }

// Validate implements feature.Template.
func (t *Template) Validate() hcl.Diagnostics {
	var diags hcl.Diagnostics
	if c := t.cfg.Context; c != nil && (*c < 0 || *c > MaxContext) {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "Context out of range",
			Detail: fmt.Sprintf("context = %d is outside [0, %d]", *c, MaxContext),
		})
	}
	if m := t.cfg.MaxOccurrences; m != 0 && m < 2 {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "max_occurrences out of range",
			Detail: fmt.Sprintf("max_occurrences = %d: a word needs at least 2 occurrences to have others (0 for the default, %d)", m, DefaultMaxOccurrences),
		})
	}
	return diags
}

// Compile implements feature.Template.
func (t *Template) Compile(name string, cols feature.Columns) (feature.Extractor, error) {
	col, err := cols.Index(t.cfg.Column)
	if err != nil {
		return nil, err
	}
	x := &extractor{
		column: col, context: DefaultContext, maxOcc: DefaultMaxOccurrences, allWords: t.cfg.AllWords, contextCase: t.cfg.ContextCase,
		words: map[string]int32{}, types: map[typeKey]int32{}, docs: map[docKey]int32{},
		sentOff: map[*corpus.Sentence]int32{}, buf: make([]byte, 0, 256),
	}
	if t.cfg.Context != nil {
		x.context = *t.cfg.Context
	}
	if t.cfg.MaxOccurrences != 0 {
		x.maxOcc = t.cfg.MaxOccurrences
	}
	for _, b := range []string{"0", "1", "2", "3+"} {
		x.countKeys = append(x.countKeys, []byte(name+"/n="+b))
	}
	x.firstKey, x.laterKey = []byte(name+"/first"), []byte(name+"/later")
	for self := range numShapes {
		for k, other := range []shape{lower, capMid, upper} {
			x.caseKeys[self][k] = []byte(name + "/case=" + shapeNames[self] + ":" + shapeNames[other])
		}
	}
	for o := -x.context; o <= x.context; o++ {
		x.ctxPrefixes = append(x.ctxPrefixes, []byte(name+"/ctx["+strconv.Itoa(o)+"]="))
		x.casePrefixes = append(x.casePrefixes, []byte(name+"/ctxcase["+strconv.Itoa(o)+"]="))
	}
	return x, nil
}

// shape is a token's capitalisation class.
type shape uint8

const (
	lower   shape = iota // begins with a lower-case letter
	capMid               // begins with an upper-case letter, not all caps, not sentence-initial
	capInit              // the same, sentence-initial
	upper                // two or more letters, all upper-case
	other                // begins with neither (digits, punctuation)
	numShapes
)

var shapeNames = [numShapes]string{"lower", "cap", "init", "upper", "other"}

// shapeOf classifies w; initial is whether it begins its sentence.
func shapeOf(w string, initial bool) shape {
	r, _ := utf8.DecodeRuneInString(w)
	switch {
	case unicode.IsLower(r):
		return lower
	case !unicode.IsUpper(r):
		return other
	}
	letters := 0
	for _, r := range w {
		if unicode.IsLower(r) {
			if initial {
				return capInit
			}
			return capMid
		}
		if unicode.IsUpper(r) {
			letters++
		}
	}
	if letters >= 2 {
		return upper
	}
	if initial {
		return capInit
	}
	return capMid
}

type docKey struct {
	file string
	doc  int
}

// typeKey is a word in a document: the unit whose occurrences are counted.
type typeKey struct{ doc, word int32 }

type typeStat struct {
	count        int32
	first        int32 // flat index of the first occurrence
	shapes       [numShapes]int32
	ctxLo, ctxHi int32 // its aggregated contexts: ctx[ctxLo:ctxHi]
}

// ctxEntry is one (offset, word) seen around the occurrences of a type,
// and how many times. A negative word is the capitalisation class
// -1-word of the word there (context_case).
type ctxEntry struct {
	typ   int32
	off   int32
	word  int32
	count int32
}

// extractor indexes a batch of documents (Documents) and then extracts
// sentence by sentence. Tokens of the batch live in flat arrays; a
// sentence's tokens start at sentOff[s].
type extractor struct {
	column, context, maxOcc int
	allWords, contextCase   bool

	countKeys          [][]byte
	firstKey, laterKey []byte
	caseKeys           [numShapes][3][]byte
	ctxPrefixes        [][]byte // ctxPrefixes[o+context] for offset o
	casePrefixes       [][]byte // the same for context_case

	words     map[string]int32 // lowercased word → ID, per batch
	wordNames []string
	docs      map[docKey]int32
	types     map[typeKey]int32
	stats     []typeStat
	sentOff   map[*corpus.Sentence]int32
	order     []*corpus.Sentence // the batch's distinct sentences, in order
	tokType   []int32
	tokWord   []int32
	tokShape  []shape
	ctx       []ctxEntry
	buf       []byte
}

var (
	_ feature.DocumentExtractor = (*extractor)(nil)
	_ feature.ColumnReader      = (*extractor)(nil)
)

// ReadColumns implements feature.ColumnReader.
func (x *extractor) ReadColumns() []int { return []int{x.column} }

// Documents implements feature.DocumentExtractor: it indexes every word of
// the batch by (document, lowercased word) and aggregates the contexts.
// Documents(nil) releases the index and its buffers.
func (x *extractor) Documents(sents []*corpus.Sentence) error {
	if len(sents) == 0 {
		x.words, x.docs, x.types = map[string]int32{}, map[docKey]int32{}, map[typeKey]int32{}
		x.sentOff = map[*corpus.Sentence]int32{}
		x.wordNames, x.stats, x.order = nil, nil, nil
		x.tokType, x.tokWord, x.tokShape, x.ctx = nil, nil, nil, nil
		return nil
	}
	clear(x.words)
	clear(x.docs)
	clear(x.types)
	clear(x.sentOff)
	x.wordNames, x.stats, x.order = x.wordNames[:0], x.stats[:0], x.order[:0]
	x.tokType, x.tokWord, x.tokShape, x.ctx = x.tokType[:0], x.tokWord[:0], x.tokShape[:0], x.ctx[:0]
	for _, s := range sents {
		if _, dup := x.sentOff[s]; dup {
			continue // the same sentence twice: its words count once
		}
		x.sentOff[s] = int32(len(x.tokType))
		x.order = append(x.order, s)
		dk := docKey{s.File, s.Document}
		d, ok := x.docs[dk]
		if !ok {
			d = int32(len(x.docs))
			x.docs[dk] = d
		}
		for i, row := range s.Tokens {
			x.addToken(d, row[x.column], i == 0)
		}
	}
	if x.context > 0 {
		x.aggregate()
	}
	return nil
}

func (x *extractor) addToken(d int32, w string, initial bool) {
	x.buf = window.AppendLower(x.buf[:0], w)
	id, ok := x.words[string(x.buf)]
	if !ok {
		id = int32(len(x.wordNames))
		name := string(x.buf)
		x.words[name] = id
		x.wordNames = append(x.wordNames, name)
	}
	flat := int32(len(x.tokType))
	tk := typeKey{d, id}
	t, ok := x.types[tk]
	if !ok {
		t = int32(len(x.stats))
		x.types[tk] = t
		x.stats = append(x.stats, typeStat{first: flat})
	}
	sh := shapeOf(w, initial)
	x.stats[t].count++
	x.stats[t].shapes[sh]++
	x.tokType = append(x.tokType, t)
	x.tokWord = append(x.tokWord, id)
	x.tokShape = append(x.tokShape, sh)
}

// aggregate collects the (offset, word) pairs around every occurrence of
// the types that recur at most maxOcc times, sorted and counted per type.
func (x *extractor) aggregate() {
	for _, s := range x.order {
		base, n := int(x.sentOff[s]), s.Len()
		for i := range n {
			t := x.tokType[base+i]
			if c := x.stats[t].count; c < 2 || int(c) > x.maxOcc {
				continue
			}
			for o := -x.context; o <= x.context; o++ {
				if j := i + o; o != 0 && j >= 0 && j < n {
					x.ctx = append(x.ctx, ctxEntry{typ: t, off: int32(o), word: x.tokWord[base+j], count: 1})
					if x.contextCase {
						x.ctx = append(x.ctx, ctxEntry{typ: t, off: int32(o), word: caseWord(x.tokShape[base+j]), count: 1})
					}
				}
			}
		}
	}
	slices.SortFunc(x.ctx, func(a, b ctxEntry) int {
		return cmp.Or(cmp.Compare(a.typ, b.typ), cmp.Compare(a.off, b.off), cmp.Compare(a.word, b.word))
	})
	w := 0
	for r, e := range x.ctx {
		if r > 0 && w > 0 {
			if p := &x.ctx[w-1]; p.typ == e.typ && p.off == e.off && p.word == e.word {
				p.count++
				continue
			}
		}
		x.ctx[w] = e
		w++
	}
	x.ctx = x.ctx[:w]
	for k := 0; k < w; {
		t := x.ctx[k].typ
		lo := k
		for k < w && x.ctx[k].typ == t {
			k++
		}
		x.stats[t].ctxLo, x.stats[t].ctxHi = int32(lo), int32(k)
	}
}

// Extract implements feature.Extractor for a sentence of the last batch
// handed to Documents.
func (x *extractor) Extract(s *corpus.Sentence, sink feature.Sink) error {
	off, ok := x.sentOff[s]
	if !ok {
		return fmt.Errorf("document features: the sentence was not in the batch of documents indexed (an encoder that skipped Documents)")
	}
	base := int(off)
	for i := range s.Len() {
		f := base + i
		st := &x.stats[x.tokType[f]]
		others := int(st.count) - 1
		sink.Add(i, x.countKeys[min(others, 3)], 1)
		if others == 0 {
			continue
		}
		if int(st.first) < f {
			sink.Add(i, x.laterKey, 1)
		} else {
			sink.Add(i, x.firstKey, 1)
		}
		self := x.tokShape[f]
		for k, sh := range [3]shape{lower, capMid, upper} {
			n := st.shapes[sh]
			if self == sh {
				n--
			}
			if n > 0 {
				sink.Add(i, x.caseKeys[self][k], 1)
			}
		}
		if st.ctxHi > st.ctxLo && (x.allWords || self == capMid || self == capInit || self == upper) {
			x.contexts(s, base, i, st, sink)
		}
	}
	return nil
}

// contexts emits the context words of token i's other occurrences: an
// (offset, word) pair seen only around token i itself is not emitted.
func (x *extractor) contexts(s *corpus.Sentence, base, i int, st *typeStat, sink feature.Sink) {
	n := s.Len()
	for _, e := range x.ctx[st.ctxLo:st.ctxHi] {
		c := e.count
		if j := i + int(e.off); j >= 0 && j < n && (x.tokWord[base+j] == e.word || caseWord(x.tokShape[base+j]) == e.word) {
			c--
		}
		if c == 0 {
			continue
		}
		if e.word < 0 {
			x.buf = append(append(x.buf[:0], x.casePrefixes[int(e.off)+x.context]...), shapeNames[-1-e.word]...)
		} else {
			x.buf = append(append(x.buf[:0], x.ctxPrefixes[int(e.off)+x.context]...), x.wordNames[e.word]...)
		}
		sink.Add(i, x.buf, 1)
	}
}

// caseWord is the context entry's word standing for capitalisation class
// sh (negative, so it never equals a word ID).
func caseWord(sh shape) int32 { return -1 - int32(sh) }
