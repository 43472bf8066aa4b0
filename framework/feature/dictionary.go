package feature

import (
	"hash/maphash"
	"math/bits"
)

// Dictionary interns strings into dense int32 IDs in first-seen order, so
// the same input in the same order always yields the same IDs.
//
// A dictionary rebuilt from a model's vocabulary (DictionaryOf) is looked
// up far more often than it changes: it is indexed by a flat open-addressing
// table (see index) instead of a Go map, which is faster to build and costs
// about one cache miss per lookup instead of two or three. The map is then
// built only if the dictionary is ever grown.
type Dictionary struct {
	ids    map[string]int32
	names  []string
	counts []int64
	idx    *index
	// slim, after Compact, indexes the names in place of ids (nil
	// otherwise); ids is then nil until the dictionary grows again.
	slim *slimIndex
	// version changes whenever IDs do (Prune), so that what remembers
	// IDs (the encoder's cell path) knows to forget them.
	version int
}

// NewDictionary returns an empty dictionary.
func NewDictionary() *Dictionary {
	return &Dictionary{ids: map[string]int32{}}
}

// DictionaryOf rebuilds a dictionary from its names in ID order (a model
// file's vocabulary).
func DictionaryOf(names []string) *Dictionary {
	d := &Dictionary{names: names, counts: make([]int64, len(names))}
	d.idx = newIndex(names)
	return d
}

// mutable drops the read-only index and builds the map, before the first
// change to a DictionaryOf dictionary.
func (d *Dictionary) mutable() {
	if d.ids != nil {
		return
	}
	d.slim = nil
	d.ids = make(map[string]int32, len(d.names))
	for i, n := range d.names {
		d.ids[n] = int32(i)
	}
	d.idx = nil
}

// Intern returns key's ID, adding it if new, and counts the occurrence.
// The map lookup with string(key) does not allocate; only a new key does.
func (d *Dictionary) Intern(key []byte) int32 {
	d.mutable()
	if id, ok := d.ids[string(key)]; ok {
		d.counts[id]++
		return id
	}
	id := int32(len(d.names))
	s := string(key)
	d.ids[s] = id
	d.names = append(d.names, s)
	d.counts = append(d.counts, 1)
	return id
}

// InternString is Intern for a string key.
func (d *Dictionary) InternString(key string) int32 {
	d.mutable()
	if id, ok := d.ids[key]; ok {
		d.counts[id]++
		return id
	}
	id := int32(len(d.names))
	d.ids[key] = id
	d.names = append(d.names, key)
	d.counts = append(d.counts, 1)
	return id
}

// Lookup returns key's ID without adding it.
func (d *Dictionary) Lookup(key []byte) (int32, bool) {
	if d.idx != nil {
		return d.idx.lookup(key, d.idx.hash(key))
	}
	if d.slim != nil {
		return d.slim.lookupBytes(key)
	}
	id, ok := d.ids[string(key)]
	return id, ok
}

// LookupString returns key's ID without adding it.
func (d *Dictionary) LookupString(key string) (int32, bool) {
	if d.idx != nil {
		return d.idx.lookupString(key)
	}
	if d.slim != nil {
		return d.slim.lookup(key)
	}
	id, ok := d.ids[key]
	return id, ok
}

// Compact trades the map from names to IDs for a slim read-only index —
// 4 bytes per slot, the names compared in place — for a dictionary that
// will mostly be read from now on: a training run's attributes, once the
// training data is encoded, are only counted (Len) and written out with
// the model (Names). The index takes a fraction of the map's memory at
// the run's peak (docs/results.md, "Measurements behind design choices in
// the code").
// IDs do not change; Lookup keeps working (with a string comparison more
// per hit), and Intern or Prune rebuild the map first.
func (d *Dictionary) Compact() {
	if d.ids == nil {
		return
	}
	d.slim = newSlimIndex(d.names)
	d.ids = nil
}

// Len returns the number of interned strings.
func (d *Dictionary) Len() int { return len(d.names) }

// Name returns the string of an ID.
func (d *Dictionary) Name(id int32) string { return d.names[id] }

// Names returns all strings in ID order. The slice is shared.
func (d *Dictionary) Names() []string { return d.names }

// Count returns how often an ID was interned.
func (d *Dictionary) Count(id int32) int64 { return d.counts[id] }

// Prune keeps the IDs whose count is at least minCount and renumbers them
// densely in their old order. It returns remap (old ID → new ID, or -1).
func (d *Dictionary) Prune(minCount int64) (remap []int32) {
	d.mutable()
	d.version++
	remap = make([]int32, len(d.names))
	kept := 0
	for id, c := range d.counts {
		if c >= minCount {
			remap[id] = int32(kept)
			d.names[kept] = d.names[id]
			d.counts[kept] = c
			kept++
		} else {
			delete(d.ids, d.names[id])
			remap[id] = -1
		}
	}
	d.names = d.names[:kept:kept]
	d.counts = d.counts[:kept:kept]
	for i, n := range d.names {
		d.ids[n] = int32(i)
	}
	return remap
}

// index is a read-only hash table from a name to its ID: linear probing
// over 32-byte slots that hold the key's length, 24 bits of its hash and
// its first inlineKey bytes, so that most lookups, hits and misses alike,
// read one cache line. Longer keys are completed from names.
type index struct {
	seed  maphash.Seed
	slots []slot
	mask  uint64
	names []string
}

const inlineKey = 24

type slot struct {
	// meta is hash>>40<<8 | min(len(key), 255); id1 is ID+1, 0 for an
	// empty slot.
	meta uint32
	id1  uint32
	key  [inlineKey]byte
}

func newIndex(names []string) *index {
	n := max(len(names)+len(names)/2, 8)
	size := 1 << bits.Len(uint(n-1))
	x := &index{seed: maphash.MakeSeed(), slots: make([]slot, size), mask: uint64(size - 1), names: names}
	for i, name := range names {
		h := maphash.String(x.seed, name)
		meta := x.meta(h, len(name))
		for j := h & x.mask; ; j = (j + 1) & x.mask {
			s := &x.slots[j]
			if s.id1 == 0 {
				s.meta, s.id1 = meta, uint32(i)+1
				copy(s.key[:], name)
				break
			}
			if s.meta == meta && x.equalString(s, name) {
				s.id1 = uint32(i) + 1 // a duplicate name: the last ID wins, as it did with the map
				break
			}
		}
	}
	return x
}

func (x *index) meta(h uint64, n int) uint32 {
	return uint32(h>>40)<<8 | uint32(min(n, 255))
}

// hash returns the hash of key that lookup and prefetch take.
func (x *index) hash(key []byte) uint64 { return maphash.Bytes(x.seed, key) }

// prefetch reads the slot where the key of hash h is looked up first, so
// that a batch of lookups can overlap their cache misses.
func (x *index) prefetch(h uint64) uint32 { return x.slots[h&x.mask].meta }

func (x *index) lookup(key []byte, h uint64) (int32, bool) {
	meta := x.meta(h, len(key))
	for j := h & x.mask; ; j = (j + 1) & x.mask {
		s := &x.slots[j]
		if s.id1 == 0 {
			return 0, false
		}
		if s.meta == meta {
			if len(key) <= inlineKey {
				if string(s.key[:len(key)]) == string(key) {
					return int32(s.id1 - 1), true
				}
			} else if string(s.key[:]) == string(key[:inlineKey]) && x.names[s.id1-1][inlineKey:] == string(key[inlineKey:]) {
				return int32(s.id1 - 1), true
			}
		}
	}
}

func (x *index) lookupString(key string) (int32, bool) {
	h := maphash.String(x.seed, key)
	meta := x.meta(h, len(key))
	for j := h & x.mask; ; j = (j + 1) & x.mask {
		s := &x.slots[j]
		if s.id1 == 0 {
			return 0, false
		}
		if s.meta == meta && x.equalString(s, key) {
			return int32(s.id1 - 1), true
		}
	}
}

func (x *index) equalString(s *slot, key string) bool {
	if len(key) <= inlineKey {
		return string(s.key[:len(key)]) == key
	}
	return string(s.key[:]) == key[:inlineKey] && x.names[s.id1-1][inlineKey:] == key[inlineKey:]
}

// slimIndex is Compact's index: linear probing over the IDs+1 of the
// names (0 marks an empty slot), at most half full.
type slimIndex struct {
	seed  maphash.Seed
	slots []uint32
	mask  uint64
	names []string
}

func newSlimIndex(names []string) *slimIndex {
	size := 1 << bits.Len(uint(max(2*len(names), 8)-1))
	x := &slimIndex{seed: maphash.MakeSeed(), slots: make([]uint32, size), mask: uint64(size - 1), names: names}
	for i, name := range names {
		for j := maphash.String(x.seed, name) & x.mask; ; j = (j + 1) & x.mask {
			id1 := x.slots[j]
			if id1 == 0 || names[id1-1] == name {
				x.slots[j] = uint32(i) + 1 // a duplicate name: the last ID wins, as with the map
				break
			}
		}
	}
	return x
}

func (x *slimIndex) lookup(key string) (int32, bool) {
	for j := maphash.String(x.seed, key) & x.mask; ; j = (j + 1) & x.mask {
		id1 := x.slots[j]
		if id1 == 0 {
			return 0, false
		}
		if x.names[id1-1] == key {
			return int32(id1 - 1), true
		}
	}
}

// lookupBytes is lookup for a []byte key, without converting it.
func (x *slimIndex) lookupBytes(key []byte) (int32, bool) {
	for j := maphash.Bytes(x.seed, key) & x.mask; ; j = (j + 1) & x.mask {
		id1 := x.slots[j]
		if id1 == 0 {
			return 0, false
		}
		if x.names[id1-1] == string(key) {
			return int32(id1 - 1), true
		}
	}
}
