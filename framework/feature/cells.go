package feature

import (
	"math"
	"slices"
	"strings"

	"github.com/trellis-nlp/trellis/framework/corpus"
)

// CellExtractor is implemented by extractors whose every attribute key is
// a function of the values of a few cells — a column at an offset from
// the token — and of nothing else (emission: unigrams, n-grams, joins,
// formats). Declaring that shape lets the encoder look an attribute up by
// the IDs of its cells' values: each value of a column is hashed once per
// token, and an attribute whose cells were seen before costs a small
// table read (and, when training, a count) instead of building, hashing
// and comparing its key. The keys, the order they are met in, and so the
// IDs and everything downstream, are the ones Extract gives.
//
// The contract, which the encoder relies on (an implementation's tests
// compare the two paths' datasets, as builtin/emission's do):
// Extract adds, for each token i in order and each shape k in order, the
// key AppendKey(k, i) with value 1 — when every cell of shape k lies in
// the sentence, or the shape pads; a shape that does not pad adds nothing
// at token i when one of its cells lies outside. AppendKey's key depends
// only on the strings of the cells that lie inside and, for those
// outside, on how far before the first or after the last token they are.
type CellExtractor interface {
	Extractor
	// CellShapes returns the shapes of the attributes, in the order
	// Extract adds them at each token. It must not change.
	CellShapes() []CellShape
	// AppendKey appends to dst the key of shape k at token i of s and
	// returns it.
	AppendKey(dst []byte, s *corpus.Sentence, k, i int) []byte
}

// CellShape is one attribute of a CellExtractor: the cells its key reads
// and whether cells outside the sentence are written as placeholders
// (true) or stop the attribute (false).
type CellShape struct {
	Cells []Cell
	Pad   bool
}

// Cell is a column at an offset from the current token.
type Cell struct {
	Column, Offset int
}

// maxCells is the most cells a shape may have for the cell path; an
// extractor with a longer shape is extracted the plain way.
const maxCells = 4

// Bounds on the cell caches (cellCache.maxValues, maxEntries): past them,
// at the start of a sentence, every value ID and remembered lookup is
// dropped and the caches start again, so that tagging an endless stream
// keeps memory flat.
const (
	maxCellValues  = 1 << 20
	maxCellEntries = 1 << 22
)

// cellCache is an Encoder's state for the cell path: value IDs for the
// strings of each column, and what each attribute was found to be. It is
// valid for one attribute dictionary as long as no ID of it changes
// (Dictionary.version), in one mode (cellMode).
//
// Shapes that differ only by a shift (an emission template's offsets:
// w[-2] … w[2], or the bigrams starting at -1 and 0) form a family: the
// value tuple at a start position is looked up once per sentence position
// and serves every member, so an emission template costs one lookup per
// token however many offsets it has (docs/results.md, "Measurements behind
// design choices in the code"), and a tuple seen before costs no key at
// all.
type cellCache struct {
	mode cellMode
	// values[c] interns the strings of column c (keys are copies: a
	// sentence's strings share its text, which must not be kept alive).
	values []map[string]int32
	nvalue int
	// ids[c] holds the value IDs of column c for the batch's sentences
	// (sentence k's at off[k]:off[k+1]), filled on first use (have[c]).
	batch []*corpus.Sentence
	off   []int
	ids   [][]int32
	have  []bool
	// famLo[g]:famHi[g] are extractor g's families.
	famLo, famHi []int
	// shapes[g] are extractor g's shapes, each with its family (nil: not
	// a cell extractor, or a shape too wide).
	shapes   [][]shapeRef
	families []family
	entries  int // entries in all families, for the bound
	key      []byte
	tokenIDs []int32 // extract's buffer for one token's IDs
	// maxValues and maxEntries are the bounds (tests lower them).
	maxValues, maxEntries int
}

// shapeRef places a shape in its family: member m, whose cells start at
// offset start from the token.
type shapeRef struct {
	family, member, start int
}

// family is the shapes of one extractor with the same cells up to a
// shift, and what their attributes were found to be for each value tuple
// seen (an entry): state[e*members+m] for member m of entry e, 0 not
// looked up yet, -1 absent from the dictionary, id+1.
type family struct {
	cells         []Cell // offsets relative to the first cell's
	pad           bool
	members       int
	minStart      int
	maxStart      int
	dense         []int32 // value ID, or grid place of small ones → entry+1 (denseSlot)
	memo          cellMemo
	state         []int32
	at            []int32 // per start position of the sentence: entry, or -1
	before, after int     // reach of the cells before and after the start
}

// cellMode is what the cell path does with a key it has not met: look it
// up in the read-only index (tagging), look it up in the dictionary's map
// (encoding dev data after training), or intern it (training).
type cellMode struct {
	dict    *Dictionary
	version int
	idx     *index
	grow    bool
}

// newCellCache prepares the cell path for e's extractors in mode, or
// returns nil when none is a CellExtractor.
func newCellCache(e *Encoder, mode cellMode) *cellCache {
	n := len(e.Extractors)
	c := &cellCache{mode: mode, shapes: make([][]shapeRef, n), famLo: make([]int, n), famHi: make([]int, n), maxValues: maxCellValues, maxEntries: maxCellEntries}
	cols := 0
	for g, x := range e.Extractors {
		cx, ok := x.(CellExtractor)
		if !ok {
			continue
		}
		shapes := cx.CellShapes()
		usable := len(shapes) > 0
		for _, sh := range shapes {
			if len(sh.Cells) == 0 || len(sh.Cells) > maxCells {
				usable = false
			}
			for _, cell := range sh.Cells {
				cols = max(cols, cell.Column+1)
			}
		}
		if !usable {
			continue
		}
		first := len(c.families)
		refs := make([]shapeRef, len(shapes))
		for k, sh := range shapes {
			refs[k] = c.place(first, sh)
		}
		c.shapes[g] = refs
		c.famLo[g], c.famHi[g] = first, len(c.families)
	}
	if len(c.families) == 0 {
		return nil
	}
	c.values = make([]map[string]int32, cols)
	c.ids = make([][]int32, cols)
	c.have = make([]bool, cols)
	return c
}

// place adds sh to the family among families[first:] with its cells up
// to a shift, or to a new one.
func (c *cellCache) place(first int, sh CellShape) shapeRef {
	start := sh.Cells[0].Offset
	rel := make([]Cell, len(sh.Cells))
	for m, cell := range sh.Cells {
		rel[m] = Cell{cell.Column, cell.Offset - start}
	}
	f := first
	for ; f < len(c.families); f++ {
		if fam := &c.families[f]; fam.pad == sh.Pad && slices.Equal(fam.cells, rel) {
			break
		}
	}
	if f == len(c.families) {
		fam := family{cells: rel, pad: sh.Pad, minStart: start, maxStart: start}
		for _, cell := range rel {
			fam.before, fam.after = min(fam.before, cell.Offset), max(fam.after, cell.Offset)
		}
		c.families = append(c.families, fam)
	}
	fam := &c.families[f]
	fam.minStart, fam.maxStart = min(fam.minStart, start), max(fam.maxStart, start)
	fam.members++
	return shapeRef{family: f, member: fam.members - 1, start: start}
}

// begin starts a batch of sentences (one, when tagging): it forgets the
// previous batch's value IDs, and everything when the caches have grown
// past their bounds.
func (c *cellCache) begin(batch []*corpus.Sentence) {
	c.batch = batch
	c.off = append(c.off[:0], 0)
	for _, s := range batch {
		c.off = append(c.off, c.off[len(c.off)-1]+s.Len())
	}
	clear(c.have)
	if c.nvalue <= c.maxValues && c.entries <= c.maxEntries {
		return
	}
	for k := range c.values {
		c.values[k] = nil
	}
	for f := range c.families {
		fam := &c.families[f]
		fam.dense, fam.memo, fam.state = nil, cellMemo{}, nil
	}
	c.nvalue, c.entries = 0, 0
}

// column returns the value IDs of column col for every token of sentence
// k of the batch.
func (c *cellCache) column(k, col int) []int32 {
	if !c.have[col] {
		vals := c.values[col]
		if vals == nil {
			vals = map[string]int32{}
			c.values[col] = vals
		}
		ids := c.ids[col][:0]
		for _, s := range c.batch {
			for _, tok := range s.Tokens {
				v := tok[col]
				id, ok := vals[v]
				if !ok {
					id = int32(len(vals))
					vals[strings.Clone(v)] = id
					c.nvalue++
				}
				ids = append(ids, id)
			}
		}
		c.ids[col], c.have[col] = ids, true
	}
	return c.ids[col][c.off[k]:c.off[k+1]]
}

// Value IDs for cells outside the sentence (padded shapes): j < 0 is
// itself, j past the last token is afterBase minus how far past. Real
// value IDs are never negative.
const afterBase = math.MinInt32 / 2

// positions finds the entry of family f at every start position of
// sentence k of the batch that its members reach (-1 where a cell falls
// outside and the family does not pad), adding entries for tuples not
// seen before.
func (c *cellCache) positions(f, k int) {
	fam := &c.families[f]
	n := c.batch[k].Len()
	var cols [maxCells][]int32
	for m, cell := range fam.cells {
		cols[m] = c.column(k, cell.Column)
	}
	at := fam.at[:0]
	for j0 := fam.minStart; j0 < n+fam.maxStart; j0++ {
		if !fam.pad && (j0+fam.before < 0 || j0+fam.after >= n) {
			at = append(at, -1)
			continue
		}
		var key cellKey
		for m, cell := range fam.cells {
			switch j := j0 + cell.Offset; {
			case j < 0:
				key.v[m] = int32(j)
			case j >= n:
				key.v[m] = afterBase - int32(j-n+1)
			default:
				key.v[m] = cols[m][j]
			}
		}
		at = append(at, c.entry(fam, &key))
	}
	fam.at = at
}

// entry returns the entry of fam for the value tuple key, adding it.
func (c *cellCache) entry(fam *family, key *cellKey) int32 {
	if slot := fam.denseSlot(key); slot >= 0 {
		if slot >= len(fam.dense) {
			size := slot + 1 + len(fam.dense)/2
			if len(fam.cells) > 1 {
				size = 1 << denseBits // a grid of small value IDs, at once
			}
			fam.dense = append(fam.dense, make([]int32, size-len(fam.dense))...)
		}
		if e := fam.dense[slot]; e != 0 {
			return e - 1
		}
		e := c.newEntry(fam)
		fam.dense[slot] = e + 1
		return e
	}
	if e := fam.memo.get(key); e != 0 {
		return e - 1
	}
	e := c.newEntry(fam)
	fam.memo.put(key, e+1)
	return e
}

// denseBits bounds the grid of a family of several cells: value IDs below
// 1<<(denseBits/cells) each (512 for bigrams, 64 for trigrams — the
// first values met, the frequent ones) index a table of 1<<denseBits
// entries directly instead of the memo.
const denseBits = 18

// denseSlot returns key's place in fam.dense, or -1 when the memo holds
// it: a one-cell family's value ID, or the grid place of a tuple of small
// value IDs.
func (fam *family) denseSlot(key *cellKey) int {
	w := len(fam.cells)
	if w == 1 {
		if key.v[0] < 0 {
			return -1
		}
		return int(key.v[0])
	}
	bits := denseBits / w
	slot := 0
	for _, v := range key.v[:w] {
		if v < 0 || v >= 1<<bits {
			return -1
		}
		slot = slot<<bits | int(v)
	}
	return slot
}

func (c *cellCache) newEntry(fam *family) int32 {
	e := int32(len(fam.state) / fam.members)
	fam.state = append(fam.state, make([]int32, fam.members)...)
	c.entries++
	return e
}

// extract adds extractor g's attributes for sentence k of the batch to
// sink, as x.Extract would have, through the caches.
func (c *cellCache) extract(g int, x CellExtractor, k int, sink *sentenceSink) {
	c.prepare(g, k)
	src := c.source(g, x, sink.enc)
	ids := c.tokenIDs[:0]
	for i := range c.batch[k].Len() {
		ids = c.appendToken(ids[:0], src, k, i, sink)
		for _, id := range ids {
			sink.addID(i, id)
		}
	}
	c.tokenIDs = ids
}

// prepare finds the entries of extractor g's families at every position
// of sentence k of the batch, for appendToken.
func (c *cellCache) prepare(g, k int) {
	for f := c.famLo[g]; f < c.famHi[g]; f++ {
		c.positions(f, k)
	}
}

// cellSource is one cell extractor as appendToken reads it.
type cellSource struct {
	g       int // its index among the encoder's extractors
	x       CellExtractor
	unknown int32 // the attribute of its unseen values, or -1 (dropped)
}

// source is extractor g (x) of encoder e as appendToken reads it.
func (c *cellCache) source(g int, x CellExtractor, e *Encoder) cellSource {
	return cellSource{g: g, x: x, unknown: e.mode.unknownAttr(int32(g))}
}

// appendToken appends to dst extractor src's attribute IDs at token i of
// sentence k of the batch, in the order src.x.Extract adds them
// (prepare(src.g, k) must have run), looking up (or interning and
// counting, when training) what the caches have not met. It is the one
// kernel behind extract (extractor-major) and Encoder.appendFused
// (token-major).
func (c *cellCache) appendToken(dst []int32, src cellSource, k, i int, sink *sentenceSink) []int32 {
	refs := c.shapes[src.g]
	for m := range refs {
		r := &refs[m]
		fam := &c.families[r.family]
		e := fam.at[i+r.start-fam.minStart]
		if e < 0 {
			continue
		}
		st := &fam.state[int(e)*fam.members+r.member]
		switch {
		case *st == 0:
			*st = c.lookup(src.x, c.batch[k], m, i, sink)
		case c.mode.grow:
			c.mode.dict.counts[*st-1]++ // as Intern counts every occurrence
		}
		switch {
		case *st > 0:
			dst = append(dst, *st-1)
		case src.unknown >= 0:
			dst = append(dst, src.unknown)
		}
	}
	return dst
}

// lookup finds (or, training, interns) the key of shape m at token i:
// id+1, or -1 when the dictionary does not have it.
func (c *cellCache) lookup(x CellExtractor, s *corpus.Sentence, m, i int, sink *sentenceSink) int32 {
	c.key = x.AppendKey(c.key[:0], s, m, i)
	d := c.mode.dict
	switch {
	case c.mode.grow:
		id := d.Intern(c.key)
		if e := sink.enc; int(id) == len(e.AttrGroup) {
			e.AttrGroup = append(e.AttrGroup, sink.group)
		}
		return id + 1
	case c.mode.idx != nil:
		if id, ok := c.mode.idx.lookup(c.key, c.mode.idx.hash(c.key)); ok {
			return id + 1
		}
	default:
		if id, ok := d.Lookup(c.key); ok {
			return id + 1
		}
	}
	return -1
}

// cellKey is the value IDs of a family's cells; cells past its width are
// zero.
type cellKey struct {
	v [maxCells]int32
}

// cellMemo is an open-addressing table from cellKey to an entry+1 (never
// 0, which marks an empty slot), kept at most half full.
type cellMemo struct {
	slots []memoSlot
	used  int
}

type memoSlot struct {
	key cellKey
	e1  int32
}

func (k *cellKey) hash() uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	for _, v := range k.v {
		h = (h ^ uint64(uint32(v))) * 0xbf58476d1ce4e5b9
		h ^= h >> 29
	}
	return h
}

func (m *cellMemo) get(k *cellKey) int32 {
	if m.used == 0 {
		return 0
	}
	mask := uint64(len(m.slots) - 1)
	for j := k.hash() & mask; ; j = (j + 1) & mask {
		s := &m.slots[j]
		if s.e1 == 0 || s.key == *k {
			return s.e1
		}
	}
}

func (m *cellMemo) put(k *cellKey, e1 int32) {
	if 2*(m.used+1) > len(m.slots) {
		m.grow()
	}
	mask := uint64(len(m.slots) - 1)
	for j := k.hash() & mask; ; j = (j + 1) & mask {
		s := &m.slots[j]
		if s.e1 == 0 {
			s.key, s.e1 = *k, e1
			m.used++
			return
		}
		if s.key == *k {
			s.e1 = e1
			return
		}
	}
}

func (m *cellMemo) grow() {
	old := m.slots
	m.slots, m.used = make([]memoSlot, max(2*len(old), 1<<10)), 0
	for j := range old {
		if old[j].e1 != 0 {
			m.put(&old[j].key, old[j].e1)
		}
	}
}
