package linear

import (
	"math"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
)

// Scorer computes state scores — the State half of a lattice — from one
// weight vector of a model. It is the only implementation of state
// scoring: Model.StateScores, the tagger, the perceptron and dev scoring
// all run its StateScores.
//
// The layouts live here, not in lattice, because they are layouts of a
// Model's weights over a feature.Dataset's attributes, and lattice knows
// neither: it scores lattices, whoever filled them. Three layouts:
//
//   - dense: a model in which every attribute scores every label in order
//     (the HMM, features = "all") reads the weights in place, attribute
//     a's row being w[a*L:(a+1)*L];
//   - packed (NewScorer, for weights read many times between changes: a
//     model being applied, dev scoring): each feature's label and weight
//     side by side, one cache miss per feature instead of two, at the cost
//     of a copy of the state weights, kept in step through Set;
//   - in place (InPlaceScorer, Model.StateScores, for weights that change
//     between most calls: the perceptron's, an optimizer's trial points):
//     FeatLabel and the weights read where they are, as a copy would cost
//     a second write per update or a copy per call for no gain.
//
// Every layout adds the same products in the same order (attribute by
// attribute, features in label order), so all three give the same bits.
type Scorer struct {
	l   int
	off []int32
	// Exactly one of dense, packed and (labels, w) is set.
	dense  []float64
	packed []feat
	labels []int32
	w      []float64
	// local, for a locally normalized model: its transition and start
	// weights, from which Lattice computes the normalizers, and
	// exp(Trans[p][c] − maxTrans[p]) with maxTrans[p] the row's maximum.
	local              bool
	trans, start       []float64
	expTrans, maxTrans []float64
	// pairOff, pairKey and pairW (the pair weights in w, read in place)
	// are the model's pair features; nil without any.
	pairOff, pairKey []int32
	pairW            []float64
	// pairExp is exp(pairW) as ExpPairs last saw them (in pairExpBuf,
	// kept across ResetInPlace); when set, Lattice also fills
	// Scores.TransAtExp.
	pairExp, pairExpBuf []float64
	// hot, when set, are the model's hot rows and hotW their weights:
	// binary attributes with a row are added a row at a time (HotRows).
	// A packed Scorer gathers hotW into hotBuf itself (Reset); an in-place
	// one gets it from its caller (UseHotRows).
	hot          *HotRows
	hotW, hotBuf []float64
	// scale, when not 0, multiplies every state and pair score once
	// they are summed (Model.ScaledLattice: weights kept as scale·w).
	scale float64
}

// feat is a packed state feature: the label it scores and its weight.
type feat struct {
	y int32
	w float64
}

// NewScorer returns a Scorer of m's state weights in w (a vector laid out
// as m.W): dense models read w in place, others get a packed copy.
func (m *Model) NewScorer(w []float64) *Scorer {
	s := &Scorer{}
	s.Reset(m, w)
	return s
}

// InPlaceScorer returns a Scorer that reads m's state weights from w
// itself, whatever the model's shape: writes to w need no Set.
func (m *Model) InPlaceScorer(w []float64) *Scorer {
	s := m.inPlace(w)
	if m.dense() {
		s.dense, s.labels, s.w = w[:m.NumFeatures()], nil, nil
	}
	s.setLocal(m, w)
	return &s
}

// ResetInPlace makes s what InPlaceScorer(w) returns, reusing s's
// buffers (for a caller that rescores at new weights many times: a CRF's
// gradient pass, once per shard and evaluation).
func (s *Scorer) ResetInPlace(m *Model, w []float64) {
	buf, et, mt, hb := s.pairExpBuf, s.expTrans, s.maxTrans, s.hotBuf
	*s = m.inPlace(w)
	s.pairExpBuf, s.expTrans, s.maxTrans, s.hotBuf = buf, et, mt, hb
	if m.dense() {
		s.dense, s.labels, s.w = w[:m.NumFeatures()], nil, nil
	}
	s.setLocal(m, w)
}

// UseHotRows makes s add the attributes of h (the hot rows of s's model)
// a row at a time from dense, their weights as h.Gather lays them out —
// for an in-place Scorer whose caller gathers the weights once per change
// of them (a CRF's gradient pass, once per evaluation) and shares them
// between threads. The caller gathers again after changing the weights:
// Set does not see dense.
func (s *Scorer) UseHotRows(h *HotRows, dense []float64) {
	if len(dense) != h.Len()*s.l || s.dense != nil {
		panic("linear: UseHotRows with weights of another layout")
	}
	if s.packed != nil {
		// A packed Scorer gathers its own rows into hotBuf; taking the
		// caller's shared slice would let Set write into it.
		panic("linear: UseHotRows on a packed Scorer")
	}
	s.hot, s.hotW = h, dense
}

// inPlace is the in-place Scorer without the dense check, which reads
// every label, and without a local model's normalizers (Model.Lattice
// takes them from the model's cache): Model.StateScores builds one per
// call.
func (m *Model) inPlace(w []float64) Scorer {
	s := Scorer{l: m.NumLabels, off: m.FeatOff, labels: m.FeatLabel, w: w}
	s.setPairs(m, w)
	return s
}

// setPairs records m's pair features, whose weights in w are read in
// place by every layout: they are read once per occurrence, so a packed
// copy would gain nothing.
func (s *Scorer) setPairs(m *Model, w []float64) {
	s.pairOff, s.pairKey, s.pairW, s.pairExp = nil, nil, nil, nil
	if m.PairOff != nil {
		s.pairOff, s.pairKey, s.pairW = m.PairOff, m.PairKey, w[m.PairBase():m.PairBase()+m.NumPairs()]
	}
}

// setLocal records a local model's transition and start weights in w and
// prepares exp(Trans) for normalize.
func (s *Scorer) setLocal(m *Model, w []float64) {
	s.local, s.trans, s.start = m.Local, nil, nil
	if !m.Local {
		return
	}
	f, l := m.NumFeatures(), m.NumLabels
	s.trans, s.start = w[f:f+l*l], w[f+l*l:f+l*l+l]
	if cap(s.expTrans) < l*l {
		s.expTrans, s.maxTrans = make([]float64, l*l), make([]float64, l)
	}
	s.expTrans, s.maxTrans = s.expTrans[:l*l], s.maxTrans[:l]
	expRows(s.expTrans, s.maxTrans, s.trans, l)
}

// expRows sets maxTrans[p] to the maximum of row p of trans (L×L) and
// expTrans[p][c] to exp(trans[p][c] − maxTrans[p]).
func expRows(expTrans, maxTrans, trans []float64, l int) {
	for p := 0; p < l; p++ {
		tr := trans[p*l : (p+1)*l]
		mt := math.Inf(-1)
		for _, v := range tr {
			mt = max(mt, v)
		}
		maxTrans[p] = mt
		for c, v := range tr {
			expTrans[p*l+c] = math.Exp(v - mt)
		}
	}
}

// Reset makes s a packed (or dense) Scorer of m's state weights in w, as
// NewScorer does, reusing s's packed buffer when it is large enough.
func (s *Scorer) Reset(m *Model, w []float64) {
	nf := m.NumFeatures()
	s.l, s.off, s.labels, s.w = m.NumLabels, m.FeatOff, nil, nil
	s.setLocal(m, w)
	s.setPairs(m, w)
	s.hot, s.hotW = nil, nil
	if m.dense() {
		s.dense, s.packed = w[:nf], nil
		return
	}
	s.dense = nil
	if h := m.HotRows(); h.Len() > 0 {
		s.hotBuf = h.Gather(s.hotBuf, w)
		s.hot, s.hotW = h, s.hotBuf
	}
	if s.packed == nil || cap(s.packed) < nf {
		s.packed = make([]feat, nf)
	}
	s.packed = s.packed[:nf]
	for f, y := range m.FeatLabel {
		s.packed[f] = feat{y, w[f]}
	}
}

// Set records that state weight f is now v. Only a packed Scorer holds a
// copy to update (its packed features and hot rows); the other layouts
// read the weight vector itself, where the caller's own write already did
// it.
func (s *Scorer) Set(f int, v float64) {
	if s.packed != nil {
		s.packed[f].w = v
		if s.hot != nil {
			s.hot.set(s.hotW, f, v)
		}
	}
}

// dense reports whether every attribute scores every label, in order.
func (m *Model) dense() bool {
	l := m.NumLabels
	if len(m.FeatLabel) != m.NumAttrs()*l {
		return false
	}
	for a, o := range m.FeatOff {
		if int(o) != a*l {
			return false
		}
	}
	for f, y := range m.FeatLabel {
		if int(y) != f%l {
			return false
		}
	}
	return true
}

// Lattice sets dst's N, L and State to sentence sent of data, State
// resliced when its capacity allows. It leaves Trans, Start, Stop and
// Chain alone: they do not depend on the sentence, and decoders attach
// them once (lattice.Chain.Attach). For a locally normalized model it
// also sets TransAt (reusing its buffer) and subtracts position 0's
// normalizer from State's first row (see Model.Local); otherwise TransAt
// is nil, unless the model has pair features: then TransAt holds, for
// each position i > 0, the pair weights of token i's attributes (zero
// for bigrams that none of them scores).
func (s *Scorer) Lattice(dst *lattice.Scores, data *feature.Dataset, sent int) {
	start, end := data.Sentence(sent)
	n, l := end-start, s.l
	if cap(dst.State) < n*l {
		dst.State = make([]float64, n*l, 2*n*l)
	}
	dst.N, dst.L = n, l
	dst.State = dst.State[:n*l]
	s.StateScores(dst.State, data, start, end)
	switch {
	case s.local:
		s.normalize(dst)
		dst.TransAtExp = nil
	case s.pairOff != nil:
		s.pairScores(dst, data, start)
	default:
		dst.TransAt, dst.TransAtExp = nil, nil
	}
}

// ExpPairs exponentiates the pair weights as they are now, so that
// Lattice also fills Scores.TransAtExp with the products of their
// exponentials: a forward-backward over the lattice then needs no exp per
// bigram (a CRF's gradient pass, which calls it once per evaluation). The
// exponentials are a snapshot: call it again after the weights change.
// A model without pair features ignores it.
func (s *Scorer) ExpPairs() {
	if s.pairOff == nil {
		return
	}
	if cap(s.pairExpBuf) < len(s.pairW) {
		s.pairExpBuf = make([]float64, len(s.pairW))
	}
	s.pairExp = s.pairExpBuf[:len(s.pairW)]
	for k, w := range s.pairW {
		s.pairExp[k] = math.Exp(w)
	}
}

// pairScores fills dst.TransAt with the pair weights of the sentence whose
// first token is start: block i−1 (L×L) sums, over token start+i's
// attributes, value times weight of each of their pair features.
func (s *Scorer) pairScores(dst *lattice.Scores, data *feature.Dataset, start int) {
	n, l := dst.N, dst.L
	need := max(n-1, 0) * l * l
	if cap(dst.TransAt) < need {
		dst.TransAt = make([]float64, need, 2*need)
	}
	ta := dst.TransAt[:need]
	clear(ta)
	var te []float64
	if s.pairExp != nil {
		if s.scale != 0 {
			panic("linear: ExpPairs with scaled weights")
		}
		if cap(dst.TransAtExp) < need {
			dst.TransAtExp = make([]float64, need, 2*need)
		}
		te = dst.TransAtExp[:need]
		for k := range te {
			te[k] = 1
		}
	}
	off, keys, w := s.pairOff, s.pairKey, s.pairW
	for i := 1; i < n; i++ {
		blk := ta[(i-1)*l*l : i*l*l]
		t := start + i
		for k := data.TokenOff[t]; k < data.TokenOff[t+1]; k++ {
			a := data.Attrs[k]
			p0, p1 := off[a], off[a+1]
			if p0 == p1 {
				continue
			}
			v := data.Value(k)
			ks, ws := keys[p0:p1], w[p0:p1]
			ws = ws[:len(ks)]
			for j, key := range ks {
				blk[key] += v * ws[j]
			}
			if te != nil {
				s.expPairs(te[(i-1)*l*l:i*l*l], ks, p0, v)
			}
		}
	}
	s.applyScale(ta)
	dst.TransAt, dst.TransAtExp = ta, te
}

// expPairs multiplies the entries keys of blk by exp(v·w) of the pair
// features p0, p0+1, … (their keys): the product of the exponentials that
// pairScores adds up in TransAt.
func (s *Scorer) expPairs(blk []float64, keys []int32, p0 int32, v float64) {
	if v == 1 {
		pe := s.pairExp[p0 : int(p0)+len(keys)]
		for j, key := range keys {
			blk[key] *= pe[j]
		}
		return
	}
	ws := s.pairW[p0 : int(p0)+len(keys)]
	for j, key := range keys {
		blk[key] *= math.Exp(v * ws[j])
	}
}

// normalize turns a local model's scores in dst into log probabilities:
// State[0][c] − log Σ exp(Start + State[0]) at position 0, and for i > 0
// TransAt[i−1][p][c] = −log Σ_c' exp(State[i][c'] + Trans[p][c']), the
// same for every c (the lattice adds Trans[p][c] and State[i][c]).
//
// The L normalizers of a position share the state row, so they are
// computed as a product with exp(Trans) prepared once (expTrans, each row
// scaled by its maximum): L exponentials per position instead of L², which
// keeps an MEMM's tagging speed near a CRF's (docs/results.md,
// "Measurements behind design choices in the code"). A sum that underflows (a row whose every term is below
// ~1e-280 of its largest factor) is recomputed the direct way.
func (s *Scorer) normalize(dst *lattice.Scores) {
	n, l := dst.N, dst.L
	if n == 0 {
		dst.TransAt = dst.TransAt[:0]
		return
	}
	row := dst.State[:l]
	z := logSumExp2(row, s.start)
	for c := range row {
		row[c] -= z
	}
	need := (n - 1) * l * l
	if cap(dst.TransAt) < need {
		dst.TransAt = make([]float64, need, 2*need)
	}
	ta := dst.TransAt[:need]
	for i := 1; i < n; i++ {
		row := dst.State[i*l : (i+1)*l]
		blk := ta[(i-1)*l*l : i*l*l]
		// exp(State[i] − max) goes into the block's last row, which is
		// written last.
		e := blk[(l-1)*l:]
		ms := math.Inf(-1)
		for _, v := range row {
			ms = max(ms, v)
		}
		for c, v := range row {
			e[c] = math.Exp(v - ms)
		}
		for p := 0; p < l; p++ {
			et := s.expTrans[p*l : (p+1)*l]
			et = et[:len(e)]
			sum := 0.0
			for c, v := range e {
				sum += v * et[c]
			}
			var z float64
			if sum > 1e-280 {
				z = -(ms + s.maxTrans[p] + math.Log(sum))
			} else {
				z = -logSumExp2(row, s.trans[p*l:(p+1)*l])
			}
			out := blk[p*l : (p+1)*l]
			for c := range out {
				out[c] = z
			}
		}
	}
	dst.TransAt = ta
}

// logSumExp2 returns log Σ_c exp(a[c] + b[c]), stable for large entries.
func logSumExp2(a, b []float64) float64 {
	b = b[:len(a)]
	m := math.Inf(-1)
	for c, v := range a {
		if v+b[c] > m {
			m = v + b[c]
		}
	}
	if math.IsInf(m, 0) {
		return m
	}
	sum := 0.0
	for c, v := range a {
		sum += math.Exp(v + b[c] - m)
	}
	return m + math.Log(sum)
}

// StateScores writes the state scores of tokens [start, end) of data into
// dst ((end-start)*L, row-major).
func (s *Scorer) StateScores(dst []float64, data *feature.Dataset, start, end int) {
	l := s.l
	if len(dst) != (end-start)*l {
		panic("linear: StateScores dst has wrong length")
	}
	clear(dst)
	for t := start; t < end; t++ {
		row := dst[(t-start)*l : (t-start+1)*l]
		lo, hi := data.TokenOff[t], data.TokenOff[t+1]
		attrs := data.Attrs[lo:hi]
		if data.Values == nil {
			// Binary attributes, the common case: no multiply.
			s.addBinary(row, attrs)
			continue
		}
		s.addValued(row, attrs, data.Values[lo:hi])
	}
	s.applyScale(dst)
}

// applyScale multiplies scores by s.scale, if it is set.
func (s *Scorer) applyScale(scores []float64) {
	if s.scale == 0 {
		return
	}
	for i := range scores {
		scores[i] *= s.scale
	}
}

func (s *Scorer) addBinary(row []float64, attrs []int32) {
	switch {
	case s.dense != nil:
		addRows(row, s.dense, attrs, len(row))
	case s.hot != nil:
		s.addBinaryHot(row, attrs)
	case s.packed != nil:
		for _, a := range attrs {
			for _, f := range s.packed[s.off[a]:s.off[a+1]] {
				row[f.y] += f.w
			}
		}
	default:
		for _, a := range attrs {
			f0, f1 := s.off[a], s.off[a+1]
			lab := s.labels[f0:f1]
			ws := s.w[f0:f1]
			ws = ws[:len(lab)] // lets the compiler drop the bounds check on ws[j]
			for j, y := range lab {
				row[y] += ws[j]
			}
		}
	}
}

// addBinaryHot is addBinary with hot rows: runs of hot attributes are
// added a row at a time, the others feature by feature, all in attribute
// order.
func (s *Scorer) addBinaryHot(row []float64, attrs []int32) {
	var buf [32]int32
	batch := buf[:0]
	refs := s.hot.ref
	for _, a := range attrs {
		ref := refs[a]
		if ref < 0 {
			if len(batch) == len(buf) {
				addRows(row, s.hotW, batch, s.l)
				batch = batch[:0]
			}
			batch = append(batch, int32(-1-ref))
			continue
		}
		if len(batch) > 0 {
			addRows(row, s.hotW, batch, s.l)
			batch = batch[:0]
		}
		f0, f1 := span(ref)
		if s.packed != nil {
			for _, f := range s.packed[f0:f1] {
				row[f.y] += f.w
			}
			continue
		}
		lab := s.labels[f0:f1]
		ws := s.w[f0:f1]
		ws = ws[:len(lab)]
		for j, y := range lab {
			row[y] += ws[j]
		}
	}
	if len(batch) > 0 {
		addRows(row, s.hotW, batch, s.l)
	}
}

func (s *Scorer) addValued(row []float64, attrs []int32, vals []float64) {
	l := len(row)
	switch {
	case s.dense != nil:
		for k, a := range attrs {
			v := vals[k]
			ws := s.dense[int(a)*l : int(a)*l+l]
			for y := range row {
				row[y] += v * ws[y]
			}
		}
	case s.packed != nil:
		for k, a := range attrs {
			v := vals[k]
			for _, f := range s.packed[s.off[a]:s.off[a+1]] {
				row[f.y] += v * f.w
			}
		}
	default:
		for k, a := range attrs {
			v := vals[k]
			f0, f1 := s.off[a], s.off[a+1]
			ws := s.w[f0:f1]
			for j, y := range s.labels[f0:f1] {
				row[y] += v * ws[j]
			}
		}
	}
}
