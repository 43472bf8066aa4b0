package linear

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
)

// Model is a sparse linear-chain model. Attribute a owns the state features
// FeatOff[a]:FeatOff[a+1]; feature f scores label FeatLabel[f] with weight
// W[f]. An attribute of a bigram template (feature.LabelsBigram) owns
// pair features instead: PairOff[a]:PairOff[a+1], pair feature k scoring
// the label bigram PairKey[k] = prev*L+cur into the attribute's token
// (an input-conditioned transition) with weight W[PairBase()+k]. The
// parameter vector W is laid out as
//
//	[ state features (F) | transitions (L*L, [prev*L+cur]) | start (L) | stop (L) | trigrams (T) | pair features (P) ]
//
// so optimizers can treat the whole model as one vector; a model without
// pair features (PairOff nil, P = 0) and trigrams (T = 0, order2.go) is
// exactly the first-order model.
type Model struct {
	NumLabels int
	FeatOff   []int32
	FeatLabel []int32
	// PairOff (NumAttrs+1 offsets) and PairKey (sorted within each
	// attribute's range) are the pair features; both nil without any.
	PairOff []int32
	PairKey []int32
	W       []float64
	// Transitions is false for a per-token classifier (no transition
	// template): transition, start and stop weights are then ignored.
	Transitions bool
	// Local marks a locally normalized model (an MEMM): the score of label
	// c after p at position i > 0 is log P(c | p, x_i) = State[i][c] +
	// Trans[p][c] − log Σ_c' exp(State[i][c'] + Trans[p][c']), at position
	// 0 log P(c | x_0) with Start in place of Trans, and Stop is unused
	// (zero). A Scorer puts the normalizers into the lattice it fills
	// (Scores.TransAt, and the first row of State), so every decoder reads
	// log probabilities without knowing: Viterbi finds the most probable
	// sequence, log Z is 0 and the marginals are the model's own.
	Local bool
	// HiddenStates, when 2 or more, makes the model latent (latent.go):
	// its NumLabels are hidden states, HiddenStates per label, and state s
	// belongs to label s / HiddenStates. 0 (or 1) is a plain model.
	HiddenStates int
	// Trigrams, sorted, makes the model second order (order2.go): one
	// weight per trigram, after the stop weights. Nil for first order.
	Trigrams []lattice.Trigram

	// order2 is the lattice structure of Trigrams, built once.
	order2 atomic.Pointer[lattice.Order2]

	// local caches what Lattice needs to normalize a Local model's
	// scores (exp(Trans) and the row maxima), so that a caller in a loop
	// pays for it once per change of the transition and start weights,
	// not once per sentence. It is an atomic pointer to an immutable
	// value: Lattice may run in several goroutines at once.
	local atomic.Pointer[localPrep]
	// hot caches HotRows, built on first use from FeatOff and FeatLabel.
	hot atomic.Pointer[HotRows]
}

// localPrep is a Local model's normalization data for one set of
// transition and start weights, copied so that a change of the weights
// (an optimizer's in-place step) is seen by comparing them.
type localPrep struct {
	trans, start       []float64
	expTrans, maxTrans []float64
}

// WithWeights returns a model of m's structure — shared, not copied —
// with the weights w (len(m.W) of them) and caches of its own: a learner's
// trial point scored beside its current one. It is the one place that
// lists a Model's fields, so a new field is kept by every caller.
func (m *Model) WithWeights(w []float64) *Model {
	if len(w) != len(m.W) {
		panic("linear: WithWeights length differs from the model's")
	}
	out := &Model{NumLabels: m.NumLabels, FeatOff: m.FeatOff, FeatLabel: m.FeatLabel, PairOff: m.PairOff, PairKey: m.PairKey,
		W: w, Transitions: m.Transitions, Local: m.Local, HiddenStates: m.HiddenStates, Trigrams: m.Trigrams}
	if o := m.order2.Load(); o != nil {
		out.order2.Store(o)
	}
	return out
}

// New allocates a model with the given sparse structure and zero weights.
func New(numLabels int, featOff, featLabel []int32, transitions bool) *Model {
	f := len(featLabel)
	return &Model{
		NumLabels: numLabels, FeatOff: featOff, FeatLabel: featLabel,
		W: make([]float64, f+numLabels*numLabels+2*numLabels), Transitions: transitions,
	}
}

// NewDense allocates a model in which every attribute has a feature for
// every label (the HMM, or a CRF with all pairs generated).
func NewDense(numAttrs, numLabels int, transitions bool) *Model {
	off := make([]int32, numAttrs+1)
	lab := make([]int32, numAttrs*numLabels)
	for a := 0; a < numAttrs; a++ {
		off[a+1] = int32((a + 1) * numLabels)
		for y := 0; y < numLabels; y++ {
			lab[a*numLabels+y] = int32(y)
		}
	}
	return New(numLabels, off, lab, transitions)
}

// NewObserved allocates a model with a feature for each (attribute, label)
// pair that occurs in data, as CRFsuite does by default: far fewer weights
// than the dense form, with the same accuracy in practice.
func NewObserved(data *feature.Dataset, numAttrs, numLabels int, transitions bool) *Model {
	var off, lab []int32
	if numLabels <= 64 {
		off, lab = observedMasks(data, numAttrs)
	} else {
		off, lab = observedLists(data, numAttrs)
	}
	return New(numLabels, off, lab, transitions)
}

// observedLists is NewObserved's structure for any number of labels.
func observedLists(data *feature.Dataset, numAttrs int) (off, lab []int32) {
	seen := make([][]int32, numAttrs)
	for t := 0; t < data.NumTokens(); t++ {
		y := data.Labels[t]
		if y < 0 {
			continue
		}
		for k := data.TokenOff[t]; k < data.TokenOff[t+1]; k++ {
			a := data.Attrs[k]
			if !slices.Contains(seen[a], y) {
				seen[a] = append(seen[a], y)
			}
		}
	}
	return packSorted(seen)
}

// observedMasks is NewObserved's structure for up to 64 labels: a bit per
// (attribute, label) pair seen, then the bits packed in label order — the
// same offsets and labels as packSorted of per-attribute lists, from one
// 8-byte word per attribute instead of a slice each. The slices left
// garbage at the start of training, several times the masks' size, which
// stayed in the process's resident memory for the whole training
// (docs/results.md, "Measurements behind design choices in the code").
func observedMasks(data *feature.Dataset, numAttrs int) (off, lab []int32) {
	masks := make([]uint64, numAttrs)
	for t := 0; t < data.NumTokens(); t++ {
		y := data.Labels[t]
		if y < 0 {
			continue
		}
		bit := uint64(1) << uint(y)
		for _, a := range data.Attrs[data.TokenOff[t]:data.TokenOff[t+1]] {
			masks[a] |= bit
		}
	}
	off = make([]int32, numAttrs+1)
	total := 0
	for a, m := range masks {
		total += bits.OnesCount64(m)
		off[a+1] = int32(total)
	}
	lab = make([]int32, 0, total)
	for _, m := range masks {
		for ; m != 0; m &= m - 1 {
			lab = append(lab, int32(bits.TrailingZeros64(m)))
		}
	}
	return off, lab
}

// packSorted sorts each list and packs them as offsets and values.
func packSorted(lists [][]int32) (off, vals []int32) {
	off = make([]int32, len(lists)+1)
	total := 0
	for a, ys := range lists {
		total += len(ys)
		off[a+1] = int32(total)
	}
	vals = make([]int32, 0, total)
	for _, ys := range lists {
		sortLabels(ys)
		vals = append(vals, ys...)
	}
	return off, vals
}

// WithPairs returns m restructured for input-conditioned transitions: the
// attributes marked in pair (feature.Mapper.PairAttrs) lose their state
// features and get a pair feature for each label bigram (y[i-1], y[i])
// that they occur with at a token i > 0 of data's gold sequences — only
// observed pairs, as CRF++ and Wapiti's observed features: L² weights
// per attribute would be most of a model. The weights are zero. A nil
// pair, or one that marks nothing, returns m itself.
func WithPairs(m *Model, data *feature.Dataset, pair []bool) *Model {
	marked := false
	for _, p := range pair {
		marked = marked || p
	}
	if !marked {
		return m
	}
	l := int32(m.NumLabels)
	na := m.NumAttrs()
	seen := make([][]int32, na)
	for s := 0; s < data.NumSentences(); s++ {
		lo, hi := data.Sentence(s)
		for t := lo + 1; t < hi; t++ {
			p, c := data.Labels[t-1], data.Labels[t]
			if p < 0 || c < 0 {
				continue
			}
			key := p*l + c
			for k := data.TokenOff[t]; k < data.TokenOff[t+1]; k++ {
				a := data.Attrs[k]
				if int(a) < len(pair) && pair[a] && !slices.Contains(seen[a], key) {
					seen[a] = append(seen[a], key)
				}
			}
		}
	}
	pairOff, pairKey := packSorted(seen)
	states := make([][]int32, na)
	for a := 0; a < na; a++ {
		if a >= len(pair) || !pair[a] {
			states[a] = m.FeatLabel[m.FeatOff[a]:m.FeatOff[a+1]]
		}
	}
	off, lab := packSorted(states)
	out := New(m.NumLabels, off, lab, m.Transitions)
	out.PairOff, out.PairKey = pairOff, pairKey
	out.W = append(out.W, make([]float64, len(pairKey))...)
	return out
}

func sortLabels(ys []int32) {
	for i := 1; i < len(ys); i++ {
		for j := i; j > 0 && ys[j] < ys[j-1]; j-- {
			ys[j], ys[j-1] = ys[j-1], ys[j]
		}
	}
}

// NumFeatures returns the number of state features F.
func (m *Model) NumFeatures() int { return len(m.FeatLabel) }

// NumPairs returns the number of pair features P.
func (m *Model) NumPairs() int { return len(m.PairKey) }

// PairBase returns the index in W of the first pair feature, F+L*L+2L+T.
func (m *Model) PairBase() int { return m.TrigramBase() + len(m.Trigrams) }

// Pairs returns the P pair feature weights (a view into W).
func (m *Model) Pairs() []float64 { return m.W[m.PairBase():] }

// PairFeature returns the index in W of the pair feature (attribute a,
// bigram prev → cur), or -1 when the model has none.
func (m *Model) PairFeature(a int32, prev, cur int32) int {
	if m.PairOff == nil {
		return -1
	}
	key := prev*int32(m.NumLabels) + cur
	lo, hi := int(m.PairOff[a]), int(m.PairOff[a+1])
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		switch v := m.PairKey[mid]; {
		case v == key:
			return m.PairBase() + mid
		case v < key:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return -1
}

// NumAttrs returns the number of attributes.
func (m *Model) NumAttrs() int { return len(m.FeatOff) - 1 }

// Trans returns the L*L transition weights (a view into W).
func (m *Model) Trans() []float64 {
	f, l := len(m.FeatLabel), m.NumLabels
	return m.W[f : f+l*l]
}

// Start returns the L start weights (a view into W).
func (m *Model) Start() []float64 {
	f, l := len(m.FeatLabel), m.NumLabels
	return m.W[f+l*l : f+l*l+l]
}

// Stop returns the L stop weights (a view into W).
func (m *Model) Stop() []float64 {
	f, l := len(m.FeatLabel), m.NumLabels
	return m.W[f+l*l+l : f+l*l+2*l]
}

// Validate checks the structure's internal consistency, so that a model
// read from a file can never index out of range while decoding.
func (m *Model) Validate() error {
	l := m.NumLabels
	if l <= 0 {
		return fmt.Errorf("linear: model has %d labels", l)
	}
	if len(m.FeatOff) == 0 || m.FeatOff[0] != 0 || int(m.FeatOff[len(m.FeatOff)-1]) != len(m.FeatLabel) {
		return fmt.Errorf("linear: feature offsets inconsistent")
	}
	for a := 1; a < len(m.FeatOff); a++ {
		if m.FeatOff[a] < m.FeatOff[a-1] {
			return fmt.Errorf("linear: feature offsets decrease at attribute %d", a)
		}
	}
	for _, y := range m.FeatLabel {
		if y < 0 || int(y) >= l {
			return fmt.Errorf("linear: feature label %d out of range [0,%d)", y, l)
		}
	}
	if !m.Sorted() {
		// Feature's binary search and the dense hot rows (which assign
		// each label's weight once) both need each label once per
		// attribute, in increasing order.
		return fmt.Errorf("linear: an attribute's feature labels are not strictly increasing")
	}
	if err := m.validateStates(); err != nil {
		return err
	}
	if err := m.validatePairs(); err != nil {
		return err
	}
	if err := m.validateTrigrams(); err != nil {
		return err
	}
	if want := len(m.FeatLabel) + l*l + 2*l + len(m.Trigrams) + len(m.PairKey); len(m.W) != want {
		return fmt.Errorf("linear: %d weights, want %d", len(m.W), want)
	}
	return nil
}

// validatePairs checks the pair features' structure: offsets over the
// same attributes as the state features, keys in range and sorted within
// each attribute (PairFeature searches them), no local normalization,
// whose normalizers take the per-position transitions for themselves, and
// no hidden states, whose training objective has no pair features.
func (m *Model) validatePairs() error {
	if m.PairOff == nil {
		if m.PairKey != nil {
			return fmt.Errorf("linear: pair features without offsets")
		}
		return nil
	}
	if m.Local {
		return fmt.Errorf("linear: a locally normalized model cannot have pair features")
	}
	if m.HiddenStates > 1 {
		return fmt.Errorf("linear: a latent model (hidden states) cannot have pair features")
	}
	if len(m.PairOff) != len(m.FeatOff) || m.PairOff[0] != 0 || int(m.PairOff[len(m.PairOff)-1]) != len(m.PairKey) {
		return fmt.Errorf("linear: pair feature offsets inconsistent")
	}
	ll := int32(m.NumLabels * m.NumLabels)
	for a := 1; a < len(m.PairOff); a++ {
		if m.PairOff[a] < m.PairOff[a-1] {
			return fmt.Errorf("linear: pair feature offsets decrease at attribute %d", a)
		}
		for k := m.PairOff[a-1]; k < m.PairOff[a]; k++ {
			if key := m.PairKey[k]; key < 0 || key >= ll || (k > m.PairOff[a-1] && key <= m.PairKey[k-1]) {
				return fmt.Errorf("linear: pair feature %d of attribute %d out of range or order", k, a-1)
			}
		}
	}
	return nil
}

// StateScores writes the state scores of tokens [start, end) of data into
// dst ((end-start)*L, row-major), W being the weights. It takes the weights
// as an argument so learners can score with a vector other than m.W (an
// optimizer's trial point); it reads them in place (see Scorer).
func (m *Model) StateScores(dst []float64, w []float64, data *feature.Dataset, start, end int) {
	s := m.inPlace(w)
	s.StateScores(dst, data, start, end)
}

// Lattice fills s with the scores of sentence sent of data under weights w,
// w's transition, start and stop weights included (so s has no Chain).
// s.State must have capacity for the sentence; it is resliced, not
// reallocated, when large enough. A Local model's exp(Trans) is prepared
// once per set of transition and start weights (see Model.local), so a
// loop over sentences allocates nothing once warm. Safe for concurrent
// use with distinct s.
func (m *Model) Lattice(s *lattice.Scores, w []float64, data *feature.Dataset, sent int) {
	m.lattice(s, m.inPlace(w), w, data, sent)
}

// ScaledLattice is Lattice under weights kept as scale·v, as SGD keeps
// them (the L2 decay folded into one number): the state and pair scores
// are those of v, each sum multiplied by scale once, and the transition,
// start and stop weights are w's (only that part of w is read). The sums
// round differently from those of the products scale·v[f], so this is
// SGD's own arithmetic, not Lattice's.
func (m *Model) ScaledLattice(s *lattice.Scores, v []float64, scale float64, w []float64, data *feature.Dataset, sent int) {
	in := m.inPlace(v)
	in.scale = scale
	m.lattice(s, in, w, data, sent)
}

// ScaledStateScores is StateScores under weights kept as scale·w (see
// ScaledLattice).
func (m *Model) ScaledStateScores(dst []float64, w []float64, scale float64, data *feature.Dataset, start, end int) {
	s := m.inPlace(w)
	s.scale = scale
	s.StateScores(dst, data, start, end)
}

// lattice fills s with the scores of sentence sent: the state and pair
// scores from in, the rest from w.
func (m *Model) lattice(s *lattice.Scores, in Scorer, w []float64, data *feature.Dataset, sent int) {
	if m.Local {
		p := m.localPrepFor(w)
		in.local, in.trans, in.start = true, p.trans, p.start
		in.expTrans, in.maxTrans = p.expTrans, p.maxTrans
	}
	in.Lattice(s, data, sent)
	// A local model's normalizers are in s now (TransAt, State's first
	// row); the weights below complete it.
	m.attach(s, w)
}

// LatticeWith is Lattice for a model that is not locally normalized, with
// sc, a Scorer of m under w that the caller prepared — ExpPairs, for the
// forward-backward of a CRF's gradient pass — in place of one built per
// call.
func (m *Model) LatticeWith(s *lattice.Scores, sc *Scorer, w []float64, data *feature.Dataset, sent int) {
	sc.Lattice(s, data, sent)
	m.attach(s, w)
}

// attach sets s's transition, start and stop weights to w's (no Chain),
// and a second-order model's structure and trigram weights.
// Without the transition template the learners keep them at zero, so the
// lattice degenerates into independent per-token decisions without a
// special case here.
func (m *Model) attach(s *lattice.Scores, w []float64) {
	f, l := len(m.FeatLabel), m.NumLabels
	s.Trans = w[f : f+l*l]
	s.Start = w[f+l*l : f+l*l+l]
	s.Stop = w[f+l*l+l : f+l*l+2*l]
	s.Chain = nil
	s.Order2, s.Trigram = nil, nil
	if m.SecondOrder() {
		s.Order2, s.Trigram = m.Order2(), m.TrigramWeights(w)
	}
}

// localPrepFor returns the cached normalization data of a Local model
// under weights w, rebuilding it (L² exponentials, one allocation) only
// when w's transition or start weights differ, bit for bit, from the
// cached ones: the check costs L²+L comparisons, less than the (N-1)·L²
// writes of the sentence's TransAt.
func (m *Model) localPrepFor(w []float64) *localPrep {
	f, l := m.NumFeatures(), m.NumLabels
	trans, start := w[f:f+l*l], w[f+l*l:f+l*l+l]
	if p := m.local.Load(); p != nil && sameBits(p.trans, trans) && sameBits(p.start, start) {
		return p
	}
	buf := make([]float64, 2*l*l+3*l)
	p := &localPrep{trans: buf[:l*l], start: buf[l*l : l*l+l],
		expTrans: buf[l*l+l : 2*l*l+l], maxTrans: buf[2*l*l+l : 2*l*l+2*l]}
	copy(p.trans, trans)
	copy(p.start, start)
	expRows(p.expTrans, p.maxTrans, p.trans, l)
	m.local.Store(p)
	return p
}

// sameBits reports whether a and b hold the same float64 bits.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if math.Float64bits(v) != math.Float64bits(b[k]) {
			return false
		}
	}
	return true
}

// Feature returns the index in W of the state feature (attribute a, label
// y), or -1 when the model has no such feature. Labels are sorted within an
// attribute's range, so this is a short binary search.
func (m *Model) Feature(a, y int32) int {
	lo, hi := int(m.FeatOff[a]), int(m.FeatOff[a+1])
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		switch v := m.FeatLabel[mid]; {
		case v == y:
			return mid
		case v < y:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return -1
}

// Sorted reports whether labels are strictly increasing within every
// attribute's range, as Feature and the hot rows require; Validate, and so
// every model read from a file, checks it.
func (m *Model) Sorted() bool {
	for a := 0; a+1 < len(m.FeatOff); a++ {
		for f := m.FeatOff[a] + 1; f < m.FeatOff[a+1]; f++ {
			if m.FeatLabel[f] <= m.FeatLabel[f-1] {
				return false
			}
		}
	}
	return true
}

// AddStateGradient adds to g (laid out as W), for the tokens lo, lo+1, …
// of d, each state feature's value times its label's entry in that
// token's row of rows, an [N][L] matrix (N = len(rows)/L): with rows the
// marginals, the CRF gradient's expectations; with marginals minus gold,
// the gradient of a loss whose state-score gradient rows are.
func (m *Model) AddStateGradient(g []float64, d *feature.Dataset, lo int, rows []float64) {
	l := m.NumLabels
	n := len(rows) / l
	off, featLabel := m.FeatOff, m.FeatLabel
	for i := 0; i < n; i++ {
		row := rows[i*l : (i+1)*l]
		t := lo + i
		k0, k1 := d.TokenOff[t], d.TokenOff[t+1]
		attrs := d.Attrs[k0:k1]
		if d.Values == nil {
			for _, a := range attrs {
				f0, f1 := off[a], off[a+1]
				lab := featLabel[f0:f1]
				gf := g[f0:f1]
				gf = gf[:len(lab)]
				for j, y := range lab {
					gf[j] += row[y]
				}
			}
			continue
		}
		vals := d.Values[k0:k1]
		for k, a := range attrs {
			v := vals[k]
			f0, f1 := off[a], off[a+1]
			gf := g[f0:f1]
			for j, y := range featLabel[f0:f1] {
				gf[j] += v * row[y]
			}
		}
	}
}

// AddPairGradient adds to g (laid out as W), for the tokens lo+1, lo+2, …
// of d, each pair feature's value times its bigram's entry in that
// token's row of rows, an [N-1][L*L] matrix whose row i-1 is the bigrams
// into token lo+i (lattice.ScoreGrad.TransAt): the gradient of a loss
// whose per-position transition gradient rows are. Without pair
// features it does nothing.
func (m *Model) AddPairGradient(g []float64, d *feature.Dataset, lo int, rows []float64) {
	if m.PairOff == nil {
		return
	}
	ll := m.NumLabels * m.NumLabels
	off, keys, gp := m.PairOff, m.PairKey, g[m.PairBase():]
	for i := 1; i <= len(rows)/ll; i++ {
		row := rows[(i-1)*ll : i*ll]
		t := lo + i
		for k := d.TokenOff[t]; k < d.TokenOff[t+1]; k++ {
			a := d.Attrs[k]
			p0, p1 := off[a], off[a+1]
			v := d.Value(k)
			for j, key := range keys[p0:p1] {
				gp[int(p0)+j] += v * row[key]
			}
		}
	}
}
