// sgd.go is stochastic gradient descent (CRFsuite's l2sgd): one walk of
// steps (sgdWalk) and the serial driver of its epochs (sgd); mixsgd.go
// drives walks on shards instead, by parameter mixing.

package crf

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync/atomic"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/plural"
)

// sgd is stochastic gradient descent on the L2-regularized objective, as
// CRFsuite's l2sgd: per-example objective loss_i + (c2/N)‖w‖², step
// η_t = η0 / (1 + λ·η0·t) with λ = 2·c2/N (t counts sentences), and the
// weight decay folded into a global scale, w = scale·v, so that a step
// touches only its sentences' features. The state and pair scores are
// summed from v and multiplied by scale once per score
// (Model.ScaledLattice), not read from a copy of scale·v.
//
// A step takes batch_size sentences (default 1, CRFsuite's): their
// gradients are all taken at the weights the step starts from and summed,
// so that they can be computed side by side. The batch is cut into two
// lanes — its first half and its second — each summed in order into a
// buffer of its own by one worker, and the lanes are applied in order:
// the bytes are the same whether one thread runs both lanes or two run one
// each, so they never depend on --threads.
//
// With shards ≥ 2 (settings.mixing) the epochs are parameter mixing
// instead (mix, mixsgd.go); the walk embedded here then holds the mixed
// weights between epochs and steps nothing itself.
type sgd struct {
	sgdWalk
	es *earlyStop
	// mix is the mixing driver's state, nil for serial SGD.
	mix   *sgdMixing
	order []int
	src   *rand.PCG
	rng   *rand.Rand
	// history is the objective after each epoch, for the delta test.
	history []float64
	epochs  int
	status  string
}

// sgdWalk is one walk of SGD steps: the weights as it keeps them, its
// clock and the buffers of its steps. The serial learner has one; each
// replica of a mixed run has its own (mixsgd.go).
type sgdWalk struct {
	obj    *objective
	s      settings
	lambda float64
	v      []float64 // w = scale·v
	scale  float64
	t      float64   // sentences seen: the step schedule's clock
	w      []float64 // scratch: the scaled transition weights of the current step
	lanes  [2]sgdLane
	// pooled is set when the lanes' buffers come from the objective's
	// pool, which release gives them back to.
	pooled bool
	// parallel is set when there are two lanes, two workers and two
	// processors; second then runs, during an epoch, the second lane
	// beside the first (nil otherwise and between epochs).
	parallel bool
	second   *spinner
	// applying tells second which half of a step it runs: the second
	// lane's gradient, or the update of the attributes from split on.
	applying bool
	split    int
	stepSize float64 // the step being applied: η / scale
}

// sgdLane is one half of a step's batch: its sentences, the worker that
// scores them, and the zeroed gradient buffer their gradients are summed
// into (cleared sparsely when the step is applied).
type sgdLane struct {
	sents []int
	wk    *worker
	g     []float64
	loss  float64
}

// newWalk returns a walk of obj's SGD with settings s, from zero weights
// and clock 0, without lanes yet. λ is 2·c2/N, N all of obj's training
// sentences: a shard's walk steps on the per-example objective of the
// whole problem, whose regularizer is c2/N per example.
func newWalk(obj *objective, s settings) sgdWalk {
	n := len(obj.m.W)
	return sgdWalk{obj: obj, s: s, lambda: 2 * s.c2 / float64(len(obj.sents)),
		v: make([]float64, n), scale: 1, w: make([]float64, n)}
}

func trainSGD(ctx context.Context, obj *objective, s settings, p *learn.Problem, es *earlyStop, info map[string]any) (err error) {
	g := &sgd{
		sgdWalk: newWalk(obj, s), es: es,
		order:  append([]int(nil), obj.sents...),
		src:    rand.NewPCG(p.Seed, SGDShuffleStream),
		status: "maximum iterations",
	}
	defer g.release()
	copy(g.v, obj.m.W) // zero, or the weights of the model continued (init_model)
	g.rng = rand.New(g.src)
	if s.mixing == mixedSGD {
		if g.mix, err = newSGDMixing(ctx, g, p); err != nil {
			return err
		}
		defer func() { err = errors.Join(err, g.mix.release()) }()
	} else {
		g.takeLanes()
	}
	loop := &learn.Loop{
		Name: s.name, Unit: "sgd epoch", CurveUnit: learn.SGDEpoch, Steps: s.maxIterations, Hint: "try a smaller learning_rate",
		Step: g.epoch, Evaluate: g.evaluate, Save: g.save, Restore: g.restore,
	}
	if err := loop.Run(ctx, p); err != nil {
		return err
	}
	info["iterations"], info["status"], info["loss"] = g.epochs, g.status, g.history[len(g.history)-1]
	if g.mix != nil {
		info["shards"], info["mix"] = len(g.mix.shards), "uniform"
	}
	return nil
}

// takeLanes gives each lane a worker and a zeroed gradient buffer: the
// objective's own while it has them (one per thread), new ones beyond.
// The second lane exists only for batches of two sentences or more.
func (g *sgdWalk) takeLanes() {
	g.pooled = true
	obj := g.obj
	lanes := 1
	if g.s.batch > 1 {
		lanes = 2
	}
	for k := range lanes {
		ln := &g.lanes[k]
		ln.wk = obj.workers[k%len(obj.workers)]
		ln.wk.sgdV = g.v
		if k < cap(obj.pool) {
			ln.g = <-obj.pool
			clear(ln.g)
		} else {
			ln.g = make([]float64, len(g.v))
		}
	}
	if lanes == 2 && len(obj.workers) > 1 && runtime.GOMAXPROCS(0) > 1 {
		g.parallel, g.split = true, g.attrSplit()
	}
}

// startSecond starts the goroutine that runs the second lane and the
// second apply range, for one epoch: between epochs (dev scoring,
// checkpoints, the log) it must not spin on a core that others need.
func (g *sgdWalk) startSecond() {
	if !g.parallel {
		return
	}
	g.second = newSpinner(func() {
		if g.applying {
			g.apply(g.split, g.obj.m.NumAttrs(), false)
		} else {
			g.laneGradient(&g.lanes[1])
		}
	})
}

// stopSecond ends the epoch's second goroutine, if any.
func (g *sgdWalk) stopSecond() {
	if g.second != nil {
		g.second.close()
		g.second = nil
	}
}

// release hands the workers and buffers back to the objective (L-BFGS
// follows a warm start on them).
func (g *sgdWalk) release() {
	g.stopSecond()
	for k := range g.lanes {
		ln := &g.lanes[k]
		if ln.wk == nil {
			continue
		}
		ln.wk.sgdV = nil
		if g.pooled && k < cap(g.obj.pool) {
			g.obj.pool <- ln.g
		}
		ln.wk = nil
	}
}

// epoch is one shuffled pass (or, mixing, one epoch of every shard); it
// returns the regularized objective and leaves the weights in the model.
func (g *sgd) epoch(k int, tick func(done int) error) (float64, error) {
	g.epochs = k
	var loss float64
	var err error
	if g.mix != nil {
		loss, err = g.mix.epoch(tick)
	} else {
		order := g.order
		g.rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		loss, err = g.walk(order, tick)
	}
	if err != nil {
		return 0, err
	}
	objective := g.objective(loss)
	// A non-finite objective stops the loop, and the model is then
	// dropped: writing the weights regardless costs nothing.
	m := g.obj.m
	for f := range m.W {
		m.W[f] = g.scale * g.v[f]
	}
	return objective, nil
}

// walk steps through order, batch by batch, and returns the summed loss
// of its sentences, each before its step. tick is called every 1024
// sentences or so with the sentences done.
func (g *sgdWalk) walk(order []int, tick func(done int) error) (float64, error) {
	g.startSecond()
	defer g.stopSecond()
	loss, nextTick := 0.0, 0
	for i := 0; i < len(order); i += g.s.batch {
		if i >= nextTick {
			if err := tick(i); err != nil {
				return 0, err
			}
			nextTick += 1024
		}
		l, err := g.step(order[i:min(i+g.s.batch, len(order))])
		if err != nil {
			return 0, err
		}
		loss += l
	}
	return loss, nil
}

// objective is an epoch's objective: loss, the sentences' summed loss
// along the walk, plus the L2 term at the walk's weights.
func (g *sgdWalk) objective(loss float64) float64 {
	norm := 0.0
	for _, x := range g.v {
		norm += x * x
	}
	return loss + g.s.c2*g.scale*g.scale*norm
}

// step makes one step on the sentences of batch and returns their loss
// before it.
func (g *sgdWalk) step(batch []int) (float64, error) {
	obj, s, m := g.obj, g.s, g.obj.m
	eta := s.eta / (1 + g.lambda*s.eta*g.t)
	if eta*g.lambda >= 1 {
		return 0, fmt.Errorf("%s: learning_rate %v is too large for c2 %v on %s (the weight decay would flip the weights' sign)", s.name, s.eta, s.c2, plural.Count(len(obj.sents), "sentence"))
	}
	for f := m.NumFeatures(); f < m.PairBase(); f++ {
		g.w[f] = g.scale * g.v[f]
	}
	half := g.laneSplit(batch)
	g.lanes[0].sents, g.lanes[1].sents = batch[:half], batch[half:]
	if len(batch) > 1 && g.second != nil {
		g.second.start()
		g.laneGradient(&g.lanes[0])
		g.second.wait()
	} else {
		g.laneGradient(&g.lanes[0])
		if len(batch) > 1 {
			g.laneGradient(&g.lanes[1])
		}
	}
	// The decay of each sentence's step, then the batch's summed
	// gradient at the first one's rate.
	for range batch {
		e := s.eta / (1 + g.lambda*s.eta*g.t)
		g.scale *= 1 - e*g.lambda
		g.t++
	}
	loss := g.lanes[0].loss
	if len(batch) > 1 {
		loss += g.lanes[1].loss
	}
	g.stepSize = eta / g.scale
	if len(batch) > 1 && g.second != nil {
		g.applying = true
		g.second.start()
		g.apply(0, g.split, true)
		g.second.wait()
		g.applying = false
	} else {
		g.apply(0, g.obj.m.NumAttrs(), true)
	}
	if g.scale < 1e-20 {
		for f := range g.v {
			g.v[f] *= g.scale
		}
		g.scale = 1
	}
	return loss, nil
}

// laneSplit returns where the batch's second lane starts: after the
// sentences that hold about half its tokens, so that the two lanes take
// about the same time (a sentence costs about its length). It depends on
// the data alone, never on the threads.
func (g *sgdWalk) laneSplit(batch []int) int {
	if len(batch) < 2 {
		return len(batch)
	}
	d := g.obj.d
	total := 0
	for _, sent := range batch {
		lo, hi := d.Sentence(sent)
		total += hi - lo
	}
	half, sum := 0, 0
	for half < len(batch)-1 {
		lo, hi := d.Sentence(batch[half])
		if 2*(sum+hi-lo) > total+(hi-lo) {
			break
		}
		sum += hi - lo
		half++
	}
	return max(half, 1)
}

// laneGradient sums the gradients of the lane's sentences, at the step's
// starting weights, into its buffer, and their losses into its loss.
func (g *sgdWalk) laneGradient(ln *sgdLane) {
	ln.wk.sgdScale = g.scale
	ln.loss = 0
	for _, sent := range ln.sents {
		ln.loss += ln.wk.sentence(g.obj, g.w, sent, ln.g)
		addGold(g.obj, sent, ln.g, -1)
	}
}

// apply moves v by −stepSize times the lanes' gradients, the first
// lane's then the second's, and clears their buffers, over the features
// of the attributes aLo … aHi−1 that the lanes' sentences touch, and with
// transitions the transition weights (exactly one of the calls of a step
// takes them). Two disjoint ranges can be applied side by side
// (attrSplit), each feature getting the same subtractions in the same
// order as from one call over all.
func (g *sgdWalk) apply(aLo, aHi int, transitions bool) {
	m, d := g.obj.m, g.obj.d
	v, step := g.v, g.stepSize
	lo32, hi32 := int32(aLo), int32(aHi)
	for k := range g.lanes {
		ln := &g.lanes[k]
		if len(ln.sents) == 0 {
			continue // a batch of one, or the end of an epoch
		}
		grad := ln.g
		for _, sent := range ln.sents {
			lo, hi := d.Sentence(sent)
			for _, a := range d.Attrs[d.TokenOff[lo]:d.TokenOff[hi]] {
				if a < lo32 || a >= hi32 {
					continue
				}
				for f := m.FeatOff[a]; f < m.FeatOff[a+1]; f++ {
					v[f] -= step * grad[f]
					grad[f] = 0
				}
			}
			g.forPairs(lo, hi, aLo, aHi, func(f int) {
				v[f] -= step * grad[f]
				grad[f] = 0
			})
		}
		if transitions {
			for f := m.NumFeatures(); f < m.PairBase(); f++ {
				v[f] -= step * grad[f]
				grad[f] = 0
			}
		}
	}
}

// attrSplit returns the attribute that splits apply's work in two: the
// state feature updates summed over the training sentences' attribute
// occurrences. (Frequent attributes come first in the dictionary and have
// the most features, so half the features would be far from half the work.)
func (g *sgdWalk) attrSplit() int {
	m, d := g.obj.m, g.obj.d
	work := make([]int64, m.NumAttrs())
	var total int64
	for _, sent := range g.obj.sents {
		lo, hi := d.Sentence(sent)
		for _, a := range d.Attrs[d.TokenOff[lo]:d.TokenOff[hi]] {
			n := int64(m.FeatOff[a+1] - m.FeatOff[a])
			work[a] += n
			total += n
		}
	}
	var sum int64
	for a, n := range work {
		if 2*(sum+n) > total {
			return a
		}
		sum += n
	}
	return len(work)
}

// forPairs calls fn with the index in W of every pair feature of the
// attributes aLo … aHi−1 of tokens lo+1 … hi−1 (the ones a sentence's step reads and
// changes; an attribute met twice gives its features twice, which fn
// must tolerate: its writes are idempotent).
func (g *sgdWalk) forPairs(lo, hi, aLo, aHi int, fn func(f int)) {
	m, d := g.obj.m, g.obj.d
	if m.PairOff == nil {
		return
	}
	base := int32(m.PairBase())
	for tok := lo + 1; tok < hi; tok++ {
		for kk := d.TokenOff[tok]; kk < d.TokenOff[tok+1]; kk++ {
			a := d.Attrs[kk]
			if int(a) < aLo || int(a) >= aHi {
				continue
			}
			for k := m.PairOff[a]; k < m.PairOff[a+1]; k++ {
				fn(int(base + k))
			}
		}
	}
}

// evaluate scores the epoch on dev and applies the stopping tests.
func (g *sgd) evaluate(epoch int, pt *learn.Point) bool {
	stop := g.es.observe(epoch, g.obj.m.W, pt)
	g.history = append(g.history, pt.Loss)
	if stop {
		g.status = "stopped by dev score"
		return true
	}
	if h := g.history; len(h) > g.s.period {
		past, objective := h[len(h)-1-g.s.period], h[len(h)-1]
		if (past-objective)/objective < g.s.delta {
			g.status = "no further improvement"
			return true
		}
	}
	return false
}

func (g *sgd) save(epoch int, curve []learn.Point) ([]byte, error) {
	rngState, err := g.src.MarshalBinary()
	if err != nil {
		return nil, err
	}
	es := g.es
	st := &state{Algorithm: "sgd", Epoch: epoch, V: g.v, Scale: g.scale, T: g.t, RNG: rngState, Order: g.order,
		History: g.history, Best: es.best.Score, BestAt: es.best.At, BestW: es.best.W, Curve: curve}
	if g.mix != nil {
		if err := g.mix.save(st); err != nil {
			return nil, err
		}
	}
	return encodeState(st)
}

func (g *sgd) restore(b []byte) (int, []learn.Point, error) {
	st, err := decodeState(b, "sgd", len(g.v))
	if err != nil {
		return 0, nil, err
	}
	shards := 0
	if g.mix != nil {
		shards = len(g.mix.shards)
	}
	if len(st.Order) != len(g.order) || st.Shards != shards {
		return 0, nil, fmt.Errorf("crf: the checkpoint does not fit this problem (%d training sentences, %d shards; it has %d and %d)",
			len(g.order), shards, len(st.Order), st.Shards)
	}
	if err := g.src.UnmarshalBinary(st.RNG); err != nil {
		return 0, nil, fmt.Errorf("crf: checkpoint: %w", err)
	}
	if g.mix != nil {
		if err := g.mix.restore(st); err != nil {
			return 0, nil, err
		}
	} else {
		g.order = st.Order
	}
	copy(g.v, st.V)
	g.scale, g.t, g.history = st.Scale, st.T, st.History
	g.es.restoreState(st)
	return st.Epoch, st.Curve, nil
}

// spinner runs a function on a goroutine of its own each time start is
// called, and wait returns when that run is done. Between runs the
// goroutine spins (yielding the processor at each turn) instead of parking:
// an SGD step's lane is short, and waking a parked goroutine takes about
// as long — with a goroutine started per step, or woken by a channel, the
// lanes ran side by side for only part of the time
// (BenchmarkSGDEpochConll2000; docs/results.md, "Measurements behind
// design choices in the code"). It costs the spinning core between the
// steps of an epoch, and only then (sgd.startSecond).
type spinner struct {
	fn         func()
	runs, done atomic.Uint64
	closed     atomic.Bool
}

func newSpinner(fn func()) *spinner {
	s := &spinner{fn: fn}
	go s.loop()
	return s
}

func (s *spinner) loop() {
	for seen := uint64(0); ; {
		for s.runs.Load() == seen {
			if s.closed.Load() {
				return
			}
			runtime.Gosched()
		}
		seen++
		s.fn()
		s.done.Store(seen)
	}
}

// start begins a run; the caller must wait for it before the next.
func (s *spinner) start() { s.runs.Add(1) }

// wait returns when the run begun last is done; what it wrote is then
// visible to the caller.
func (s *spinner) wait() {
	for s.done.Load() != s.runs.Load() {
		runtime.Gosched()
	}
}

// close ends the goroutine.
func (s *spinner) close() { s.closed.Store(true) }
