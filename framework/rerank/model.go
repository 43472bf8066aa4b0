// model.go holds the trained reranker — settings, feature keys and
// weights — its deterministic JSON and binary forms, and reranking with it.
package rerank

import (
	"bytes"
	"encoding"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// Model is a trained reranker. Features[id] is the key of Weights[id];
// feature 0 is the score feature. Only features with a nonzero weight are
// kept, in the order training met them.
type Model struct {
	Settings Settings  `json:"settings"`
	Features []string  `json:"features"`
	Weights  []float64 `json:"weights"`
	// dict is Features frozen into a Dict, built once by check (decoding)
	// or NewModel: Rerank only reads it, so the tagger's replicas share it
	// instead of rebuilding a map of every feature for each batch.
	dict *Dict
}

var (
	_ encoding.BinaryMarshaler   = (*Model)(nil)
	_ encoding.BinaryUnmarshaler = (*Model)(nil)
	_ json.Unmarshaler           = (*Model)(nil)
)

// ReadsDocuments reports whether m's features read a sentence's document
// (the doc group): only then must the tagger batch whole documents.
func (m *Model) ReadsDocuments() bool {
	return m.Settings.Features == nil || slices.Contains(m.Settings.Features, GroupDoc)
}

// NewModel keeps the features of dict whose weight in w is not zero
// (the score feature always).
func NewModel(s Settings, dict *Dict, w []float64) (*Model, error) {
	if len(w) != dict.Len() {
		return nil, fmt.Errorf("%w: %d weights for %d features", ErrModelFormat, len(w), dict.Len())
	}
	m := &Model{Settings: s, Features: []string{scoreFeatureKey}, Weights: []float64{w[scoreFeature]}}
	for id := scoreFeature + 1; id < len(w); id++ {
		if w[id] != 0 {
			m.Features = append(m.Features, dict.Name(int32(id)))
			m.Weights = append(m.Weights, w[id])
		}
	}
	return m, m.check()
}

// check validates a decoded model.
func (m *Model) check() error {
	if len(m.Features) == 0 || m.Features[scoreFeature] != scoreFeatureKey || len(m.Weights) != len(m.Features) {
		return fmt.Errorf("%w: %d features, %d weights", ErrModelFormat, len(m.Features), len(m.Weights))
	}
	d := frozenDict(m.Features)
	for id, k := range m.Features {
		if got, _ := d.d.LookupString(k); got != int32(id) {
			return fmt.Errorf("%w: feature %q twice", ErrModelFormat, k)
		}
		if v := m.Weights[id]; math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: feature %q weighs %g", ErrModelFormat, k, v)
		}
	}
	if _, err := m.Settings.learner(); err != nil {
		return fmt.Errorf("%w: %w", ErrModelFormat, err)
	}
	m.dict = d
	return nil
}

// Rerank chooses a candidate of each list: the result is a [lists] slice
// whose element i is the rank of list i's best candidate under the model
// (ties to the better rank). The lists are reranked together, since the
// document features read the other sentences' 1-best: pass whole
// documents.
func (m *Model) Rerank(lists []List) ([]int, error) {
	if err := checkLists(lists, false); err != nil {
		return nil, err
	}
	if m.dict == nil { // a Model built by hand, not by NewModel or decoding
		if err := m.check(); err != nil {
			return nil, err
		}
	}
	ex, err := NewExtractor(m.dict, m.Settings.Features)
	if err != nil {
		return nil, err
	}
	set, err := Encode(lists, ex)
	if err != nil {
		return nil, err
	}
	return set.Best(nil, m.Weights), nil
}

// UnmarshalJSON decodes and validates a model.
func (m *Model) UnmarshalJSON(b []byte) error {
	type plain Model // without the method
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("%w: %w", ErrModelFormat, err)
	}
	if err := (*Model)(&p).check(); err != nil {
		return err
	}
	*m = Model(p)
	return nil
}

// binaryMagic starts the binary form; the digit is its version.
const binaryMagic = "trellis-rerank 1\n"

// MarshalBinary is the compact form: the magic line, the settings as
// JSON, the feature keys and the weights' IEEE bits, lengths as uvarints.
// The same model gives the same bytes.
func (m *Model) MarshalBinary() ([]byte, error) {
	settings, err := json.Marshal(m.Settings)
	if err != nil {
		return nil, err
	}
	b := append([]byte(binaryMagic), binary.AppendUvarint(nil, uint64(len(settings)))...)
	b = append(b, settings...)
	b = binary.AppendUvarint(b, uint64(len(m.Features)))
	for _, k := range m.Features {
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
	}
	for _, v := range m.Weights {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b, nil
}

// UnmarshalBinary decodes and validates MarshalBinary's form.
func (m *Model) UnmarshalBinary(data []byte) error {
	r := binReader{b: data}
	if !bytes.HasPrefix(data, []byte(binaryMagic)) {
		return fmt.Errorf("%w: no %q header", ErrModelFormat, binaryMagic[:len(binaryMagic)-1])
	}
	r.b = r.b[len(binaryMagic):]
	var p Model
	if err := json.Unmarshal(r.bytes(), &p.Settings); err != nil && r.err == nil {
		r.err = err
	}
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
	}
	for i := uint64(0); i < n && r.err == nil; i++ {
		p.Features = append(p.Features, string(r.bytes()))
	}
	for i := uint64(0); i < n && r.err == nil; i++ {
		p.Weights = append(p.Weights, math.Float64frombits(binary.LittleEndian.Uint64(r.next(8))))
	}
	if r.err == nil && len(r.b) > 0 {
		r.err = fmt.Errorf("%d bytes after the weights", len(r.b))
	}
	if r.err != nil {
		return fmt.Errorf("%w: %w", ErrModelFormat, r.err)
	}
	if err := p.check(); err != nil {
		return err
	}
	p.Features, p.Weights = slices.Clip(p.Features), slices.Clip(p.Weights)
	*m = p
	return nil
}

// binReader reads the binary form, remembering the first error; reads
// after it return zeros.
type binReader struct {
	b   []byte
	err error
}

func (r *binReader) fail() {
	if r.err == nil {
		r.err = fmt.Errorf("truncated")
	}
	r.b = nil
}

func (r *binReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *binReader) next(n int) []byte {
	if r.err != nil || n > len(r.b) {
		r.fail()
		return make([]byte, n)
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

// bytes reads a uvarint length and that many bytes.
func (r *binReader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	return r.next(int(n))
}
