// executor.go holds the seam through which a CRF run's shard work runs
// elsewhere: an Executor, chosen by the caller through the context
// (WithExecutor), runs SGD mixing's shard epochs (StartSGD) or the
// sharded gradient's shards (StartGradient). Without one, the shards run
// in process (mixsgd.go's replicas, objective.Evaluate), the default;
// cmd/trellis-beam's executor runs them as Beam pipelines. The driver
// keeps everything else — the loop, the shuffles, the SGDMixer, the
// optimiser, the L2 term and the empirical counts (ShardSum), dev
// scoring, checkpoints — so an executor changes where the shards run and
// never the bytes. The worker's side is NewShardSGD and NewShardGradient:
// what a worker builds from the job's model, settings and its shard's
// sentences alone.

package crf

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// Executor starts the shard work of a CRF training run.
type Executor interface {
	// StartSGD is called once per mixed SGD run (shards ≥ 2), before its
	// first epoch and before a checkpoint is restored.
	StartSGD(ctx context.Context, job *Job) (SGDRunner, error)
	// StartGradient is called once per L-BFGS or OWL-QN run, before its
	// first evaluation.
	StartGradient(ctx context.Context, job *Job) (GradientRunner, error)
}

// Job is what a run's shards work on. Its fields are the driver's own
// and read only: a remote executor serialises what its workers need of
// them (the model's structure, the shards' sentences of Problem.Train,
// the labels, transitions and constraints) and rebuilds the learner from
// its type and settings (NewShardSGD, NewShardGradient).
type Job struct {
	// Name is the learner's form ("crf", "maxent", "memm").
	Name string
	// Model is the model being trained: its structure; W holds the
	// starting weights.
	Model *linear.Model
	// Problem is the training problem as the form sees it; a shard's
	// sentences are indices into Problem.Train.
	Problem *learn.Problem
	// Shards are the shards' sentences, in shard order (a copy).
	Shards [][]int
	// Sentences is the number of training sentences of the whole run (SGD's
	// λ = 2·c2/N is the whole problem's).
	Sentences int
}

// SGDRunner runs the shards' epochs of a mixed SGD run.
type SGDRunner interface {
	// Epoch runs shard s one SGD epoch from in[s], for every s, and calls
	// add(r) with the shards' results in shard order (0, 1, …), each r
	// valid until add returns. The in[s] share V and Scale (the
	// broadcast); their T and Order are the shard's. epoch is the loop's
	// (1-based); tick adds sentences done to the epoch's progress.
	Epoch(ctx context.Context, epoch int, in []SGDShardInput, tick func(done int) error, add func(r *SGDShardResult)) error
	// Close releases what the runner holds.
	Close() error
}

// GradientRunner computes the shards of the objective's evaluations.
type GradientRunner interface {
	// Evaluate computes every shard's loss and expected counts at x (as
	// Gradient.Shard) and calls add(k, loss, grad) for k = 0, 1, … in
	// order, grad valid until add returns. eval counts the run's
	// evaluations from 1.
	Evaluate(ctx context.Context, eval int, x []float64, add func(k int, loss float64, grad []float64) error) error
	// Close releases what the runner holds.
	Close() error
}

// executorKey is the context key of WithExecutor.
type executorKey struct{}

// WithExecutor returns ctx with e as the executor of every CRF run under
// it that has shard work to give away. Like online.WithExecutor it is the
// caller's choice of where the work runs, not part of what is learned.
func WithExecutor(ctx context.Context, e Executor) context.Context {
	return context.WithValue(ctx, executorKey{}, e)
}

// executorFrom returns ctx's executor, or nil: in process.
func executorFrom(ctx context.Context) Executor {
	e, _ := ctx.Value(executorKey{}).(Executor)
	return e
}

// newJob is the job of obj's run over shards.
func newJob(s settings, obj *objective, p *learn.Problem, shards [][]int) *Job {
	cp := make([][]int, len(shards))
	for k, sh := range shards {
		cp[k] = append([]int(nil), sh...)
	}
	return &Job{Name: s.name, Model: obj.m, Problem: p, Shards: cp, Sentences: len(obj.sents)}
}

// NewShardSGD returns an SGD replica for a worker that holds one shard:
// p is the job's problem (as the form sees it) with p.Train the shard's
// sentences alone (all complete), m the job's
// model and total the run's training sentences. Its epochs are the
// bytes of the in-process replica's on the same shard.
func (l *Learner) NewShardSGD(m *linear.Model, p *learn.Problem, total int) (*SGDReplica, error) {
	s := l.settings()
	sents, err := shardSentences(p)
	if err != nil {
		return nil, err
	}
	obj := newShardedObjective(m, p.Train, sents, l.form.objective(p), s.c2, layout{1, 1})
	r := newSGDReplica(obj, s, obj.workers[0])
	r.g.lambda = 2 * s.c2 / float64(total)
	return r, nil
}

// ShardGradient is one shard's part of the objective on a worker that
// holds only that shard's sentences.
type ShardGradient struct {
	o *objective
}

// NewShardGradient returns the gradient of the shard whose sentences are
// p.Train's (all complete, in the shard's order), m the job's model.
func (l *Learner) NewShardGradient(m *linear.Model, p *learn.Problem) (*ShardGradient, error) {
	s := l.settings()
	sents, err := shardSentences(p)
	if err != nil {
		return nil, err
	}
	return &ShardGradient{o: newShardedObjective(m, p.Train, sents, l.form.objective(p), s.c2, layout{1, 1})}, nil
}

// Compute writes the shard's expected feature counts at x into grad
// (both len(Model.W)) and returns its loss: Gradient.Shard's bits.
func (g *ShardGradient) Compute(x, grad []float64) float64 {
	o := g.o
	if o.hot != nil {
		o.hotW = o.hot.Gather(o.hotW, x)
	}
	return o.workers[0].shard(o, x, o.sents, grad)
}

// ErrShardData is returned (wrapped) by NewShardSGD and NewShardGradient
// for a shard's dataset that holds what the driver never sends.
var ErrShardData = errors.New("crf: not a shard's data")

// shardSentences is every sentence of a shard's dataset, which must all
// be complete (the driver sends only those).
func shardSentences(p *learn.Problem) ([]int, error) {
	n := p.Train.NumSentences()
	sents := make([]int, n)
	for k := range sents {
		if !learn.Complete(p.Train, k) {
			return nil, fmt.Errorf("%w: sentence %d is not fully labelled", ErrShardData, k)
		}
		sents[k] = k
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: no sentences", ErrShardData)
	}
	return sents, nil
}

// evaluator is the objective L-BFGS minimizes: obj.Evaluate in process,
// or, with an executor, the shards computed by its GradientRunner and
// added here in shard order with the L2 term and the empirical counts
// once (shardSum): Evaluate's arithmetic, so the same bits.
type evaluator struct {
	obj    *objective
	ctx    context.Context // the minimizer's: cancelled when a remote evaluation fails
	cancel context.CancelCauseFunc
	remote GradientRunner
	evals  int
	err    error // the first remote failure
}

// newEvaluator returns obj's evaluator, on ctx's executor when it has one.
func newEvaluator(ctx context.Context, obj *objective, s settings, p *learn.Problem) (*evaluator, error) {
	ev := &evaluator{obj: obj}
	ev.ctx, ev.cancel = context.WithCancelCause(ctx)
	e := executorFrom(ctx)
	if e == nil {
		return ev, nil
	}
	r, err := e.StartGradient(ctx, newJob(s, obj, p, obj.shards))
	if err != nil {
		ev.cancel(err)
		return nil, err
	}
	ev.remote = r
	return ev, nil
}

// evaluate returns the objective at x and writes its gradient into grad.
// A remote failure cancels the minimizer's context and returns NaN; close
// reports it.
func (ev *evaluator) evaluate(x, grad []float64) float64 {
	if ev.remote == nil {
		return ev.obj.Evaluate(x, grad)
	}
	if ev.err != nil {
		return math.NaN() // the minimizer stops at its next check of ctx
	}
	ev.evals++
	sum := shardSum{o: ev.obj, grad: grad}
	err := ev.remote.Evaluate(ev.ctx, ev.evals, x, func(k int, loss float64, g []float64) error {
		if k != sum.next || len(g) != len(grad) {
			return fmt.Errorf("%w: got shard %d (%d weights), want shard %d (%d weights)", ErrShardOrder, k, len(g), sum.next, len(grad))
		}
		sum.add(loss, g)
		return nil
	})
	if err == nil && sum.next != len(ev.obj.shards) {
		err = fmt.Errorf("%w: %d of %d shards added", ErrShardOrder, sum.next, len(ev.obj.shards))
	}
	if err != nil {
		ev.err = err
		ev.cancel(err)
		return math.NaN()
	}
	return sum.finish(x)
}

// close ends the evaluator after the minimizer returned err: the remote
// failure, if there was one, is the reason it stopped.
func (ev *evaluator) close(err error) error {
	if ev.err != nil {
		err = ev.err
	}
	ev.cancel(nil)
	if ev.remote != nil {
		err = errors.Join(err, ev.remote.Close())
	}
	return err
}
