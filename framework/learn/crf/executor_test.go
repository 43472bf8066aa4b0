package crf

// This file holds the tests of the executor seam (executor.go): a
// round-trip executor whose workers hold only their shard's sentences
// (a Dataset of their own), and get and give copies of the weights, as a
// remote one's do, trains mixed SGD and L-BFGS/OWL-QN to the in-process
// bytes; a failing worker stops the run with its error.

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/internal/learntest"
)

// roundTrip is an Executor whose shards run on workers built from the
// job's model, settings and their shard's sentences alone.
type roundTrip struct {
	l     *Learner
	fail  error // when set, every evaluation and epoch fails with it
	jobs  int
	evals int
}

var (
	_ Executor       = (*roundTrip)(nil)
	_ SGDRunner      = (*rtSGD)(nil)
	_ GradientRunner = (*rtGradient)(nil)
)

// shardProblem is the job's problem with only shard s's sentences.
func shardProblem(job *Job, s int) *learn.Problem {
	q := *job.Problem
	q.Train = job.Problem.Train.Subset(job.Shards[s])
	return &q
}

func (e *roundTrip) StartSGD(_ context.Context, job *Job) (SGDRunner, error) {
	e.jobs++
	r := &rtSGD{e: e}
	for s := range job.Shards {
		rep, err := e.l.NewShardSGD(job.Model, shardProblem(job, s), job.Sentences)
		if err != nil {
			return nil, err
		}
		local := map[int]int{}
		for k, g := range job.Shards[s] {
			local[g] = k
		}
		r.reps, r.local = append(r.reps, rep), append(r.local, local)
	}
	return r, nil
}

func (e *roundTrip) StartGradient(_ context.Context, job *Job) (GradientRunner, error) {
	e.jobs++
	r := &rtGradient{e: e}
	for s := range job.Shards {
		g, err := e.l.NewShardGradient(job.Model, shardProblem(job, s))
		if err != nil {
			return nil, err
		}
		r.shards = append(r.shards, g)
	}
	return r, nil
}

// rtSGD runs the shards in reverse order and adds them in shard order.
type rtSGD struct {
	e     *roundTrip
	reps  []*SGDReplica
	local []map[int]int // a shard's sentence (in the full Dataset) → its index in the shard's
}

func (r *rtSGD) Epoch(_ context.Context, _ int, in []SGDShardInput, _ func(int) error, add func(*SGDShardResult)) error {
	if r.e.fail != nil {
		return r.e.fail
	}
	out := make([]SGDShardResult, len(in))
	for s := len(in) - 1; s >= 0; s-- {
		shard := in[s]
		shard.V = append([]float64(nil), in[s].V...)
		shard.Order = nil
		for _, g := range in[s].Order {
			shard.Order = append(shard.Order, r.local[s][g])
		}
		res, err := r.reps[s].Epoch(&shard, nil)
		if err != nil {
			return err
		}
		out[s] = *res
		out[s].V = append([]float64(nil), res.V...)
	}
	for s := range out {
		add(&out[s])
	}
	return nil
}

func (r *rtSGD) Close() error { return nil }

type rtGradient struct {
	e      *roundTrip
	shards []*ShardGradient
}

func (r *rtGradient) Evaluate(_ context.Context, _ int, x []float64, add func(int, float64, []float64) error) error {
	if r.e.fail != nil {
		return r.e.fail
	}
	r.e.evals++
	for k, g := range r.shards {
		grad := make([]float64, len(x))
		loss := g.Compute(append([]float64(nil), x...), grad)
		if err := add(k, loss, grad); err != nil {
			return err
		}
	}
	return nil
}

func (r *rtGradient) Close() error { return nil }

// TestExecutorSameBits: mixed SGD, L-BFGS and OWL-QN trained through the
// round-trip executor give the in-process weights bit for bit.
func TestExecutorSameBits(t *testing.T) {
	d := learntest.Synthetic(rand.New(rand.NewPCG(51, 52)), 90, 1, false)
	c1 := 0.2
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"sgd", Config{Training: Training{Algorithm: "sgd", MaxIterations: 3, Shards: 3}, Speedups: Speedups{BatchSize: 2}}},
		{"lbfgs", Config{Training: Training{MaxIterations: 6, Shards: 3}}},
		{"owlqn", Config{Training: Training{MaxIterations: 6, Shards: 2, C1: &c1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &Learner{cfg: tc.cfg}
			want, err := l.Train(context.Background(), learntest.Problem(d, 2))
			if err != nil {
				t.Fatal(err)
			}
			e := &roundTrip{l: l}
			got, err := l.Train(WithExecutor(context.Background(), e), learntest.Problem(d, 2))
			if err != nil {
				t.Fatal(err)
			}
			if e.jobs != 1 || tc.name != "sgd" && e.evals == 0 {
				t.Fatalf("the executor started %d jobs and ran %d evaluations", e.jobs, e.evals)
			}
			sameBits(t, tc.name+" through the executor", got.Model.W, want.Model.W)
		})
	}
}

// TestExecutorFailure: a failing executor stops the run with its error.
func TestExecutorFailure(t *testing.T) {
	d := learntest.Synthetic(rand.New(rand.NewPCG(53, 54)), 40, 1, false)
	boom := errors.New("a worker died")
	for _, cfg := range []Config{
		{Training: Training{Algorithm: "sgd", MaxIterations: 3, Shards: 2}},
		{Training: Training{MaxIterations: 3, Shards: 2}},
	} {
		l := &Learner{cfg: cfg}
		_, err := l.Train(WithExecutor(context.Background(), &roundTrip{l: l, fail: boom}), learntest.Problem(d, 1))
		if !errors.Is(err, boom) {
			t.Errorf("%s: %v, want the worker's error", cfg.Algorithm, err)
		}
	}
}
