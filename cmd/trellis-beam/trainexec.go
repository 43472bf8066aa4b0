package main

// This file holds the driver's side of `trellis-beam train`: an
// online.Executor whose shard work is one Beam pipeline run per epoch.
// Start writes the job and each shard's encoded sentences into the run's
// work folder once; every epoch the driver writes the broadcast input,
// runs the pipeline (retrying it, bounded, when it fails: prism retries
// no bundle), and reads the shards' results back in shard order for the
// Mixer. Everything else — epochs, shuffles, dev scoring, best epoch,
// checkpoints — is online's own loop, unchanged.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/learn/online"
)

// maxAttempts bounds the runs of one epoch's pipeline: a failed bundle
// fails the whole pipeline on prism, so the command runs it again; a
// cluster runner retries bundles itself first.
const maxAttempts = 3

// beamExecutor runs a mixed run's shards on Beam. Its fields are set by
// the command and read only.
type beamExecutor struct {
	work    string // the run's work folder: beamDir(work) holds the files
	learner string // the learner's type, as online.Train names it
	config  []byte // its settings, JSON
	workers int    // work elements the shards are dealt into
	log     zerolog.Logger
}

var (
	_ online.Executor    = (*beamExecutor)(nil)
	_ online.ShardRunner = (*beamShards)(nil)
)

// Start implements online.Executor: it writes the job and the shards'
// data, each shard to a file of its own.
func (e *beamExecutor) Start(_ context.Context, job *online.Job) (online.ShardRunner, error) {
	if job.Name != e.learner {
		return nil, fmt.Errorf("trellis-beam trains %s, not %s", e.learner, job.Name)
	}
	dir := beamDir(e.work)
	// A resumed run finds the interrupted one's files: start afresh.
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	t0 := time.Now()
	p := job.Problem
	for s, sentences := range job.Shards {
		if err := writeShardData(shardDataPath(dir, s), p.Train, sentences); err != nil {
			return nil, err
		}
	}
	jf := &jobFile{Learner: e.learner, Config: e.config, Model: job.Model, NumLabels: p.NumLabels,
		Transitions: p.Transitions, Constraints: p.Constraints, Shards: len(job.Shards)}
	if err := writeJob(filepath.Join(dir, jobFileName), jf); err != nil {
		return nil, err
	}
	e.log.Info().Int("shards", len(job.Shards)).Int("workers", e.workers).Str("dir", dir).
		Float64("seconds", time.Since(t0).Seconds()).Msg("wrote the job and the shards' data")
	return &beamShards{e: e, dir: dir, weights: len(job.Model.W), state: len(job.Rule.State())}, nil
}

// beamShards is a run's shard work on Beam.
type beamShards struct {
	e              *beamExecutor
	dir            string
	weights, state int // the lengths of a result's W and State
}

// Epoch implements online.ShardRunner.
func (b *beamShards) Epoch(ctx context.Context, epoch int, in *online.ShardInput, orders [][]int, tick func(n int) error, add func(r *online.ShardResult)) error {
	t0 := time.Now()
	ed := epochDir(b.dir, epoch)
	if err := os.MkdirAll(ed, 0o755); err != nil {
		return err
	}
	if err := writeBroadcast(inputPath(ed), in, orders); err != nil {
		return err
	}
	fn := &shardWorkFn{Job: filepath.Join(b.dir, jobFileName), Input: inputPath(ed), Dir: ed, Epoch: epoch, Workers: b.e.workers}
	t1 := time.Now()
	if err := b.run(ctx, fn); err != nil {
		return err
	}
	t2 := time.Now()
	sentences := 0
	for s := range orders {
		r, err := readResult(resultPath(ed, s), b.weights, b.state)
		if err != nil {
			return fmt.Errorf("epoch %d, shard %d: %w", epoch, s, err)
		}
		add(r)
		sentences += len(orders[s])
	}
	b.e.log.Info().Int("epoch", epoch).Float64("broadcast_seconds", t1.Sub(t0).Seconds()).Float64("pipeline_seconds", t2.Sub(t1).Seconds()).
		Float64("mix_seconds", time.Since(t2).Seconds()).Msg("shards trained on Beam")
	if err := tick(sentences); err != nil {
		return err
	}
	return os.RemoveAll(ed)
}

// run runs fn's epoch as a pipeline, again when it fails, up to
// maxAttempts times. A shard's result is a function of the epoch's
// files alone, so a rerun writes the same bytes.
func (b *beamShards) run(ctx context.Context, fn *shardWorkFn) error {
	for attempt := 1; ; attempt++ {
		err := beamx.Run(ctx, epochPipeline(fn, b.e.workers))
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if attempt == maxAttempts {
			return fmt.Errorf("epoch %d: the pipeline failed %d times, the last with: %w", fn.Epoch, attempt, err)
		}
		b.e.log.Warn().Err(err).Int("epoch", fn.Epoch).Int("attempt", attempt).Msg("the epoch's pipeline failed; running it again")
	}
}

// Close implements online.ShardRunner: the files go, and this process's
// worker cache with them (prism's loopback workers run in it).
func (b *beamShards) Close() error {
	err := forgetWorker(filepath.Join(b.dir, jobFileName))
	return errors.Join(err, os.RemoveAll(b.dir))
}

// epochPipeline is one epoch's pipeline: the work elements 0..workers-1
// (element k trains shards k, k+workers, …), reshuffled so that the
// runner may spread them over its workers, each trained by fn.
func epochPipeline(fn *shardWorkFn, workers int) *beam.Pipeline {
	p, s := beam.NewPipelineWithRoot()
	groups := make([]int, workers)
	for k := range groups {
		groups[k] = k
	}
	col := beam.Reshuffle(s.Scope("spread"), beam.CreateList(s.Scope("groups"), groups))
	beam.ParDo0(s.Scope("train"), fn, col)
	return p
}
