// dict.go holds the feature dictionary: feature keys interned into dense
// IDs by the project's feature.Dictionary, which a frozen dictionary (a
// loaded model's) looks up through its flat read-only index.
package rerank

import "github.com/trellis-nlp/trellis/framework/feature"

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
	d      *feature.Dictionary
	frozen bool
}

// NewDict returns a dictionary holding only the reserved score feature.
func NewDict() *Dict {
	d := &Dict{d: feature.NewDictionary()}
	d.d.InternString(scoreFeatureKey)
	return d
}

// frozenDict is the frozen dictionary of a model's features, in ID order.
func frozenDict(names []string) *Dict {
	return &Dict{d: feature.DictionaryOf(names), frozen: true}
}

// ID returns key's ID, adding it unless the dictionary is frozen. A known
// key costs no allocation; only a new one does.
func (d *Dict) ID(key []byte) (int32, bool) {
	if d.frozen {
		return d.d.Lookup(key)
	}
	return d.d.Intern(key), true
}

// Len is the number of features.
func (d *Dict) Len() int { return d.d.Len() }

// Name is the key of feature id.
func (d *Dict) Name(id int32) string { return d.d.Name(id) }

// Freeze stops the dictionary from growing.
func (d *Dict) Freeze() { d.frozen = true }
