// This file holds the document history (the types committed to each word
// in a document's earlier sentences) and Keys, which turns a document's
// words into the integer keys the history is indexed by.

package transition

import (
	"github.com/trellis-nlp/trellis/framework/feature"
)

// docEntry is what a document has committed for one key: the type of its
// first occurrence and the set of types given to it (a bit per type).
type docEntry struct {
	first int32
	seen  uint64
}

// Document is the decision history of a document's earlier sentences, by
// word key. The zero value is empty; Reset empties it for the next
// document.
type Document struct {
	entries map[int32]docEntry
}

// Reset empties the history (a new document begins).
func (d *Document) Reset() { clear(d.entries) }

// entry returns the history of key k; a nil Document is empty.
func (d *Document) entry(k int32) (docEntry, bool) {
	if d == nil {
		return docEntry{}, false
	}
	e, ok := d.entries[k]
	return e, ok
}

// Commit adds a sentence's decisions to the history: labels[i] given to
// the word of key keys[i] (keys -1 are skipped). lay gives the labels'
// types; a layout without document features commits nothing.
func (d *Document) Commit(lay *Layout, keys, labels []int32) {
	if lay == nil || lay.doc < 0 || keys == nil {
		return
	}
	if d.entries == nil {
		d.entries = map[int32]docEntry{}
	}
	for i, k := range keys {
		if k < 0 {
			continue
		}
		t := lay.docType[labels[i]]
		e, ok := d.entries[k]
		if !ok {
			e.first = t
		}
		e.seen |= 1 << uint(t)
		d.entries[k] = e
	}
}

// Keys interns a document's words into keys, compared case-insensitively
// (as the history template compares them: "EU" and "Eu" are one word).
// Looking up a word seen before allocates nothing.
type Keys struct {
	ids map[string]int32
	buf []byte
}

// Reset forgets the words (a new document begins), so that memory stays
// bounded by a document.
func (k *Keys) Reset() { clear(k.ids) }

// Key returns the key of word w, interning it if new.
func (k *Keys) Key(w string) int32 {
	if k.ids == nil {
		k.ids = map[string]int32{}
	}
	k.buf = feature.AppendLower(k.buf[:0], w)
	if id, ok := k.ids[string(k.buf)]; ok {
		return id
	}
	id := int32(len(k.ids))
	k.ids[string(k.buf)] = id
	return id
}

// Sentence appends to dst the keys of column col of each token.
func (k *Keys) Sentence(dst []int32, tokens [][]string, col int) []int32 {
	for _, tok := range tokens {
		dst = append(dst, k.Key(tok[col]))
	}
	return dst
}
