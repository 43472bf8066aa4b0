// dict.go holds the feature dictionary: feature keys interned into dense
// IDs, looked up from a byte buffer so that a known key costs no
// allocation.
package rerank

// scoreFeature is the ID of the one real-valued feature, the first pass's
// score relative to its 1-best; every dictionary reserves it.
const (
	scoreFeature    = 0
	scoreFeatureKey = "score"
)

// Dict maps feature keys to dense IDs in order of first sight. It grows
// while training lists are encoded and is frozen (Freeze) for scoring,
// when unknown keys have no ID.
type Dict struct {
	index  map[string]int32
	names  []string
	frozen bool
}

// NewDict returns a dictionary holding only the reserved score feature.
func NewDict() *Dict {
	d := &Dict{index: map[string]int32{}}
	d.add(scoreFeatureKey)
	return d
}

func (d *Dict) add(key string) int32 {
	id := int32(len(d.names))
	d.index[key] = id
	d.names = append(d.names, key)
	return id
}

// ID returns key's ID, adding it unless the dictionary is frozen. The map
// lookup with string(key) does not allocate; only a new key does.
func (d *Dict) ID(key []byte) (int32, bool) {
	if id, ok := d.index[string(key)]; ok {
		return id, true
	}
	if d.frozen {
		return 0, false
	}
	return d.add(string(key)), true
}

// Len is the number of features.
func (d *Dict) Len() int { return len(d.names) }

// Name is the key of feature id.
func (d *Dict) Name(id int32) string { return d.names[id] }

// Freeze stops the dictionary from growing.
func (d *Dict) Freeze() { d.frozen = true }
