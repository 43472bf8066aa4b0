package lattice

import "math"

// Scores holds the log-potentials of one sentence. State is N*L row-major
// ([i*L+y]); Trans is L*L ([prev*L+cur]); Start and Stop have L entries.
// A lattice only reads its slices, so several may share Trans, Start and
// Stop.
type Scores struct {
	N, L  int
	State []float64
	Trans []float64
	Start []float64
	Stop  []float64
	// TransAt, when set, holds per-position transition terms, (N-1)*L*L
	// of them: the bigram prev → cur into position i (1 <= i < N) scores
	// Trans[prev*L+cur] + TransAt[(i-1)*L*L+prev*L+cur]. linear.Scorer
	// puts here a model's pair features (input-conditioned transitions)
	// and a locally normalized model's normalizers (the MEMM). Nil means
	// every position uses Trans alone.
	TransAt []float64
	// TransAtExp, when set with TransAt, holds exp(TransAt) entry by
	// entry. A caller that builds TransAt as sums of weights can give it
	// as products of the weights' exponentials, computed once for all
	// sentences: the scaled forward-backward then multiplies where it
	// would exponentiate (linear.Scorer.ExpPairs).
	TransAtExp []float64
	// Chain, when set, holds Trans, Start and Stop prepared for Viterbi;
	// Chain.Attach sets it together with them.
	Chain *Chain
	// Order2, when set, makes the lattice second order (order2.go): a
	// sequence also scores Trigram[k] for each of its trigrams that is
	// the structure's k-th, and may use only the trigrams it lists.
	// Trigram has one entry per Order2.Trigrams().
	Order2  *Order2
	Trigram []float64
}

func (s *Scores) check() {
	if s.L <= 0 || len(s.State) < s.N*s.L || len(s.Trans) != s.L*s.L || len(s.Start) != s.L || len(s.Stop) != s.L {
		panic("lattice: Scores shapes do not match N and L")
	}
	if s.TransAt != nil && len(s.TransAt) < max(s.N-1, 0)*s.L*s.L {
		panic("lattice: Scores.TransAt shorter than (N-1)*L*L")
	}
	if s.TransAtExp != nil && len(s.TransAtExp) < max(s.N-1, 0)*s.L*s.L {
		panic("lattice: Scores.TransAtExp shorter than (N-1)*L*L")
	}
	if s.Order2 != nil && (s.Order2.l != s.L || len(s.Trigram) != len(s.Order2.trigrams)) {
		panic("lattice: Scores.Order2 or Trigram does not match L")
	}
}

// trans returns the score of the bigram prev → cur into position i: Trans
// alone unless TransAt is set, so that without it every algorithm adds
// exactly the numbers it always did.
func (s *Scores) trans(i, prev, cur int) float64 {
	l := s.L
	v := s.Trans[prev*l+cur]
	if s.TransAt != nil {
		v += s.TransAt[(i-1)*l*l+prev*l+cur]
	}
	return v
}

// SequenceScore returns the score of path under s.
func SequenceScore(s *Scores, path []int32) float64 {
	if len(path) != s.N {
		panic("lattice: SequenceScore path length differs from N")
	}
	if s.N == 0 {
		return 0
	}
	if s.Order2 != nil {
		return sequenceScore2(s, path)
	}
	l := s.L
	score := s.Start[path[0]] + s.Stop[path[s.N-1]]
	for i, y := range path {
		score += s.State[i*l+int(y)]
		if i > 0 {
			score += s.trans(i, int(path[i-1]), int(y))
		}
	}
	return score
}

// LogSumExp returns log Σ exp(x), stable for large and -Inf entries.
func LogSumExp(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		if v > m {
			m = v
		}
	}
	if math.IsInf(m, 0) {
		return m
	}
	sum := 0.0
	for _, v := range x {
		sum += math.Exp(v - m)
	}
	return m + math.Log(sum)
}

// Constraints forbid label bigrams, first labels and last labels (false
// entries), for instance I-X after O in IOB2.
type Constraints struct {
	Trans []bool // L*L, [prev*L+cur]
	Start []bool // L
	Stop  []bool // L
}

// Apply sets the forbidden entries of s.Trans, s.Start and s.Stop to -Inf.
// It writes into those slices, so callers apply it to copies of a model's
// weights, once, rather than per sentence; NewChain does that for the
// decoders. A Scores with a Chain is refused: writing under the chain
// would leave its prepared transitions stale.
func (c *Constraints) Apply(s *Scores) {
	if c == nil {
		return
	}
	if s.Chain != nil {
		panic("lattice: Constraints.Apply on a Scores with a Chain; pass the constraints to NewChain")
	}
	if len(c.Trans) != len(s.Trans) || len(c.Start) != len(s.Start) || len(c.Stop) != len(s.Stop) {
		panic("lattice: Constraints shapes do not match Scores")
	}
	inf := math.Inf(-1)
	for k, ok := range c.Trans {
		if !ok {
			s.Trans[k] = inf
		}
	}
	for k, ok := range c.Start {
		if !ok {
			s.Start[k] = inf
		}
	}
	for k, ok := range c.Stop {
		if !ok {
			s.Stop[k] = inf
		}
	}
}

// Workspace holds the buffers of the lattice algorithms for up to L labels.
// It is not safe for concurrent use; give each goroutine its own.
type Workspace struct {
	l int
	// Viterbi: the table, the backpointers, the chain prepared from the
	// last Scores without one (valid while its Trans is unchanged), and
	// one position's transitions under TransAt.
	delta      []float64
	back       []int32
	chain      *Chain
	chainValid bool
	posT       []float64
	posPreds   [][]edge
	posEdges   []edge
	// Forward-backward, in scaled exponential space: alpha[i] and beta[i]
	// are rescaled per position (sums[i]) so they stay in range, the way
	// CRFsuite does it, which needs no exp/log per lattice edge. When the
	// scaled pass underflows, the log-space pass takes over (logSpace).
	n          int
	lp         int // stride of expTrans and pairAcc: L rounded up to 4
	alpha      []float64
	beta       []float64
	expState   []float64
	sums       []float64
	expTrans   []float64
	expStart   []float64
	expStop    []float64
	transShift float64
	// transSpread is spread(Trans), edgeSpread that plus the larger of
	// spread(Start) and spread(Stop).
	transSpread float64
	edgeSpread  float64
	startShift  float64
	stopShift   float64
	// The exponentiated transitions are cached: in a training pass every
	// sentence shares the same Trans, and comparing L*L floats is far
	// cheaper than L*L exps.
	cachedTrans, cachedStart, cachedStop []float64
	cacheValid                           bool
	// edgesVersion counts prepareEdges' recomputations, so that caches
	// derived from them (the second-order edge factors) see a change.
	edgesVersion uint64
	logSpace     bool
	logZ         float64
	tmp          []float64 // lp entries, the padding 0
	row          []float64 // lp entries
	pairAcc      []float64 // L rows of lp
	// expAt holds, after a scaled pass over per-position transitions
	// (perPosition), each position's exponentiated transitions (position.go).
	expAt       []float64
	perPosition bool
	// o2 holds the second-order buffers (order2_pass.go); second marks a
	// last ForwardBackward over a second-order lattice.
	o2     *work2
	second bool
}

// NewWorkspace returns a workspace for lattices over l labels.
func NewWorkspace(l int) *Workspace {
	if l <= 0 {
		panic("lattice: NewWorkspace needs at least one label")
	}
	lp := stride(l)
	return &Workspace{
		l:           l,
		lp:          lp,
		expTrans:    make([]float64, l*lp),
		expStart:    make([]float64, l),
		expStop:     make([]float64, l),
		cachedTrans: make([]float64, l*l),
		cachedStart: make([]float64, l),
		cachedStop:  make([]float64, l),
		tmp:         make([]float64, lp),
		row:         make([]float64, lp),
		pairAcc:     make([]float64, l*lp),
	}
}

func (w *Workspace) grow(n int) {
	if need := n * w.l; cap(w.delta) < need {
		need = 2 * need
		w.delta = make([]float64, need)
		w.back = make([]int32, need)
		w.alpha = make([]float64, need)
		w.beta = make([]float64, need)
		w.expState = make([]float64, need)
		w.sums = make([]float64, need/w.l+1)
	}
}

func (w *Workspace) checkL(s *Scores) {
	s.check()
	if s.L != w.l {
		panic("lattice: Scores has a different number of labels than the Workspace")
	}
}

// finiteRange returns the smallest and largest finite entries of x (lo >
// hi when none is finite). Plain comparisons, not math.Min/Max: this runs
// once per lattice row.
func finiteRange(x []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range x {
		if v-v != 0 { // ±Inf or NaN
			continue
		}
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return lo, hi
}

// spread returns the largest finite entry of x minus the smallest (0 when
// fewer than two entries are finite).
func spread(x []float64) float64 {
	lo, hi := finiteRange(x)
	if hi < lo {
		return 0
	}
	return hi - lo
}

// maxSpread bounds how far apart, in log space, the factors of one forward
// step may be for the scaled pass. Every alpha entry then stays within about
// exp(-maxSpread) of its row's largest, and a product of two such factors
// within exp(-2*maxSpread) ≈ 1e-217, far from underflow. Trained models sit
// far inside the bound (spreads of tens); beyond it the log-space pass runs.
const maxSpread = 250

// maxFinite returns the largest finite entry of x, or 0 if none is finite.
func maxFinite(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		if v > m && !math.IsInf(v, 1) {
			m = v
		}
	}
	if math.IsInf(m, -1) {
		return 0
	}
	return m
}

func (w *Workspace) prepareEdges(s *Scores) {
	if w.cacheValid && equal(w.cachedTrans, s.Trans) && equal(w.cachedStart, s.Start) && equal(w.cachedStop, s.Stop) {
		return
	}
	copy(w.cachedTrans, s.Trans)
	copy(w.cachedStart, s.Start)
	copy(w.cachedStop, s.Stop)
	w.transSpread = spread(s.Trans)
	w.edgeSpread = w.transSpread + math.Max(spread(s.Start), spread(s.Stop))
	w.transShift = maxFinite(s.Trans)
	w.startShift = maxFinite(s.Start)
	w.stopShift = maxFinite(s.Stop)
	l, lp := w.l, w.lp
	for p := 0; p < l; p++ {
		expShifted(w.expTrans[p*lp:p*lp+l], s.Trans[p*l:(p+1)*l], w.transShift)
	}
	expShifted(w.expStart, s.Start, w.startShift)
	expShifted(w.expStop, s.Stop, w.stopShift)
	w.cacheValid = true
	w.edgesVersion++
}

// equal compares bitwise-equal floats; NaN never matches, so a NaN weight
// is never served from the cache.
func equal(a, b []float64) bool {
	for k := range a {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

// ForwardBackward computes the forward and backward tables of s and returns
// log Z, the log of the sum of exp(score) over all label sequences. It stays
// finite for scores of any magnitude: the scaled pass is exact up to
// rounding unless a whole position underflows, and then the log-space pass
// recomputes everything. When every sequence is forbidden log Z is -Inf and
// all marginals are 0. The marginal accessors below read these tables until
// the next call.
//
// With per-position transitions (s.TransAt) the scaled pass exponentiates
// each position's transitions into a block of its own (position.go); the
// pass without them, and so its bits, is unchanged.
func (w *Workspace) ForwardBackward(s *Scores) float64 {
	w.checkL(s)
	n := s.N
	w.n = n
	w.logSpace = false
	w.perPosition = s.TransAt != nil
	w.second = s.Order2 != nil
	if n == 0 {
		w.logZ = 0
		return 0
	}
	if w.second {
		return w.forwardBackward2(s)
	}
	w.grow(n)
	if s.TransAt == nil {
		w.prepareEdges(s)
		if w.scaled(s) {
			return w.logZ
		}
	} else if w.scaledAt(s) {
		return w.logZ
	}
	w.logSpace = true
	w.logForwardBackward(s)
	return w.logZ
}

// scaled runs the scaled exponential-space pass; false means it underflowed
// or overflowed and the log-space pass must run.
func (w *Workspace) scaled(s *Scores) bool {
	logZ := w.startShift + w.stopShift + float64(s.N-1)*w.transShift
	return w.scaledPass(s, logZ, w.edgeSpread, false)
}

// expStates writes each state row of s, exponentiated and shifted by its
// largest finite score, into es, and returns logZ plus the shifts; false
// when a row's spread with edgeSpread (the transitions') exceeds
// maxSpread. The first step of the scaled passes of both orders.
func expStates(es []float64, s *Scores, logZ, edgeSpread float64) (float64, bool) {
	n, l := s.N, s.L
	for i := 0; i < n; i++ {
		row := s.State[i*l : (i+1)*l]
		lo, m := finiteRange(row)
		if m < lo {
			m = 0 // no finite entry: the row is all zeros after exp
		} else if edgeSpread+m-lo > maxSpread {
			return 0, false
		}
		logZ += m
		expShifted(es[i*l:(i+1)*l], row, m)
	}
	return logZ, true
}

// scaledPass is the scaled forward-backward of scaled and scaledAt: the
// transitions into position i are the sentence's shared exp(Trans), or
// with perPosition the block scaledAt made for i (transInto). logZ holds
// the shifts taken out of the transitions, start and stop so far;
// edgeSpread bounds their spread, which with a state row's must stay
// within maxSpread.
func (w *Workspace) scaledPass(s *Scores, logZ, edgeSpread float64, perPosition bool) bool {
	n, l := s.N, s.L
	alpha, beta, es := w.alpha[:n*l], w.beta[:n*l], w.expState[:n*l]
	sums := w.sums[:n+1]
	logZ, ok := expStates(es, s, logZ, edgeSpread)
	if !ok {
		return false
	}
	// Forward.
	sum := 0.0
	for y := 0; y < l; y++ {
		v := w.expStart[y] * es[y]
		alpha[y] = v
		sum += v
	}
	if !(sum > 0) || math.IsInf(sum, 1) {
		return false
	}
	sums[0] = sum
	scaleRow(alpha[:l], 1/sum)
	logZ += math.Log(sum)
	lp := w.lp
	for i := 1; i < n; i++ {
		prev := alpha[(i-1)*l : i*l]
		cur := alpha[i*l : (i+1)*l]
		forward(w.row, prev, w.transInto(i, perPosition), lp)
		row := w.row[:len(cur)]
		sum = 0
		e := es[i*l : (i+1)*l]
		e = e[:len(cur)]
		for y := range cur {
			v := row[y] * e[y]
			cur[y] = v
			sum += v
		}
		if !(sum > 0) || math.IsInf(sum, 1) {
			return false
		}
		sums[i] = sum
		scaleRow(cur, 1/sum)
		logZ += math.Log(sum)
	}
	last := alpha[(n-1)*l : n*l]
	sum = 0
	for y, a := range last {
		sum += a * w.expStop[y]
	}
	if !(sum > 0) || math.IsInf(sum, 1) {
		return false
	}
	sums[n] = sum
	logZ += math.Log(sum)
	// Backward, scaled by the same sums so that alpha[i]*beta[i] is the
	// marginal directly.
	b := beta[(n-1)*l : n*l]
	for y := range b {
		b[y] = w.expStop[y] / sum
	}
	for i := n - 2; i >= 0; i-- {
		next := beta[(i+1)*l : (i+2)*l]
		e := es[(i+1)*l : (i+2)*l]
		tmp := w.tmp[:l]
		for y := range tmp {
			tmp[y] = next[y] * e[y]
		}
		backward(beta[i*l:(i+1)*l], w.transInto(i+1, perPosition), tmp, lp, 1/sums[i+1])
	}
	w.logZ = logZ
	return true
}

// transInto returns the exponentiated transitions into position i: the
// shared exp(Trans), or with perPosition scaledAt's block for i.
func (w *Workspace) transInto(i int, perPosition bool) []float64 {
	if perPosition {
		return w.block(i)
	}
	return w.expTrans
}

func scaleRow(x []float64, f float64) {
	for k := range x {
		x[k] *= f
	}
}

// logForwardBackward is the slow, always-finite path: alpha and beta hold
// log-potentials.
func (w *Workspace) logForwardBackward(s *Scores) {
	n, l := s.N, s.L
	alpha, beta := w.alpha[:n*l], w.beta[:n*l]
	tmp := w.tmp[:l]
	for y := 0; y < l; y++ {
		alpha[y] = s.Start[y] + s.State[y]
	}
	for i := 1; i < n; i++ {
		for y := 0; y < l; y++ {
			for p := 0; p < l; p++ {
				tmp[p] = alpha[(i-1)*l+p] + s.trans(i, p, y)
			}
			alpha[i*l+y] = LogSumExp(tmp) + s.State[i*l+y]
		}
	}
	for y := 0; y < l; y++ {
		tmp[y] = alpha[(n-1)*l+y] + s.Stop[y]
		beta[(n-1)*l+y] = s.Stop[y]
	}
	w.logZ = LogSumExp(tmp)
	for i := n - 2; i >= 0; i-- {
		for p := 0; p < l; p++ {
			for y := 0; y < l; y++ {
				tmp[y] = s.trans(i+1, p, y) + s.State[(i+1)*l+y] + beta[(i+1)*l+y]
			}
			beta[i*l+p] = LogSumExp(tmp)
		}
	}
}

// LogZ returns log Z of the last ForwardBackward.
func (w *Workspace) LogZ() float64 { return w.logZ }

// StateMarginal returns P(y_i = y) from the last ForwardBackward.
func (w *Workspace) StateMarginal(i, y int) float64 {
	l := w.l
	if w.second {
		return w.labelMarginal2(i, y)
	}
	if w.logSpace {
		if math.IsInf(w.logZ, -1) {
			return 0
		}
		return math.Exp(w.alpha[i*l+y] + w.beta[i*l+y] - w.logZ)
	}
	return w.alpha[i*l+y] * w.beta[i*l+y]
}

// StateMarginals writes P(y_i = y) for every position into dst (N*L).
func (w *Workspace) StateMarginals(dst []float64) {
	n, l := w.n, w.l
	if len(dst) != n*l {
		panic("lattice: StateMarginals dst length differs from N*L")
	}
	if w.second {
		w.labelMarginals2(dst)
		return
	}
	if !w.logSpace {
		a, b := w.alpha[:n*l], w.beta[:n*l]
		for k := range dst {
			dst[k] = a[k] * b[k]
		}
		return
	}
	for i := 0; i < n; i++ {
		for y := 0; y < l; y++ {
			dst[i*l+y] = w.StateMarginal(i, y)
		}
	}
}

// PairMarginal returns P(y_(i-1) = prev, y_i = cur), for 1 <= i < N, from
// the last ForwardBackward. It needs the same Scores.
func (w *Workspace) PairMarginal(s *Scores, i, prev, cur int) float64 {
	l := w.l
	if w.second {
		if st := s.Order2.find(int32(prev), int32(cur)); st >= 0 {
			return w.stateMarginal2(i, st)
		}
		return 0
	}
	if w.logSpace {
		if math.IsInf(w.logZ, -1) {
			return 0
		}
		return math.Exp(w.alpha[(i-1)*l+prev] + s.trans(i, prev, cur) + s.State[i*l+cur] + w.beta[i*l+cur] - w.logZ)
	}
	if w.perPosition {
		return w.alpha[(i-1)*l+prev] * w.block(i)[prev*w.lp+cur] * w.expState[i*l+cur] * w.beta[i*l+cur] / w.sums[i]
	}
	return w.alpha[(i-1)*l+prev] * w.expTrans[prev*w.lp+cur] * w.expState[i*l+cur] * w.beta[i*l+cur] / w.sums[i]
}

// AddTransMarginals adds scale times the expected count of every label
// bigram, Σi P(y_(i-1)=p, y_i=c), to dst (L*L) — the transition part of a
// CRF gradient. It needs the Scores of the last ForwardBackward.
func (w *Workspace) AddTransMarginals(dst []float64, s *Scores, scale float64) {
	n, l := w.n, w.l
	if len(dst) != l*l {
		panic("lattice: AddTransMarginals dst length differs from L*L")
	}
	if w.second {
		w.addBigramMarginals2(dst, s, scale)
		return
	}
	if w.perPosition && !w.logSpace {
		w.addPerPositionMarginals(dst, scale)
		return
	}
	if w.logSpace {
		for i := 1; i < n; i++ {
			for p := 0; p < l; p++ {
				for c := 0; c < l; c++ {
					dst[p*l+c] += scale * w.PairMarginal(s, i, p, c)
				}
			}
		}
		return
	}
	// Σi α[i-1][p]·T[p][c]·e[i][c]·β[i][c]/sums[i]: T does not depend on i,
	// so accumulate the outer products α[i-1] ⊗ q[i] (one axpy per row)
	// and multiply by T once per sentence.
	lp := w.lp
	acc, q := w.pairAcc, w.tmp
	for k := range acc {
		acc[k] = 0
	}
	for i := 1; i < n; i++ {
		b, e := w.beta[i*l:(i+1)*l], w.expState[i*l:(i+1)*l]
		f := 1 / w.sums[i]
		qq := q[:len(b)]
		e = e[:len(b)]
		for c := range qq {
			qq[c] = float64(e[c]*b[c]) * f
		}
		outer(acc, w.alpha[(i-1)*l:i*l], q, lp)
	}
	for p := 0; p < l; p++ {
		t, a, d := w.expTrans[p*lp:p*lp+l], acc[p*lp:p*lp+l], dst[p*l:(p+1)*l]
		for c := range d {
			d[c] += float64(float64(scale*t[c]) * a[c])
		}
	}
}
