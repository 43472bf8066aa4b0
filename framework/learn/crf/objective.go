// The CRF family's objective (the negative log-likelihood plus the L2
// term) and its sharded, thread-independent gradient.

package crf

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"

	"gonum.org/v1/gonum/floats"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// DefaultShards is the number of pieces the training sentences are cut
// into for the gradient when the learner's shards setting is unset. Each
// shard's contribution is computed on its own and added to the total in
// shard order, so the floating-point result — and the model bytes — are
// the same for every thread count; they depend on the number of shards,
// which is fixed by the spec. Only threads shard buffers exist (a shard's
// buffer is recycled once it has been added; the first shard writes into
// the gradient itself), so more shards cost no memory.
const DefaultShards = 16

// layout is how an objective's work is cut: shards fixed pieces of the
// sentences (the reduction order, so part of the result), computed on
// threads goroutines (never part of it).
type layout struct {
	shards, threads int
}

// objective is the CRF's negative conditional log-likelihood plus the L2
// term, c2·‖w‖² (CRFsuite's convention, so c2 means what it means there),
// with its gradient: expected minus empirical feature counts plus 2·c2·w.
type objective struct {
	m      *linear.Model
	d      *feature.Dataset
	sents  []int
	shards [][]int // sentence indices per shard
	kind   objectiveKind
	// latent is the hidden states per label of a latent model (0: none);
	// the empirical counts are then per sentence (latentSentence).
	latent  int
	c2      float64
	threads int
	// prior is the centre of the L2 penalty, c2·‖x − prior‖² (nil: zero).
	prior []float64

	// empirical holds the gold feature counts; empirical32 holds them
	// instead when they are sure to be small integers (exact in float32;
	// see useFloat32Counts), at half the memory.
	empirical   []float64
	empirical32 []float32
	// hot, when the model has hot rows and the data binary attributes
	// (CRF objective only), are the hot rows (linear.HotRows), and hotW
	// their weights at the point being evaluated, gathered once per
	// evaluation and read by every worker.
	hot  *linear.HotRows
	hotW []float64
	// pool holds threads gradient buffers for shards in flight; the first
	// shard of an evaluation writes into the caller's gradient instead.
	pool    chan []float64
	results chan shardResult
	workers []*worker
}

// objectiveKind is what an objective fits: whether it scores label
// transitions, and where it normalizes.
type objectiveKind struct {
	trans transitionMode
	norm  normalization
}

// transitionMode says whether an objective scores label transitions
// (with start and stop): the problem's, never maxent's.
type transitionMode int

const (
	noTransitions transitionMode = iota
	withTransitions
)

// transitionsIf is the mode of a problem that has transitions or not.
func transitionsIf(on bool) transitionMode {
	if on {
		return withTransitions
	}
	return noTransitions
}

// normalization is where an objective normalizes the label distribution.
type normalization int

const (
	// globalNorm is over whole label sequences: the CRF, latent or not.
	globalNorm normalization = iota
	// localNorm is at each token: maxent and the MEMM (localSentence).
	localNorm
)

// objective is the kind of objective form f fits on p: the CRF (latent
// or not) normalizes globally, maxent and the MEMM locally.
func (f Form) objective(p *learn.Problem) objectiveKind {
	k := objectiveKind{transitionsIf(p.Transitions), localNorm}
	if f == Chain {
		k.norm = globalNorm
	}
	return k
}

type shardResult struct {
	k    int
	loss float64
	grad []float64
}

type worker struct {
	ws   *lattice.Workspace
	sc   lattice.Scores
	marg []float64
	path []int32
	// pair holds one position's pair marginals (L*L) for the gradient of
	// the pair features.
	pair []float64
	// scorer, for a model with pair features, scores a shard's sentences
	// with the pair weights exponentiated once (ExpPairs); nil outside
	// shard. It is pairScorer, whose buffers are reused. With hot rows
	// it also reads o.hotW, and hotG, the hot rows' expected counts of
	// the shard (moved into the shard's gradient at its end), is set.
	scorer, pairScorer *linear.Scorer
	hotG, hotBuf       []float64
	// sgdV and sgdScale, while SGD runs on this worker, are its weights
	// as it keeps them, sgdScale·sgdV (sgd.go): the state and pair scores
	// are read from them, and only the transition weights from the x
	// passed in.
	sgdV     []float64
	sgdScale float64
	// For a latent model: the lattice restricted to the gold labels'
	// states (k per position; Trans stays zero, TransAt holds the blocks),
	// its workspace and its marginals.
	clamped     lattice.Scores
	wsClamped   *lattice.Workspace
	margClamped []float64
}

// newObjective is the objective of kind over sentences sents of d, with
// L2 coefficient c2, in DefaultShards shards computed on threads
// goroutines (0: one per CPU).
func newObjective(m *linear.Model, d *feature.Dataset, sents []int, kind objectiveKind, c2 float64, threads int) *objective {
	return newShardedObjective(m, d, sents, kind, c2, layout{DefaultShards, threads})
}

// newShardedObjective is newObjective cut into lay.shards shards (at
// least one; fewer when there are fewer sentences).
func newShardedObjective(m *linear.Model, d *feature.Dataset, sents []int, kind objectiveKind, c2 float64, lay layout) *objective {
	threads := lay.threads
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	shards := splitShards(d, sents, max(lay.shards, 1))
	if threads > len(shards) {
		threads = len(shards)
	}
	o := &objective{m: m, d: d, sents: sents, shards: shards, kind: kind, c2: c2, threads: threads,
		latent: m.HiddenStates}
	if useFloat32Counts(m, d) {
		o.empirical32 = make([]float32, len(m.W))
	} else {
		o.empirical = make([]float64, len(m.W))
	}
	o.pool = make(chan []float64, threads)
	for k := 0; k < threads; k++ {
		o.pool <- make([]float64, len(m.W))
	}
	o.results = make(chan shardResult, len(shards))
	for range threads {
		o.workers = append(o.workers, o.newWorker())
	}
	if h := m.HotRows(); h.Len() > 0 && kind.norm == globalNorm && o.latent <= 1 && d.Values == nil {
		o.hot = h
	}
	o.countEmpirical()
	return o
}

// newWorker returns a worker with buffers for o's longest sentence.
func (o *objective) newWorker() *worker {
	m, maxLen := o.m, o.d.MaxSentenceLen()
	wk := &worker{
		ws:   lattice.NewWorkspace(m.NumLabels),
		sc:   lattice.Scores{State: make([]float64, 0, maxLen*m.NumLabels)},
		marg: make([]float64, maxLen*m.NumLabels),
		path: make([]int32, maxLen),
		pair: make([]float64, m.NumLabels*m.NumLabels),
	}
	if k := o.latent; k > 1 {
		wk.wsClamped = lattice.NewWorkspace(k)
		wk.clamped = lattice.Scores{State: make([]float64, maxLen*k), TransAt: make([]float64, maxLen*k*k),
			Trans: make([]float64, k*k), Start: make([]float64, k), Stop: make([]float64, k)}
		wk.margClamped = make([]float64, maxLen*k)
	}
	return wk
}

// splitShards cuts sents into at most k contiguous pieces of about equal
// token counts, from the data alone.
func splitShards(d *feature.Dataset, sents []int, k int) [][]int {
	total := 0
	for _, s := range sents {
		lo, hi := d.Sentence(s)
		total += hi - lo
	}
	var shards [][]int
	start, acc := 0, 0
	for i, s := range sents {
		lo, hi := d.Sentence(s)
		acc += hi - lo
		if acc*k >= total*(len(shards)+1) && len(shards) < k-1 {
			shards = append(shards, sents[start:i+1])
			start = i + 1
		}
	}
	if start < len(sents) || len(shards) == 0 {
		shards = append(shards, sents[start:])
	}
	return shards
}

// useFloat32Counts reports whether the gold feature counts can be kept in
// float32 with the same values as in float64: binary attributes, so that
// every count is a sum of ones, and fewer additions in all than 2^24, so
// that every count is an integer float32 represents exactly (a feature is
// counted at most twice per attribute occurrence — state and pair — plus
// three times per token — transition, start, stop). Second-order models
// count trigrams in float64 (linear.Model.AddTrigrams). The gradient and
// the model are then bit for bit the same, with 4 bytes less per weight
// (docs/results.md, "Measurements behind design choices in the code").
func useFloat32Counts(m *linear.Model, d *feature.Dataset) bool {
	return d.Values == nil && !m.SecondOrder() && 2*len(d.Attrs)+3*d.NumTokens() < 1<<24
}

// countEmpirical adds up the gold sequences' feature counts once; they do
// not depend on the weights.
func (o *objective) countEmpirical() {
	if o.latent > 1 {
		return // the gold states are hidden: latentSentence counts them
	}
	if o.empirical32 != nil {
		countGold(o, o.empirical32)
	} else {
		countGold(o, o.empirical)
	}
}

func countGold[T float32 | float64](o *objective, empirical []T) {
	for _, s := range o.sents {
		addGold(o, s, empirical, 1)
	}
}

// addGold adds sign times sentence s's gold feature counts to dst: its
// state and pair features, transitions, start and stop, and (into a
// float64 dst) its trigrams. The counts once for the objective (sign 1),
// and SGD's per-sentence gradient (sign −1: the same bits as subtracting).
func addGold[T float32 | float64](o *objective, s int, dst []T, sign T) {
	m, d, l := o.m, o.d, o.m.NumLabels
	f0 := m.NumFeatures()
	lo, hi := d.Sentence(s)
	for t := lo; t < hi; t++ {
		y := d.Labels[t]
		for k := d.TokenOff[t]; k < d.TokenOff[t+1]; k++ {
			if f := m.Feature(d.Attrs[k], y); f >= 0 {
				dst[f] += sign * T(d.Value(k))
			}
		}
		if o.kind.trans == withTransitions && t > lo {
			dst[f0+int(d.Labels[t-1])*l+int(y)] += sign
		}
		if t > lo && m.PairOff != nil {
			for k := d.TokenOff[t]; k < d.TokenOff[t+1]; k++ {
				if f := m.PairFeature(d.Attrs[k], d.Labels[t-1], y); f >= 0 {
					dst[f] += sign * T(d.Value(k))
				}
			}
		}
	}
	if e, ok := any(dst).([]float64); ok {
		m.AddTrigrams(e, d.Labels[lo:hi], float64(sign))
	}
	if o.kind.trans == withTransitions {
		dst[f0+l*l+int(d.Labels[lo])] += sign
		if o.kind.norm == globalNorm { // a local model has no stop
			dst[f0+l*l+l+int(d.Labels[hi-1])] += sign
		}
	}
}

// Evaluate returns the objective at x and writes its gradient into grad.
func (o *objective) Evaluate(x, grad []float64) float64 {
	if o.hot != nil {
		o.hotW = o.hot.Gather(o.hotW, x)
	}
	var next atomic.Int64
	for w := 0; w < o.threads; w++ {
		go func(wk *worker) {
			for {
				// Take a buffer before a shard index: the lowest shard not
				// yet added then always holds a buffer, so the in-order
				// reduction below can never wait on a shard that waits for
				// a buffer. The first shard needs none: it is the start of
				// the sum, so it goes straight into grad (the same bits as
				// a copy), and its buffer lets the next shard start early.
				buf := <-o.pool
				k := int(next.Add(1) - 1)
				if k >= len(o.shards) {
					o.pool <- buf
					return
				}
				if k == 0 {
					o.pool <- buf
					buf = grad
				}
				loss := wk.shard(o, x, o.shards[k], buf)
				o.results <- shardResult{k, loss, buf}
			}
		}(o.workers[w])
	}
	pending := make([]*shardResult, len(o.shards))
	sum := shardSum{o: o, grad: grad}
	for sum.next < len(o.shards) {
		r := <-o.results
		pending[r.k] = &r
		for k := sum.next; k < len(o.shards) && pending[k] != nil; k = sum.next {
			p := pending[k]
			sum.add(p.loss, p.grad)
			if k > 0 {
				o.pool <- p.grad
			}
			pending[k] = nil
		}
	}
	return sum.finish(x)
}

// shardSum is the reduction of an evaluation's shards, added in shard
// order: the one arithmetic of Evaluate and of ShardSum (a distributed
// driver's). grad is the gradient being summed, len(m.W).
type shardSum struct {
	o    *objective
	grad []float64
	loss float64
	next int // the shard to add next
}

// add adds shard next's loss and expected counts g. Shard 0 is the start
// of the sum: its counts are copied (g may be grad itself, as in
// Evaluate), the same bits as adding them to zeros.
func (s *shardSum) add(loss float64, g []float64) {
	if s.next == 0 {
		if len(g) > 0 && &g[0] != &s.grad[0] {
			copy(s.grad, g)
		}
	} else {
		floats.Add(s.grad, g)
	}
	s.loss += loss
	s.next++
}

// finish adds the L2 term and the empirical counts at x and returns the
// objective; grad then holds its gradient.
func (s *shardSum) finish(x []float64) float64 {
	return s.loss + s.o.regularize(x, s.grad)
}

// regularize adds the L2 penalty's gradient (and the empirical counts'
// negation) to grad and returns the penalty, c2·‖x − prior‖². The sum is
// taken in index order, sequentially.
func (o *objective) regularize(x, grad []float64) float64 {
	if o.empirical32 != nil {
		return regularizeWith(o, o.empirical32, x, grad)
	}
	return regularizeWith(o, o.empirical, x, grad)
}

func regularizeWith[T float32 | float64](o *objective, empirical []T, x, grad []float64) float64 {
	norm := 0.0
	if o.prior == nil {
		for f, e := range empirical {
			grad[f] += 2*o.c2*x[f] - float64(e)
			norm += x[f] * x[f]
		}
		return o.c2 * norm
	}
	for f, e := range empirical {
		v := x[f] - o.prior[f]
		grad[f] += 2*o.c2*v - float64(e)
		norm += v * v
	}
	return o.c2 * norm
}

// shard computes the summed loss (log Z minus the gold score) of a shard's
// sentences and writes their expected feature counts into g.
func (wk *worker) shard(o *objective, x []float64, sents []int, g []float64) float64 {
	for f := range g {
		g[f] = 0
	}
	if o.m.PairOff != nil && o.kind.norm == globalNorm || o.hot != nil {
		// Valid for x only: cleared below, so that a sentence scored
		// alone (SGD's steps, at other weights) builds its own.
		if wk.pairScorer == nil {
			wk.pairScorer = &linear.Scorer{}
		}
		wk.pairScorer.ResetInPlace(o.m, x)
		wk.pairScorer.ExpPairs()
		if o.hot != nil {
			wk.pairScorer.UseHotRows(o.hot, o.hotW)
			n := len(o.hotW)
			if cap(wk.hotBuf) < n {
				wk.hotBuf = make([]float64, n)
			}
			wk.hotG = wk.hotBuf[:n]
			clear(wk.hotG)
		}
		wk.scorer = wk.pairScorer
	}
	loss := 0.0
	for _, s := range sents {
		loss += wk.sentence(o, x, s, g)
	}
	if wk.hotG != nil {
		o.hot.Scatter(g, wk.hotG)
	}
	wk.scorer, wk.hotG = nil, nil
	return loss
}

// lattice fills wk.sc with sentence s's scores under x or, while SGD
// runs (sgdV set), under its weights sgdScale·sgdV, x then giving only
// the transition weights (Model.ScaledLattice).
func (wk *worker) lattice(m *linear.Model, x []float64, d *feature.Dataset, s int) {
	if wk.sgdV != nil {
		m.ScaledLattice(&wk.sc, wk.sgdV, wk.sgdScale, x, d, s)
		return
	}
	m.Lattice(&wk.sc, x, d, s)
}

// stateScores writes the state scores of tokens lo … hi−1 into dst,
// under x or SGD's weights, as lattice.
func (wk *worker) stateScores(m *linear.Model, dst, x []float64, d *feature.Dataset, lo, hi int) {
	if wk.sgdV != nil {
		m.ScaledStateScores(dst, wk.sgdV, wk.sgdScale, d, lo, hi)
		return
	}
	m.StateScores(dst, x, d, lo, hi)
}

func (wk *worker) sentence(o *objective, x []float64, s int, g []float64) float64 {
	if o.kind.norm == localNorm {
		return wk.localSentence(o, x, s, g)
	}
	if o.latent > 1 {
		return wk.latentSentence(o, x, s, g)
	}
	m, d, l := o.m, o.d, o.m.NumLabels
	if wk.scorer != nil {
		m.LatticeWith(&wk.sc, wk.scorer, x, d, s)
	} else {
		wk.lattice(m, x, d, s)
	}
	sc := &wk.sc
	n := sc.N
	lo, _ := d.Sentence(s)
	logZ := wk.ws.ForwardBackward(sc)
	gold := lattice.SequenceScore(sc, d.Labels[lo:lo+n])
	marg := wk.marg[:n*l]
	wk.ws.StateMarginals(marg)
	if wk.hotG != nil {
		for i := 0; i < n; i++ {
			t := lo + i
			o.hot.AddExpectations(g, wk.hotG, d.Attrs[d.TokenOff[t]:d.TokenOff[t+1]], marg[i*l:(i+1)*l])
		}
	} else {
		m.AddStateGradient(g, d, lo, marg)
	}
	if m.PairOff != nil {
		wk.addPairExpectations(m, d, lo, g, o.kind.trans)
	}
	if o.kind.trans == withTransitions {
		f0 := m.NumFeatures()
		if m.PairOff == nil {
			wk.ws.AddTransMarginals(g[f0:f0+l*l], sc, 1)
		}
		start, stop := g[f0+l*l:f0+l*l+l], g[f0+l*l+l:f0+l*l+2*l]
		for y := 0; y < l; y++ {
			start[y] += marg[y]
			stop[y] += marg[(n-1)*l+y]
		}
	}
	if m.SecondOrder() {
		wk.ws.AddTrigramMarginals(m.TrigramWeights(g), sc, 1)
	}
	return logZ - gold
}

// addPairExpectations adds to g, for each position i > 0 of the sentence
// whose first token is lo, each pair feature of token lo+i's attributes
// times its value times the marginal of its bigram into i (from the last
// ForwardBackward on wk.sc), and with transitions the bigram marginals
// themselves to the transition weights' gradient: one L×L block of pair
// marginals per position serves both.
func (wk *worker) addPairExpectations(m *linear.Model, d *feature.Dataset, lo int, g []float64, trans transitionMode) {
	l := m.NumLabels
	off, keys, base, f0 := m.PairOff, m.PairKey, m.PairBase(), m.NumFeatures()
	gp, gt := g[base:base+len(keys)], g[f0:f0+l*l]
	pair := wk.pair
	for i := 1; i < wk.sc.N; i++ {
		wk.ws.PairMarginals(pair, &wk.sc, i)
		if trans == withTransitions {
			gt := gt[:len(pair)]
			for k, v := range pair {
				gt[k] += v
			}
		}
		t := lo + i
		for k := d.TokenOff[t]; k < d.TokenOff[t+1]; k++ {
			a := d.Attrs[k]
			p0, p1 := off[a], off[a+1]
			if p0 == p1 {
				continue
			}
			v := d.Value(k)
			ks, gs := keys[p0:p1], gp[p0:p1]
			gs = gs[:len(ks)]
			for j, key := range ks {
				gs[j] += v * pair[key]
			}
		}
	}
}

// Gradient is the CRF objective of a training problem, exposed so the
// gradient pass can be benchmarked and checked on real corpora, and so a
// distributed driver can have shards computed elsewhere: a worker that
// builds the same Gradient from the same Problem computes shard k at x
// (Shard), and the driver adds the shards in order (ShardSum), getting the
// bits of Evaluate, and so of training in process.
type Gradient struct {
	o *objective
	// Model is the structure the weight vector indexes.
	Model *linear.Model
}

// NewGradient builds the objective of p with L2 coefficient c2 over the
// features setting ("observed" or "all"), in DefaultShards shards.
func NewGradient(p *learn.Problem, features string, c2 float64) *Gradient {
	return NewShardedGradient(p, features, c2, DefaultShards)
}

// NewShardedGradient is NewGradient in shards shards: the learner's
// shards setting (0 is DefaultShards).
func NewShardedGradient(p *learn.Problem, features string, c2 float64, shards int) *Gradient {
	if shards <= 0 {
		shards = DefaultShards
	}
	m := learn.NewModel(features, p)
	var sents []int
	for k := 0; k < p.Train.NumSentences(); k++ {
		if learn.Complete(p.Train, k) {
			sents = append(sents, k)
		}
	}
	o := newShardedObjective(m, p.Train, sents, Chain.objective(p), c2, layout{shards, p.Threads})
	return &Gradient{o: o, Model: m}
}

// Evaluate returns the objective at x and writes the gradient into grad.
func (g *Gradient) Evaluate(x, grad []float64) float64 { return g.o.Evaluate(x, grad) }

// Shards is the number of shards: the requested count, or the number of
// sentences when there are fewer.
func (g *Gradient) Shards() int { return len(g.o.shards) }

// Shard writes shard k's expected feature counts at x into grad (both
// len(Model.W)) and returns its loss, the sum over its sentences of log Z
// minus the gold score. It reads nothing but x, the model's structure and
// the shard's sentences, and allocates nothing once warmed up. It is not
// safe for concurrent use: it runs on the objective's first worker.
func (g *Gradient) Shard(k int, x, grad []float64) float64 {
	o := g.o
	if o.hot != nil {
		o.hotW = o.hot.Gather(o.hotW, x)
	}
	return o.workers[0].shard(o, x, o.shards[k], grad)
}

// ErrShardOrder is returned by ShardSum.Add for a shard out of order.
var ErrShardOrder = errors.New("crf: shards must be added in order")

// ShardSum adds shards' results in shard order into the objective and its
// gradient: Evaluate's reduction, for a driver whose shards were computed
// elsewhere (Gradient.Shard).
type ShardSum struct {
	s shardSum
}

// NewSum starts a sum into grad (len(Model.W)), which it overwrites.
func (g *Gradient) NewSum(grad []float64) *ShardSum {
	return &ShardSum{shardSum{o: g.o, grad: grad}}
}

// Add adds shard k's loss and gradient (Gradient.Shard's); k must be the
// shard after the last one added, starting from 0.
func (s *ShardSum) Add(k int, loss float64, grad []float64) error {
	if k != s.s.next || len(grad) != len(s.s.grad) {
		return fmt.Errorf("%w: got shard %d (%d weights), want shard %d (%d weights)", ErrShardOrder, k, len(grad), s.s.next, len(s.s.grad))
	}
	s.s.add(loss, grad)
	return nil
}

// Finish returns the objective at x once every shard is added, leaving
// its gradient in the sum's grad.
func (s *ShardSum) Finish(x []float64) (float64, error) {
	if n := len(s.s.o.shards); s.s.next != n {
		return 0, fmt.Errorf("%w: %d of %d shards added", ErrShardOrder, s.s.next, n)
	}
	return s.s.finish(x), nil
}
