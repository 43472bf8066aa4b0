// ipm.go is the in-process driver of iterative parameter mixing
// (McDonald, Hall and Mann 2010, "Distributed training strategies for the
// structured perceptron"): the training sentences are dealt
// into S fixed shards once (Deal); every epoch each shard trains one
// epoch from the mixed state on a replica of its own (Replica.Epoch),
// up to Problem.Threads at a time, and the results are mixed in shard
// order (Mixer). The epochs run on learn.Loop like the serial learner's,
// with the same dev scoring, best epoch, checkpoints and progress.

package online

import (
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/trellis-nlp/trellis/framework/learn"
)

// mixing is the driver's state for a run: the shards, their shuffling
// sources, the broadcast input (whose W and U are the run's Trainer's
// own: the serial learner's averaging and checkpoints then serve), the
// replicas and the mixer.
type mixing struct {
	r      *run
	shards [][]int // each shard's sentences, shuffled in place every epoch
	srcs   []*rand.PCG
	rngs   []*rand.Rand
	// in is the mixed state every shard starts from; State is a copy of
	// its own (a replica may share the run's rule, and so its state).
	in       ShardInput
	replicas []*Replica
	slots    []ShardInput // the input of the shard each replica runs
	results  []*ShardResult
	mixer    *Mixer
	// tick is the epoch's progress callback, ticks one wrapper per
	// replica (made once) that adds the sentences done under mu.
	tick  func(done int) error
	ticks []func(n int) error
	mu    sync.Mutex
	done  int
}

// newMixing prepares r for iterative parameter mixing with c's shards
// (at least one) and mix, rule being the run's started rule.
func newMixing(r *run, c *Config, rule Rule) (*mixing, error) {
	n := max(c.Shards, 1)
	if n > len(r.order) {
		return nil, fmt.Errorf("%s: %w", r.name, learn.TooManyShards(n, len(r.order)))
	}
	mix, ok := ParseMix(c.Mix)
	if !ok {
		return nil, fmt.Errorf("%s: unknown mix %q (uniform or mistakes)", r.name, c.Mix)
	}
	x := &mixing{r: r, shards: Deal(r.order, n), mixer: NewMixer(mix, n, len(r.tr.w), len(rule.State()))}
	for s := range n {
		src := rand.NewPCG(r.p.Seed, shuffleStream+uint64(s))
		x.srcs, x.rngs = append(x.srcs, src), append(x.rngs, rand.New(src))
	}
	x.in = ShardInput{W: r.tr.w, U: r.tr.u, C: r.tr.c}
	if st := rule.State(); st != nil {
		x.in.State = append([]float64(nil), st...)
	}
	x.startReplicas(rule, min(max(r.p.Threads, 1), n))
	return x, nil
}

// startReplicas makes up to workers replicas: the first trains with the
// run's rule, the others with forks of it; a rule with state that cannot
// fork trains on one.
func (x *mixing) startReplicas(rule Rule, workers int) {
	f, canFork := rule.(Forker)
	if rule.State() != nil && !canFork {
		workers = 1
	}
	for k := range workers {
		rk := rule
		if k > 0 && canFork {
			rk = f.Fork()
		}
		x.replicas = append(x.replicas, NewReplica(x.r.m, x.r.p, rk))
		x.ticks = append(x.ticks, x.progress)
	}
	x.slots = make([]ShardInput, workers)
	x.results = make([]*ShardResult, workers)
}

// progress adds n sentences to the epoch's count and reports it.
func (x *mixing) progress(n int) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.done += n
	return x.tick(x.done)
}

// epoch is one mixing epoch: shuffle each shard, train the shards in
// waves of one per replica, fold each wave's results in shard order, mix.
// Its loss is the fraction of mislabelled tokens over all shards.
func (x *mixing) epoch(tick func(done int) error) (float64, error) {
	r := x.r
	x.in.C = r.tr.c
	if r.shuffle {
		for s, order := range x.shards {
			x.rngs[s].Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
	}
	x.tick, x.done = tick, 0
	x.mixer.Reset()
	for lo := 0; lo < len(x.shards); lo += len(x.replicas) {
		hi := min(lo+len(x.replicas), len(x.shards))
		if err := x.wave(lo, hi); err != nil {
			return 0, err
		}
		for s := lo; s < hi; s++ {
			x.mixer.Add(&x.in, x.results[s-lo])
		}
	}
	if err := x.mixer.Finish(&x.in); err != nil {
		return 0, err
	}
	r.tr.c = x.in.C
	r.tr.updates += x.mixer.Updates
	return float64(x.mixer.Errors) / float64(x.mixer.Tokens), nil
}

// wave trains shards lo..hi-1 on replicas 0..hi-lo-1, in parallel when
// there are several.
func (x *mixing) wave(lo, hi int) error {
	return Wave(hi-lo, func(k int) error {
		x.slots[k] = x.in
		x.slots[k].Order = x.shards[lo+k]
		var err error
		x.results[k], err = x.replicas[k].Epoch(&x.slots[k], x.ticks[k])
		return err
	})
}

// Wave runs run(0) … run(n−1), side by side when n > 1, and returns the
// error of the lowest k that failed: one wave of shards on n replicas
// (also CRF SGD's mixing driver's).
func Wave(n int, run func(k int) error) error {
	if n == 1 {
		return run(0)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for k := range n {
		wg.Go(func() { errs[k] = run(k) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
