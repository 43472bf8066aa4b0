// mixsgd.go is CRF SGD by parameter mixing (Mann et al. 2009, "Efficient
// large-scale distributed training of conditional maximum entropy
// models", mixed after every epoch as in McDonald, Hall and Mann 2010's
// iterative parameter mixing): the training sentences are dealt into S
// fixed shards once (online.Deal); every epoch each shard runs one SGD
// epoch over its own sentences, in its own seeded order, from the mixed
// weights (SGDReplica.Epoch), up to Problem.Threads shards at a time, and
// the driver averages the shards' weights uniformly, in shard order
// (SGDMixer). The shapes are online's (ShardInput, Replica, Mixer), with
// SGD's state: a distributed driver runs SGDReplica.Epoch on workers and
// the SGDMixer on the driver and gets the same bytes.
//
// The step schedule and the scale, per shard:
//   - λ = 2·c2/N with N all the training sentences, not the shard's: a
//     shard steps on the whole problem's per-example objective,
//     loss_i + (c2/N)‖w‖², so the mixture's fixed point is the serial
//     objective's optimum (with λ from the shard's N_s the shards would
//     each regularize S times harder).
//   - each shard keeps its own clock t, the sentences it has stepped on
//     (N_s per epoch): the mixture of S walks of N_s steps moves about as
//     far as one walk of N_s steps, so its step size decays with the
//     steps a walk has made, as serial SGD's does with its own.
//   - a shard starts from w = scale·v with the mixed weights: after a mix
//     of two shards or more v is the mix and scale 1; with one shard the
//     walk's v and scale pass through unchanged, as serial SGD keeps them
//     across epochs, which makes one shard serial SGD bit for bit.

package crf

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/online"
)

// SGDShuffleStream is the PCG stream of serial SGD's shuffle: shard s of
// a mixed run shuffles its sentences every epoch with its own source,
// rand.NewPCG(seed, SGDShuffleStream+s), seed being the spec's, so that
// one shard shuffles as serial SGD does.
const SGDShuffleStream = 0x5851f42d4c957f2d

// SGDShardInput is what one shard's SGD epoch starts from: the mixed
// weights, the same for every shard (a broadcast), and the shard's own
// clock and order. n below is len(linear.Model.W) of the model trained.
type SGDShardInput struct {
	// V is a []float64 of length n and Scale a factor: weight j is
	// Scale·V[j] (SGD's weight decay lives in Scale).
	V     []float64
	Scale float64
	// T is the shard's clock: the sentences it has stepped on in the
	// epochs before (the step schedule's t).
	T float64
	// Order is the shard's sentences (indices into the Problem's Train
	// Dataset) in the order to step on them this epoch; the driver
	// shuffles each shard's with its own source (SGDShuffleStream).
	Order []int
}

// SGDShardResult is what one shard's epoch returns. Its slice belongs to
// the SGDReplica that made it and is valid until its next Epoch.
type SGDShardResult struct {
	// V (length n) and Scale are the weights after the shard's last
	// step, weight j being Scale·V[j]; T is the input's T plus the
	// shard's sentences.
	V     []float64
	Scale float64
	T     float64
	// Loss is the sum over the shard's sentences of their loss (log Z
	// minus the gold score) at the weights each one's step started from.
	Loss float64
}

// SGDReplica runs shards' SGD epochs: a walk with its own weights and
// buffers. A shard's epoch depends on nothing but its SGDShardInput, the
// model's structure, the settings and the training data, so replicas are
// interchangeable and a shard may run on any of them, or on any machine
// that builds one from the same learner and Problem.
type SGDReplica struct {
	g   sgdWalk
	res SGDShardResult
}

// newSGDReplica returns a replica of obj's SGD with settings s, scoring
// with wk (which it keeps until release), with buffers of its own.
func newSGDReplica(obj *objective, s settings, wk *worker) *SGDReplica {
	r := &SGDReplica{g: newWalk(obj, s)}
	lanes := 1
	if s.batch > 1 {
		lanes = 2
	}
	for k := range lanes {
		ln := &r.g.lanes[k]
		ln.wk, ln.g = wk, make([]float64, len(r.g.v))
	}
	wk.sgdV = r.g.v
	return r
}

// NewSGDReplica returns a replica of l's SGD on p for a worker of a
// distributed driver: its model's structure and settings are those that
// l.Train on p has.
func (l *Learner) NewSGDReplica(p *learn.Problem) (*SGDReplica, error) {
	s := l.settings()
	p, m, sents, err := l.start(p, s)
	if err != nil {
		return nil, err
	}
	obj := newShardedObjective(m, p.Train, sents, l.form.objective(p), s.c2, layout{1, 1})
	return newSGDReplica(obj, s, obj.workers[0]), nil
}

// Epoch steps through in.Order from in's weights and clock, exactly as
// serial SGD's epoch does from the same state, and returns the state it
// ends in. tick, when not nil, is called every 1024 sentences or so with
// the sentences done so far in the epoch; an error from it stops the
// epoch and is returned.
func (r *SGDReplica) Epoch(in *SGDShardInput, tick func(done int) error) (*SGDShardResult, error) {
	g := &r.g
	if len(in.V) != len(g.v) {
		return nil, fmt.Errorf("crf: shard input of %d weights for a model of %d", len(in.V), len(g.v))
	}
	if tick == nil {
		tick = func(int) error { return nil }
	}
	copy(g.v, in.V)
	g.scale, g.t = in.Scale, in.T
	loss, err := g.walk(in.Order, tick)
	if err != nil {
		return nil, err
	}
	r.res = SGDShardResult{V: g.v, Scale: g.scale, T: g.t, Loss: loss}
	return &r.res, nil
}

// release gives the replica's worker back.
func (r *SGDReplica) release() {
	for k := range r.g.lanes {
		if wk := r.g.lanes[k].wk; wk != nil {
			wk.sgdV = nil
		}
	}
}

// ErrMix is returned by SGDMixer.Finish unless every shard was added.
var ErrMix = errors.New("crf: mixing an incomplete epoch")

// SGDMixer reduces the shards' results of one epoch into the next
// epoch's weights, in shard order, so the bytes depend on the number of
// shards and never on which worker ran which shard or when it finished:
//
//	V'[j] = (Σ_s Scale_s·V_s[j]) / S     summed in shard order; Scale' = 1
//	loss  = Σ_s Loss_s                   in shard order
//
// With one shard its V and Scale are taken as they are (serial SGD).
type SGDMixer struct {
	want, shards int
	sum          []float64 // the running sum of Scale_s·V_s (one shard: its V)
	scale, loss  float64
}

// NewSGDMixer returns a mixer of shards results of n weights.
func NewSGDMixer(shards, n int) *SGDMixer {
	return &SGDMixer{want: shards, sum: make([]float64, n)}
}

// Reset starts an epoch.
func (x *SGDMixer) Reset() {
	clear(x.sum)
	x.shards, x.scale, x.loss = 0, 0, 0
}

// Add folds the next shard's result into the sums: call it for shards
// 0, 1, … in order.
func (x *SGDMixer) Add(r *SGDShardResult) {
	x.shards++
	x.loss += r.Loss
	if x.want == 1 {
		copy(x.sum, r.V)
		x.scale = r.Scale
		return
	}
	sc := r.Scale
	for j, v := range r.V {
		x.sum[j] += sc * v
	}
}

// Finish writes the mixed weights into in.V and in.Scale, the next
// epoch's broadcast, and returns the epoch's summed loss.
func (x *SGDMixer) Finish(in *SGDShardInput) (float64, error) {
	if x.shards != x.want {
		return 0, fmt.Errorf("%w: %d shard results of %d", ErrMix, x.shards, x.want)
	}
	if x.want == 1 {
		copy(in.V, x.sum)
		in.Scale = x.scale
		return x.loss, nil
	}
	s := float64(x.want)
	for j, v := range x.sum {
		in.V[j] = v / s
	}
	in.Scale = 1
	return x.loss, nil
}

// sgdMixing is the in-process driver's state: the shards, their
// shuffling sources and clocks, the broadcast input (whose V is the run's
// own walk's: serial SGD's weights, evaluation and checkpoints then
// serve), the replicas and the mixer.
type sgdMixing struct {
	g       *sgd
	shards  [][]int // each shard's sentences, shuffled in place every epoch
	srcs    []*rand.PCG
	rngs    []*rand.Rand
	clocks  []float64
	in      SGDShardInput
	workers []*SGDReplica
	slots   []SGDShardInput // the input of the shard each replica runs
	results []*SGDShardResult
	mixer   *SGDMixer
	// remote, when the context has an Executor, runs the shards instead
	// of workers; inputs then holds each shard's input of an epoch.
	ctx    context.Context
	remote SGDRunner
	inputs []SGDShardInput
	// tick is the epoch's progress callback; done the sentences of the
	// epoch's finished shards, seen[k] those replica k reported so far.
	mu   sync.Mutex
	tick func(done int) error
	done int
	seen []int
}

// newSGDMixing prepares g's run for parameter mixing over g.s.shards
// shards (one or more) on p, on ctx's executor when it has one.
func newSGDMixing(ctx context.Context, g *sgd, p *learn.Problem) (*sgdMixing, error) {
	n := max(g.s.shards, 1)
	if n > len(g.order) {
		return nil, fmt.Errorf("%s: %w", g.s.name, learn.TooManyShards(n, len(g.order)))
	}
	x := &sgdMixing{g: g, shards: online.Deal(g.obj.sents, n), clocks: make([]float64, n),
		mixer: NewSGDMixer(n, len(g.v)), in: SGDShardInput{V: g.v}}
	for s := range n {
		src := rand.NewPCG(p.Seed, SGDShuffleStream+uint64(s))
		x.srcs, x.rngs = append(x.srcs, src), append(x.rngs, rand.New(src))
	}
	if e := executorFrom(ctx); e != nil {
		r, err := e.StartSGD(ctx, newJob(g.s, g.obj, p, x.shards))
		if err != nil {
			return nil, err
		}
		x.ctx, x.remote, x.inputs = ctx, r, make([]SGDShardInput, n)
		return x, nil
	}
	workers := min(len(g.obj.workers), n)
	for k := range workers {
		x.workers = append(x.workers, newSGDReplica(g.obj, g.s, g.obj.workers[k]))
	}
	x.slots, x.results = make([]SGDShardInput, workers), make([]*SGDShardResult, workers)
	x.seen = make([]int, workers)
	return x, nil
}

// release gives the replicas' workers back to the objective, or closes
// the executor's runner.
func (x *sgdMixing) release() error {
	for _, r := range x.workers {
		r.release()
	}
	if x.remote != nil {
		return x.remote.Close()
	}
	return nil
}

// epoch is one mixing epoch: shuffle each shard, run the shards in waves
// of one per replica, fold each wave's results in shard order, mix into
// the run's walk. It returns the shards' summed loss.
func (x *sgdMixing) epoch(tick func(done int) error) (float64, error) {
	for s, order := range x.shards {
		x.rngs[s].Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	x.in.Scale = x.g.scale
	x.tick, x.done = tick, 0
	x.mixer.Reset()
	if x.remote != nil {
		return x.remoteEpoch(tick)
	}
	for lo := 0; lo < len(x.shards); lo += len(x.workers) {
		hi := min(lo+len(x.workers), len(x.shards))
		if err := x.wave(lo, hi); err != nil {
			return 0, err
		}
		for s := lo; s < hi; s++ {
			r := x.results[s-lo]
			x.mixer.Add(r)
			x.clocks[s] = r.T
			x.done += len(x.shards[s])
		}
		x.mu.Lock()
		clear(x.seen)
		x.mu.Unlock()
	}
	loss, err := x.mixer.Finish(&x.in)
	x.g.scale = x.in.Scale
	return loss, err
}

// remoteEpoch runs the epoch's shards on the executor and mixes their
// results as they come, in shard order.
func (x *sgdMixing) remoteEpoch(tick func(done int) error) (float64, error) {
	for s, order := range x.shards {
		x.inputs[s] = SGDShardInput{V: x.in.V, Scale: x.in.Scale, T: x.clocks[s], Order: order}
	}
	next := 0
	err := x.remote.Epoch(x.ctx, x.g.epochs, x.inputs, tick, func(r *SGDShardResult) {
		x.mixer.Add(r)
		x.clocks[next] = r.T
		next++
	})
	if err != nil {
		return 0, err
	}
	loss, err := x.mixer.Finish(&x.in)
	x.g.scale = x.in.Scale
	return loss, err
}

// wave runs shards lo..hi-1 on replicas 0..hi-lo-1, side by side when
// there are several.
func (x *sgdMixing) wave(lo, hi int) error {
	return online.Wave(hi-lo, func(k int) error {
		x.slots[k] = SGDShardInput{V: x.in.V, Scale: x.in.Scale, T: x.clocks[lo+k], Order: x.shards[lo+k]}
		var err error
		x.results[k], err = x.workers[k].Epoch(&x.slots[k], func(done int) error { return x.progress(k, done) })
		return err
	})
}

// progress records that replica k has done done sentences of its shard
// and reports the epoch's total.
func (x *sgdMixing) progress(k, done int) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.seen[k] = done
	total := x.done
	for _, n := range x.seen {
		total += n
	}
	return x.tick(total)
}

// save adds the shards' orders, clocks and sources to st.
func (x *sgdMixing) save(st *state) error {
	st.Shards, st.Order, st.ShardT = len(x.shards), nil, x.clocks
	for s, order := range x.shards {
		st.Order = append(st.Order, order...)
		b, err := x.srcs[s].MarshalBinary()
		if err != nil {
			return err
		}
		st.ShardRNG = append(st.ShardRNG, b)
	}
	return nil
}

// restore loads what save added, checking that each shard's order holds
// the shard's sentences.
func (x *sgdMixing) restore(st *state) error {
	if len(st.ShardT) != len(x.shards) || len(st.ShardRNG) != len(x.shards) {
		return fmt.Errorf("crf: the checkpoint is damaged: %d shard clocks and %d sources for %d shards", len(st.ShardT), len(st.ShardRNG), len(x.shards))
	}
	rest := st.Order
	for s, order := range x.shards {
		if !sameSet(rest[:len(order)], order) {
			return fmt.Errorf("crf: the checkpoint is damaged: shard %d's order is not its sentences", s)
		}
		if err := x.srcs[s].UnmarshalBinary(st.ShardRNG[s]); err != nil {
			return fmt.Errorf("crf: checkpoint: shard %d: %w", s, err)
		}
		copy(order, rest[:len(order)])
		rest = rest[len(order):]
	}
	copy(x.clocks, st.ShardT)
	return nil
}

// sameSet reports whether a is a permutation of b, whose entries are
// distinct.
func sameSet(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	in := make(map[int]bool, len(b))
	for _, s := range b {
		in[s] = true
	}
	for _, s := range a {
		if !in[s] {
			return false
		}
		delete(in, s)
	}
	return true
}
