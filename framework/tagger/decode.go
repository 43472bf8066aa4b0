package tagger

import (
	"math"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// decoder is the plain tagging path's copy of a model, laid out for one
// sentence at a time: the state features of an attribute packed together
// (label and weight side by side, one cache miss instead of two), and the
// transitions transposed so that Viterbi reads them contiguously. It
// computes exactly what linear.Model.StateScores and
// lattice.Workspace.Viterbi compute, in the same order, so the results
// are the same to the bit.
type decoder struct {
	l int
	// Dense models (the HMM: every attribute scores every label, in
	// order) read the weights in place: attribute a owns
	// dense[a*l:(a+1)*l].
	dense []float64
	// Sparse models: attribute a owns feats[off[a]:off[a+1]].
	off   []int32
	feats []feat
	// transT[y*l+p] is the (constrained) weight of the transition p → y.
	transT []float64
	// When constraints forbid some transitions into y (weight -Inf, which
	// can never win the max), preds[y] lists only the allowed ones, in
	// increasing p; it is nil when every p is allowed.
	preds       [][]edge
	start, stop []float64
	delta       []float64
	back        []int32
}

type edge struct {
	p int32
	w float64
}

type feat struct {
	y int32
	w float64
}

func newDecoder(lm *linear.Model, trans, start, stop []float64) *decoder {
	l := lm.NumLabels
	d := &decoder{l: l, start: start, stop: stop, transT: make([]float64, l*l)}
	for p := 0; p < l; p++ {
		for y := 0; y < l; y++ {
			d.transT[y*l+p] = trans[p*l+y]
		}
	}
	d.preds = make([][]edge, l)
	for y := 0; y < l; y++ {
		var es []edge
		for p := 0; p < l; p++ {
			if w := trans[p*l+y]; !math.IsInf(w, -1) {
				es = append(es, edge{int32(p), w})
			}
		}
		if len(es) < l {
			d.preds[y] = es
		}
	}
	nf := lm.NumFeatures()
	if isDense(lm) {
		d.dense = lm.W[:nf]
		return d
	}
	d.off = lm.FeatOff
	d.feats = make([]feat, nf)
	for f, y := range lm.FeatLabel {
		d.feats[f] = feat{y, lm.W[f]}
	}
	return d
}

func isDense(lm *linear.Model) bool {
	l := lm.NumLabels
	if len(lm.FeatLabel) != lm.NumAttrs()*l {
		return false
	}
	for a, o := range lm.FeatOff {
		if int(o) != a*l {
			return false
		}
	}
	for f, y := range lm.FeatLabel {
		if int(y) != f%l {
			return false
		}
	}
	return true
}

// stateScores writes the state scores of tokens [start, end) of data into
// dst, as linear.Model.StateScores does with the model's own weights.
func (d *decoder) stateScores(dst []float64, data *feature.Dataset, start, end int) {
	l := d.l
	clear(dst)
	for t := start; t < end; t++ {
		row := dst[(t-start)*l : (t-start+1)*l]
		lo, hi := data.TokenOff[t], data.TokenOff[t+1]
		attrs := data.Attrs[lo:hi]
		var vals []float64
		if data.Values != nil {
			vals = data.Values[lo:hi]
		}
		switch {
		case d.dense != nil && vals == nil:
			for _, a := range attrs {
				ws := d.dense[int(a)*l : int(a)*l+l]
				for y := range row {
					row[y] += ws[y]
				}
			}
		case d.dense != nil:
			for k, a := range attrs {
				v := vals[k]
				ws := d.dense[int(a)*l : int(a)*l+l]
				for y := range row {
					row[y] += v * ws[y]
				}
			}
		case vals == nil:
			for _, a := range attrs {
				for _, f := range d.feats[d.off[a]:d.off[a+1]] {
					row[f.y] += f.w
				}
			}
		default:
			for k, a := range attrs {
				v := vals[k]
				for _, f := range d.feats[d.off[a]:d.off[a+1]] {
					row[f.y] += v * f.w
				}
			}
		}
	}
}

// viterbi is lattice.Workspace.Viterbi over state (n*l scores) with the
// decoder's transitions: the same sums and comparisons in the same order,
// ties to the lowest label.
func (d *decoder) viterbi(dst []int32, state []float64) float64 {
	n, l := len(dst), d.l
	if n == 0 {
		return 0
	}
	if cap(d.delta) < n*l {
		d.delta = make([]float64, 2*n*l)
		d.back = make([]int32, 2*n*l)
	}
	delta, back := d.delta[:n*l], d.back[:n*l]
	start, stop := d.start[:l], d.stop[:l]
	for y := 0; y < l; y++ {
		delta[y] = start[y] + state[y]
	}
	transT := d.transT[:l*l]
	for i := 1; i < n; i++ {
		prev := delta[(i-1)*l : i*l]
		cur := delta[i*l : (i+1)*l]
		bp := back[i*l : (i+1)*l]
		st := state[i*l : (i+1)*l]
		for y := range cur {
			if es := d.preds[y]; es != nil {
				// prev[p] + -Inf is -Inf (or NaN), which is never > best:
				// skipping those p changes nothing.
				best, arg := math.Inf(-1), int32(0)
				for _, e := range es {
					if v := prev[e.p] + e.w; v > best {
						best, arg = v, e.p
					}
				}
				cur[y] = best + st[y]
				bp[y] = arg
				continue
			}
			tr := transT[y*l : (y+1)*l]
			tr = tr[:len(prev)]
			// Four independent running maxima, over p mod 4, then merged:
			// the same maximum, ties to the lowest p (so the same result
			// as one scan), with a quarter of the dependency chain.
			ninf := math.Inf(-1)
			b0, b1, b2, b3 := ninf, ninf, ninf, ninf
			a0, a1, a2, a3 := 0, 0, 0, 0
			p := 0
			for ; p+3 < len(prev); p += 4 {
				if v := prev[p] + tr[p]; v > b0 {
					b0, a0 = v, p
				}
				if v := prev[p+1] + tr[p+1]; v > b1 {
					b1, a1 = v, p+1
				}
				if v := prev[p+2] + tr[p+2]; v > b2 {
					b2, a2 = v, p+2
				}
				if v := prev[p+3] + tr[p+3]; v > b3 {
					b3, a3 = v, p+3
				}
			}
			for ; p < len(prev); p++ {
				if v := prev[p] + tr[p]; v > b0 {
					b0, a0 = v, p
				}
			}
			b0, a0 = better(b0, a0, b1, a1)
			b2, a2 = better(b2, a2, b3, a3)
			b0, a0 = better(b0, a0, b2, a2)
			cur[y] = b0 + st[y]
			bp[y] = int32(a0)
		}
	}
	last := delta[(n-1)*l : n*l]
	best, arg := math.Inf(-1), int32(0)
	for y, v := range last {
		if v := v + stop[y]; v > best {
			best, arg = v, int32(y)
		}
	}
	dst[n-1] = arg
	for i := n - 1; i > 0; i-- {
		dst[i-1] = back[i*l+int(dst[i])]
	}
	return best
}

// better merges two running maxima of the Viterbi scan: the larger, or on
// a tie the one with the lower index. A maximum still at -Inf was never
// set (its index means nothing), and loses to any set one.
func better(b0 float64, a0 int, b1 float64, a1 int) (float64, int) {
	if b1 > b0 || (b1 == b0 && b1 > math.Inf(-1) && a1 < a0) {
		return b1, a1
	}
	return b0, a0
}
