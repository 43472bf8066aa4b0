// docindex.go holds what the first pass's 1-best labelings say about each
// document: per word, and per span string, how often each type was given.
// The document features read it, minus the sentence's own 1-best, so that
// a candidate's features depend on the other sentences' first-pass output
// only — never on how the reranker chose for them — and DocKeys, which
// numbers a corpus's documents for List.Doc.
package rerank

import (
	"encoding/binary"
	"slices"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/scheme"
)

// outside is the type of a token outside every span.
const outside = "O"

// DocIndex counts the types the 1-best candidates of a set of lists give
// to the words and span strings of each document. Lists with a negative
// Doc are left out.
type DocIndex struct {
	types  []string // type ID → name; 0 is outside
	typeID map[string]int32
	// tok and span map a key (the document, then the word or the span's
	// words joined by spaces) to an offset into counts, where len(types)
	// counters follow: counter t is how often type t was given there.
	tok, span map[string]int32
	counts    []int32
}

// NewDocIndex indexes the 1-best candidates of lists.
func NewDocIndex(lists []List) *DocIndex {
	ix := &DocIndex{typeID: map[string]int32{outside: 0}, types: []string{outside},
		tok: map[string]int32{}, span: map[string]int32{}}
	var chunks []scheme.Chunk
	// The types first, so that every counter row has its final width, in
	// name order (outside first): majority breaks ties by this order, which
	// must not depend on which other documents are indexed with a
	// document (the tagger indexes a batch of whole documents at a time).
	for i := range lists {
		chunks = scheme.Chunks(chunks[:0], lists[i].Labels[0], scheme.None)
		for _, c := range chunks {
			if _, ok := ix.typeID[c.Type]; !ok {
				ix.typeID[c.Type] = 0
				ix.types = append(ix.types, c.Type)
			}
		}
	}
	slices.Sort(ix.types[1:])
	for id, typ := range ix.types {
		ix.typeID[typ] = int32(id)
	}
	var typ []int32
	var key []byte
	for i := range lists {
		l := &lists[i]
		if l.Doc < 0 {
			continue
		}
		chunks = scheme.Chunks(chunks[:0], l.Labels[0], scheme.None)
		typ = ix.tokenTypes(typ, chunks, len(l.Words))
		for t, w := range l.Words {
			key = append(docKey(key[:0], l.Doc), w...)
			ix.counters(ix.tok, key)[typ[t]]++
		}
		for _, c := range chunks {
			key = appendSpan(docKey(key[:0], l.Doc), l.Words[c.Start:c.End])
			ix.counters(ix.span, key)[ix.typeID[c.Type]]++
		}
	}
	return ix
}

// tokenTypes fills dst with each of n tokens' type ID under chunks.
func (ix *DocIndex) tokenTypes(dst []int32, chunks []scheme.Chunk, n int) []int32 {
	dst = slices.Grow(dst[:0], n)[:n]
	clear(dst)
	for _, c := range chunks {
		id := ix.typeID[c.Type]
		for t := c.Start; t < c.End; t++ {
			dst[t] = id
		}
	}
	return dst
}

// counters returns key's counter row in m, adding a zero row when new.
func (ix *DocIndex) counters(m map[string]int32, key []byte) []int32 {
	off, ok := m[string(key)]
	if !ok {
		off = int32(len(ix.counts))
		m[string(key)] = off
		ix.counts = append(ix.counts, make([]int32, len(ix.types))...)
	}
	return ix.counts[off : int(off)+len(ix.types)]
}

// lookup returns key's counter row in m, nil when the key never occurred.
func (ix *DocIndex) lookup(m map[string]int32, key []byte) []int32 {
	off, ok := m[string(key)]
	if !ok {
		return nil
	}
	return ix.counts[off : int(off)+len(ix.types)]
}

// docKey starts a key with the document.
func docKey(dst []byte, doc int) []byte {
	return binary.AppendUvarint(dst, uint64(doc))
}

// appendSpan appends words joined by single spaces.
func appendSpan(dst []byte, words []string) []byte {
	for k, w := range words {
		if k > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, w...)
	}
	return dst
}

// DocKeys numbers the documents of sents densely in order of first
// appearance: element i is sentence i's document (corpus.SameDocument),
// the List.Doc to give it.
func DocKeys(sents []*corpus.Sentence) []int {
	keys := make([]int, len(sents))
	index := make(map[*corpus.Sentence]int, len(sents))
	for i, s := range sents {
		index[s] = i
	}
	for d, group := range corpus.GroupDocuments(sents) {
		for _, s := range group {
			keys[index[s]] = d
		}
	}
	return keys
}
