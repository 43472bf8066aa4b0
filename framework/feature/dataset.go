package feature

import "fmt"

// Dataset is a corpus encoded once into compact arrays. Token t's
// attributes are Attrs[TokenOff[t]:TokenOff[t+1]] with values
// Values[same range] (Values is nil when every value is 1, the common case,
// so learners can skip the multiply). Sentence s covers tokens
// SentOff[s]:SentOff[s+1]. Labels[t] is the gold label ID, or -1 when the
// label is unknown to the model (seen only in test) or absent.
type Dataset struct {
	Attrs    []int32
	Values   []float64
	TokenOff []int
	SentOff  []int
	Labels   []int32
}

// NewDataset returns an empty dataset ready for appending.
func NewDataset() *Dataset {
	return &Dataset{TokenOff: []int{0}, SentOff: []int{0}}
}

// NumSentences returns the number of sentences.
func (d *Dataset) NumSentences() int { return len(d.SentOff) - 1 }

// NumTokens returns the number of tokens.
func (d *Dataset) NumTokens() int { return len(d.TokenOff) - 1 }

// Sentence returns the token range [start, end) of sentence s.
func (d *Dataset) Sentence(s int) (start, end int) { return d.SentOff[s], d.SentOff[s+1] }

// MaxSentenceLen returns the length of the longest sentence.
func (d *Dataset) MaxSentenceLen() int {
	m := 0
	for s := 0; s < d.NumSentences(); s++ {
		if n := d.SentOff[s+1] - d.SentOff[s]; n > m {
			m = n
		}
	}
	return m
}

// Value returns the value of attribute occurrence k.
func (d *Dataset) Value(k int) float64 {
	if d.Values == nil {
		return 1
	}
	return d.Values[k]
}

// Check verifies the dataset's internal consistency against the sizes of
// the model it will be used with. It guards learners from index panics on
// a dataset built elsewhere (a plugin, a file).
func (d *Dataset) Check(numAttrs, numLabels int) error {
	if len(d.TokenOff) != len(d.Labels)+1 || len(d.SentOff) == 0 || d.SentOff[len(d.SentOff)-1] != len(d.Labels) {
		return fmt.Errorf("feature: dataset offsets inconsistent")
	}
	if d.Values != nil && len(d.Values) != len(d.Attrs) {
		return fmt.Errorf("feature: dataset has %d values for %d attributes", len(d.Values), len(d.Attrs))
	}
	for _, a := range d.Attrs {
		if a < 0 || int(a) >= numAttrs {
			return fmt.Errorf("feature: attribute ID %d out of range [0,%d)", a, numAttrs)
		}
	}
	for _, y := range d.Labels {
		if y < -1 || int(y) >= numLabels {
			return fmt.Errorf("feature: label ID %d out of range [0,%d)", y, numLabels)
		}
	}
	return nil
}

// materializeValues makes Values explicit (all 1 so far), before the
// first value that is not 1 is appended.
func (d *Dataset) materializeValues() {
	d.Values = make([]float64, len(d.Attrs), cap(d.Attrs))
	for k := range d.Values {
		d.Values[k] = 1
	}
}

// padValues gives the attributes appended without a value the value 1.
func (d *Dataset) padValues() {
	for len(d.Values) < len(d.Attrs) {
		d.Values = append(d.Values, 1)
	}
}

// Remap rewrites attribute IDs after Dictionary.Prune, dropping the pruned
// ones (remap[id] == -1) in place.
func (d *Dataset) Remap(remap []int32) {
	w := 0
	start := 0
	for t := 0; t < d.NumTokens(); t++ {
		end := d.TokenOff[t+1]
		for k := start; k < end; k++ {
			if nid := remap[d.Attrs[k]]; nid >= 0 {
				d.Attrs[w] = nid
				if d.Values != nil {
					d.Values[w] = d.Values[k]
				}
				w++
			}
		}
		start = end
		d.TokenOff[t+1] = w
	}
	d.Attrs = d.Attrs[:w]
	if d.Values != nil {
		d.Values = d.Values[:w]
	}
}

// AppendSentences appends sentences [lo, hi) of src after d's own, their
// offsets rebased onto d's.
func (d *Dataset) AppendSentences(src *Dataset, lo, hi int) {
	t0, t1 := src.SentOff[lo], src.SentOff[hi]
	a0, a1 := src.TokenOff[t0], src.TokenOff[t1]
	if src.Values != nil && d.Values == nil {
		d.materializeValues()
	}
	tokBase, attrBase := d.NumTokens()-t0, len(d.Attrs)-a0
	for _, off := range src.SentOff[lo+1 : hi+1] {
		d.SentOff = append(d.SentOff, off+tokBase)
	}
	for _, off := range src.TokenOff[t0+1 : t1+1] {
		d.TokenOff = append(d.TokenOff, off+attrBase)
	}
	d.Labels = append(d.Labels, src.Labels[t0:t1]...)
	d.Attrs = append(d.Attrs, src.Attrs[a0:a1]...)
	switch {
	case src.Values != nil:
		d.Values = append(d.Values, src.Values[a0:a1]...)
	case d.Values != nil:
		d.padValues()
	}
}

// Reset empties d, keeping its memory.
func (d *Dataset) Reset() {
	d.Attrs, d.Labels = d.Attrs[:0], d.Labels[:0]
	d.TokenOff, d.SentOff = d.TokenOff[:1], d.SentOff[:1]
	d.Values = nil
}

// Subset is d's sentences sents, in that order, as a Dataset of their own
// (what a worker holding only those sentences trains on).
func (d *Dataset) Subset(sents []int) *Dataset {
	out := NewDataset()
	for _, s := range sents {
		out.AppendSentences(d, s, s+1)
	}
	return out
}
