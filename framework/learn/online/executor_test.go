package online_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/internal/learntest"
	"github.com/trellis-nlp/trellis/framework/learn/online"
)

// remoteExecutor stands for a distributed executor: it rebuilds one
// replica per shard from the Job alone, with a rule of the learner's
// settings (Mixable), each on a Problem holding only what decoding needs,
// trains the shards last to first and hands the results back in shard
// order.
type remoteExecutor struct {
	learner  online.Mixable
	started  int
	epochs   []int
	replicas []*online.Replica
}

func (e *remoteExecutor) Start(_ context.Context, job *online.Job) (online.ShardRunner, error) {
	e.started++
	p := job.Problem
	for range job.Shards {
		q := &learn.Problem{Train: p.Train, NumLabels: p.NumLabels, Transitions: p.Transitions, Constraints: p.Constraints}
		e.replicas = append(e.replicas, online.NewReplica(job.Model, q, e.learner.Rule()))
	}
	return e, nil
}

func (e *remoteExecutor) Epoch(_ context.Context, epoch int, in *online.ShardInput, orders [][]int, tick func(int) error, add func(*online.ShardResult)) error {
	e.epochs = append(e.epochs, epoch)
	results := make([]online.ShardResult, len(orders))
	for s := len(orders) - 1; s >= 0; s-- {
		shard := *in
		shard.Order = orders[s]
		r, err := e.replicas[s].Epoch(&shard, nil)
		if err != nil {
			return err
		}
		// A copy with slices of its own, as a result read from a file.
		results[s] = *r
		results[s].W, results[s].U, results[s].State = slices.Clone(r.W), slices.Clone(r.U), slices.Clone(r.State)
		if err := tick(len(orders[s])); err != nil {
			return err
		}
	}
	for s := range results {
		add(&results[s])
	}
	return nil
}

func (e *remoteExecutor) Close() error { return nil }

// TestExecutorSameBytes: a run whose shards train through an Executor of
// the context, on replicas rebuilt from the Job and in another order, is
// the in-process run to the bit, for every online learner.
func TestExecutorSameBytes(t *testing.T) {
	d := learntest.Synthetic(rand.New(rand.NewPCG(7, 8)), 90, 2, false)
	for _, mix := range []string{"uniform", "mistakes"} {
		for name, mk := range mixedLearners(t, 4, mix) {
			t.Run(name+"/"+mix, func(t *testing.T) {
				want, err := mk().Train(context.Background(), learntest.Problem(d, 2))
				if err != nil {
					t.Fatal(err)
				}
				l := mk()
				e := &remoteExecutor{learner: l.(online.Mixable)}
				got, err := l.Train(online.WithExecutor(context.Background(), e), learntest.Problem(d, 2))
				if err != nil {
					t.Fatal(err)
				}
				sameBits(t, "executor", got.Model.W, want.Model.W)
				if fmt.Sprint(got.Info) != fmt.Sprint(want.Info) {
					t.Errorf("info %v, want %v", got.Info, want.Info)
				}
				epochs := l.(online.Mixable).OnlineConfig().NumEpochs()
				if e.started != 1 || len(e.epochs) != epochs || e.epochs[0] != 1 || e.epochs[epochs-1] != epochs {
					t.Errorf("started %d times, epochs %v; want once and 1..%d", e.started, e.epochs, epochs)
				}
			})
		}
	}
}
