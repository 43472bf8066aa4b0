// executor.go holds the seam through which the mixing driver (ipm.go)
// runs an epoch's shard work: an Executor, chosen by the caller through
// the context (WithExecutor), starts a ShardRunner for a run; the driver
// hands it each epoch's broadcast input and the shards' orders and gets
// the results back in shard order. Without one, the shards train in
// process on replicas (localShards, the default); cmd/trellis-beam's
// executor runs them as Beam pipelines. Everything else of a run — the
// epochs on learn.Loop, the shuffles, the Mixer, dev scoring, the best
// epoch, checkpoints — stays with the driver, so an executor changes
// where the shards train and never the bytes.

package online

import (
	"context"
	"sync"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// Executor starts the shard work of a mixed training run.
type Executor interface {
	// Start is called once per mixed run, before its first epoch (and
	// before a checkpoint is restored), with what the shards train on.
	// The ShardRunner it returns serves the run's epochs and is closed
	// when the run ends, whether it succeeded or not.
	Start(ctx context.Context, job *Job) (ShardRunner, error)
}

// Job is what a mixed run's shards train on. Its fields are the driver's
// own and read only: a remote executor serialises what its workers need
// of them (the model's structure, the shards' sentences of Problem.Train,
// the labels, transitions and constraints) and rebuilds the rule from the
// learner's settings (Mixable).
type Job struct {
	// Name is the learner's name, as in Train.
	Name string
	// Model is the model being trained: its structure (features, labels,
	// trigrams, pairs); W holds the starting weights.
	Model *linear.Model
	// Problem is the training problem; a shard's sentences are indices
	// into Problem.Train.
	Problem *learn.Problem
	// Rule is the run's rule, started.
	Rule Rule
	// Shards are Deal's shards in deal order (a copy: the driver shuffles
	// its own in place every epoch).
	Shards [][]int
}

// ShardRunner trains the shards of one epoch.
type ShardRunner interface {
	// Epoch trains shard s, for every s, one epoch from in with
	// in.Order = orders[s], and calls add(r) with the shards' results in
	// shard order (0, 1, …), each r valid until add returns. in is read
	// only. epoch is the loop's epoch (1-based). tick, when called, adds
	// the sentences done since its last call to the epoch's progress; an
	// error from it (the run was cancelled) stops the epoch.
	Epoch(ctx context.Context, epoch int, in *ShardInput, orders [][]int, tick func(n int) error, add func(r *ShardResult)) error
	// Close releases what the runner holds (workers' files, replicas).
	Close() error
}

// Mixable is implemented by the online learners (perceptron, PA, AROW),
// so that a remote executor's worker can rebuild a run's rule from the
// learner's type and settings.
type Mixable interface {
	learn.Learner
	// Rule returns a new rule with the learner's settings, not started.
	Rule() Rule
	// OnlineConfig returns the learner's shared online settings (epochs,
	// shards, mix…).
	OnlineConfig() *Config
}

// executorKey is the context key of WithExecutor.
type executorKey struct{}

// WithExecutor returns ctx with e as the executor of every mixed online
// training run under it. The executor travels in the context rather than
// in learn.Problem because it is the caller's choice of where the work
// runs, like the context's deadline, not part of what is learned: the
// runs between (framework/run, the learner registry) pass it on unseen.
func WithExecutor(ctx context.Context, e Executor) context.Context {
	return context.WithValue(ctx, executorKey{}, e)
}

// executorFrom returns ctx's executor, or the in-process one.
func executorFrom(ctx context.Context) Executor {
	if e, ok := ctx.Value(executorKey{}).(Executor); ok && e != nil {
		return e
	}
	return localExecutor{}
}

// localExecutor trains the shards in process, on up to Problem.Threads
// replicas at a time.
type localExecutor struct{}

var (
	_ Executor    = localExecutor{}
	_ ShardRunner = (*localShards)(nil)
)

// Start makes up to Problem.Threads replicas: the first trains with the
// run's rule, the others with forks of it; a rule with state that cannot
// fork trains on one.
func (localExecutor) Start(_ context.Context, job *Job) (ShardRunner, error) {
	workers := min(max(job.Problem.Threads, 1), len(job.Shards))
	rule := job.Rule
	f, canFork := rule.(Forker)
	if rule.State() != nil && !canFork {
		workers = 1
	}
	x := &localShards{}
	for k := range workers {
		rk := rule
		if k > 0 && canFork {
			rk = f.Fork()
		}
		x.replicas = append(x.replicas, NewReplica(job.Model, job.Problem, rk))
		x.ticks = append(x.ticks, x.progress)
	}
	x.slots = make([]ShardInput, workers)
	x.results = make([]*ShardResult, workers)
	return x, nil
}

// localShards trains the shards on replicas in waves of one per replica,
// folding each wave's results in shard order.
type localShards struct {
	replicas []*Replica
	slots    []ShardInput // the input of the shard each replica runs
	results  []*ShardResult
	// tick is the epoch's progress callback; ticks holds one wrapper per
	// replica (made once) that adds the sentences done under mu.
	tick  func(n int) error
	ticks []func(n int) error
	mu    sync.Mutex
}

// progress passes n sentences on to the epoch's tick.
func (x *localShards) progress(n int) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.tick(n)
}

// Epoch implements ShardRunner.
func (x *localShards) Epoch(_ context.Context, _ int, in *ShardInput, orders [][]int, tick func(n int) error, add func(r *ShardResult)) error {
	x.tick = tick
	for lo := 0; lo < len(orders); lo += len(x.replicas) {
		hi := min(lo+len(x.replicas), len(orders))
		if err := x.wave(in, orders[lo:hi]); err != nil {
			return err
		}
		for k := range hi - lo {
			add(x.results[k])
		}
	}
	return nil
}

// wave trains the shards of orders on replicas 0..len(orders)-1, in
// parallel when there are several.
func (x *localShards) wave(in *ShardInput, orders [][]int) error {
	return Wave(len(orders), func(k int) error {
		x.slots[k] = *in
		x.slots[k].Order = orders[k]
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

// Close implements ShardRunner.
func (x *localShards) Close() error { return nil }
