// ipm.go is the driver of iterative parameter mixing
// (McDonald, Hall and Mann 2010, "Distributed training strategies for the
// structured perceptron"): the training sentences are dealt
// into S fixed shards once (Deal); every epoch each shard trains one
// epoch from the mixed state (Replica.Epoch),
// in process up to Problem.Threads at a time or wherever the context's
// Executor runs them (executor.go), and the results are mixed in shard
// order (Mixer). The epochs run on learn.Loop like the serial learner's,
// with the same dev scoring, best epoch, checkpoints and progress.

package online

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/trellis-nlp/trellis/framework/learn"
)

// mixing is the driver's state for a run: the shards, their shuffling
// sources, the broadcast input (whose W and U are the run's Trainer's
// own: the serial learner's averaging and checkpoints then serve), the
// runner that trains the shards (executor.go) and the mixer.
type mixing struct {
	r      *run
	ctx    context.Context // the run's, for the runner
	shards [][]int         // each shard's sentences, shuffled in place every epoch
	srcs   []*rand.PCG
	rngs   []*rand.Rand
	// in is the mixed state every shard starts from; State is a copy of
	// its own (a replica may share the run's rule, and so its state).
	in     ShardInput
	runner ShardRunner
	mixer  *Mixer
}

// newMixing prepares r for iterative parameter mixing with c's shards
// (at least one) and mix, rule being the run's started rule, and starts
// ctx's executor (the in-process one by default) on the shards.
func newMixing(ctx context.Context, r *run, c *Config, rule Rule) (*mixing, error) {
	n := max(c.Shards, 1)
	if n > len(r.order) {
		return nil, fmt.Errorf("%s: %w", r.name, learn.TooManyShards(n, len(r.order)))
	}
	mix, ok := ParseMix(c.Mix)
	if !ok {
		return nil, fmt.Errorf("%s: unknown mix %q (uniform or mistakes)", r.name, c.Mix)
	}
	x := &mixing{r: r, ctx: ctx, shards: Deal(r.order, n), mixer: NewMixer(mix, n, len(r.tr.w), len(rule.State()))}
	for s := range n {
		src := rand.NewPCG(r.p.Seed, shuffleStream+uint64(s))
		x.srcs, x.rngs = append(x.srcs, src), append(x.rngs, rand.New(src))
	}
	x.in = ShardInput{W: r.tr.w, U: r.tr.u, C: r.tr.c}
	if st := rule.State(); st != nil {
		x.in.State = append([]float64(nil), st...)
	}
	job := &Job{Name: r.name, Model: r.m, Problem: r.p, Rule: rule, Shards: Deal(r.order, n)}
	runner, err := executorFrom(ctx).Start(ctx, job)
	if err != nil {
		return nil, fmt.Errorf("%s: starting the shards: %w", r.name, err)
	}
	x.runner = runner
	return x, nil
}

// epoch is one mixing epoch: shuffle each shard, let the runner train
// them, fold their results in shard order, mix. Its loss is the fraction
// of mislabelled tokens over all shards.
func (x *mixing) epoch(k int, tick func(done int) error) (float64, error) {
	r := x.r
	x.in.C = r.tr.c
	if r.shuffle {
		for s, order := range x.shards {
			x.rngs[s].Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
	}
	x.mixer.Reset()
	done := 0
	progress := func(n int) error {
		done += n
		return tick(done)
	}
	if err := x.runner.Epoch(x.ctx, k, &x.in, x.shards, progress, func(res *ShardResult) { x.mixer.Add(&x.in, res) }); err != nil {
		return 0, err
	}
	if err := x.mixer.Finish(&x.in); err != nil {
		return 0, err
	}
	r.tr.c = x.in.C
	r.tr.updates += x.mixer.Updates
	return float64(x.mixer.Errors) / float64(x.mixer.Tokens), nil
}
