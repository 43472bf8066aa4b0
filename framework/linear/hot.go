package linear

import "sort"

// HotRows is the dense layout of a model's frequent attributes: those with
// state features for at least a third of the labels (isHot). Each gets a
// row of L weights, zero where it has no feature, so that scoring it is
// one row added with the AVX kernel (rows.go) — about L/4 vector adds —
// instead of one scattered scalar add per feature, and a CRF's expected
// counts for it are one row added to a dense row of the gradient. Few
// attributes are hot, but they carry most of the state features' additions
// (docs/results.md, "Measurements behind design choices in the code").
// Rows add the same numbers in the same order as the sparse loops (adding
// the zeros changes nothing), so every result keeps its bits.
//
// A HotRows depends only on the model's structure (FeatOff, FeatLabel):
// Model.HotRows builds it once; it is read-only, safe for concurrent use.
// The weights it lays out are a separate slice (Gather), as they change
// between uses.
type HotRows struct {
	l int
	// ref is, per attribute, −1−row for a hot one, and off[a]<<32 |
	// off[a+1] (its features) for a sparse one: one load per attribute
	// occurrence decides and locates, where FeatOff and a row index would
	// take two cache lines. attrs is, per row, its attribute.
	ref         []int64
	attrs       []int32
	off, labels []int32
}

// span returns the features of a sparse attribute from its ref.
func span(ref int64) (f0, f1 int32) { return int32(ref >> 32), int32(ref) }

// isHot reports whether an attribute with nf features among l labels gets
// a dense row: a row costs about l/4 vector additions against nf scalar
// ones, and rows of rare attributes would spread the hot ones over more
// cache. A third of the labels is about the best cut (measured with
// BenchmarkStateScoresConll2000 and the CRF gradient; docs/results.md,
// "Measurements behind design choices in the code").
func isHot(nf, l int) bool { return nf >= 2 && 3*nf >= l }

// HotRows returns the model's hot rows, built on first use. A dense model
// (every attribute scoring every label) has none: its weights are rows
// already.
func (m *Model) HotRows() *HotRows {
	if h := m.hot.Load(); h != nil {
		return h
	}
	h := &HotRows{l: m.NumLabels, off: m.FeatOff, labels: m.FeatLabel}
	if !m.dense() {
		h.ref = make([]int64, m.NumAttrs())
		for a := range h.ref {
			h.ref[a] = int64(m.FeatOff[a])<<32 | int64(m.FeatOff[a+1])
			if isHot(int(m.FeatOff[a+1]-m.FeatOff[a]), m.NumLabels) {
				h.ref[a] = -1 - int64(len(h.attrs))
				h.attrs = append(h.attrs, int32(a))
			}
		}
	}
	m.hot.Store(h)
	return h
}

// Len returns the number of hot rows; their weights take Len()·L values.
func (h *HotRows) Len() int { return len(h.attrs) }

// Gather returns the hot rows' weights taken from w (laid out as the
// model's W): Len()·L values, zero where an attribute has no feature,
// reusing dst's storage when it is large enough.
func (h *HotRows) Gather(dst, w []float64) []float64 {
	n := len(h.attrs) * h.l
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	clear(dst)
	for r, a := range h.attrs {
		row := dst[r*h.l : (r+1)*h.l]
		for f := h.off[a]; f < h.off[a+1]; f++ {
			row[h.labels[f]] = w[f]
		}
	}
	return dst
}

// set records, in hot weights dense (from Gather), that state weight f is
// now v, if f belongs to a hot attribute.
func (h *HotRows) set(dense []float64, f int, v float64) {
	if len(h.attrs) == 0 {
		return
	}
	// The attribute owning f: the last a with off[a] <= f.
	a := sort.Search(len(h.ref), func(a int) bool { return int(h.off[a+1]) > f })
	if ref := h.ref[a]; ref < 0 {
		dense[int(-1-ref)*h.l+int(h.labels[f])] = v
	}
}

// AddExpectations adds the probabilities row (one token's L state
// marginals) to the expected counts of the state features of the token's
// binary attributes attrs: a sparse attribute's straight into g (laid out
// as the model's W), a hot one's into its row of dense (Len()·L values,
// moved into g by Scatter). Each count receives the same additions in the
// same order as when every attribute is added into g.
func (h *HotRows) AddExpectations(g, dense []float64, attrs []int32, row []float64) {
	var buf [32]int32
	batch := buf[:0]
	for _, a := range attrs {
		ref := h.ref[a]
		if ref < 0 {
			if len(batch) == len(buf) {
				addToRows(dense, batch, h.l, row)
				batch = batch[:0]
			}
			batch = append(batch, int32(-1-ref))
			continue
		}
		f0, f1 := span(ref)
		lab := h.labels[f0:f1]
		gf := g[f0:f1]
		gf = gf[:len(lab)]
		for j, y := range lab {
			gf[j] += row[y]
		}
	}
	if len(batch) > 0 {
		addToRows(dense, batch, h.l, row)
	}
}

// Scatter adds the hot rows' counts in dense to their features in g:
// g[f] += dense[row][label of f]. Into a g whose hot features are zero it
// writes the counts themselves, bit for bit.
func (h *HotRows) Scatter(g, dense []float64) {
	for r, a := range h.attrs {
		row := dense[r*h.l : (r+1)*h.l]
		for f := h.off[a]; f < h.off[a+1]; f++ {
			g[f] += row[h.labels[f]]
		}
	}
}
