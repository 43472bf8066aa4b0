package main

// This file holds the driver's side of `trellis-beam train`: an
// online.Executor and a crf.Executor whose shard work is one Beam
// pipeline run per round — an epoch of online or CRF SGD mixing, or one
// evaluation of the CRF objective for L-BFGS/OWL-QN (beamRun.round).
// Start writes the job and each shard's encoded sentences into the run's
// work folder once; every round the driver writes the broadcast input
// (the mixed state, or the point x), runs the pipeline (retrying it,
// bounded, when it fails: prism retries no bundle), and reads the
// shards' results back in shard order for the Mixer, SGDMixer or
// ShardSum. Everything else — epochs, shuffles, the optimiser, dev
// scoring, best epoch, checkpoints — is the learner's own loop,
// unchanged.

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

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/learn/crf"
	"github.com/trellis-nlp/trellis/framework/learn/online"
)

// maxAttempts bounds the runs of one epoch's pipeline: a failed bundle
// fails the whole pipeline on prism, so the command runs it again; a
// cluster runner retries bundles itself first.
const maxAttempts = 3

// beamExecutor runs a run's shard work on Beam: an online mixed run's
// epochs, CRF SGD mixing's epochs, or the CRF gradient's shards. Its
// fields but timing are set by the command and read only.
type beamExecutor struct {
	work    string // the run's work folder: beamDir(work) holds the files
	learner string // the learner's type, as online.Train names it
	config  []byte // its settings, JSON
	workers int    // work elements the shards are dealt into
	log     zerolog.Logger
	timing  roundTiming // per-run state: the rounds' time, logged at Close
}

var (
	_ online.Executor    = (*beamExecutor)(nil)
	_ crf.Executor       = (*beamExecutor)(nil)
	_ online.ShardRunner = (*onlineShards)(nil)
	_ crf.SGDRunner      = (*sgdShards)(nil)
	_ crf.GradientRunner = (*gradientShards)(nil)
)

// Start implements online.Executor.
func (e *beamExecutor) Start(_ context.Context, job *online.Job) (online.ShardRunner, error) {
	p := job.Problem
	r, err := e.start(&jobFile{Kind: onlineJob, Model: job.Model, NumLabels: p.NumLabels,
		Transitions: p.Transitions, Constraints: p.Constraints}, job.Name, p.Train, job.Shards)
	if err != nil {
		return nil, err
	}
	return &onlineShards{r, len(job.Model.W), len(job.Rule.State())}, nil
}

// StartSGD implements crf.Executor.
func (e *beamExecutor) StartSGD(_ context.Context, job *crf.Job) (crf.SGDRunner, error) {
	r, err := e.start(crfJobFile(sgdJob, job), job.Name, job.Problem.Train, job.Shards)
	if err != nil {
		return nil, err
	}
	return &sgdShards{r, len(job.Model.W)}, nil
}

// StartGradient implements crf.Executor.
func (e *beamExecutor) StartGradient(_ context.Context, job *crf.Job) (crf.GradientRunner, error) {
	r, err := e.start(crfJobFile(gradientJob, job), job.Name, job.Problem.Train, job.Shards)
	if err != nil {
		return nil, err
	}
	return &gradientShards{r, len(job.Model.W), make([]float64, len(job.Model.W))}, nil
}

// crfJobFile is the job file of a CRF job of kind.
func crfJobFile(kind jobKind, job *crf.Job) *jobFile {
	p := job.Problem
	return &jobFile{Kind: kind, Model: job.Model, NumLabels: p.NumLabels, Transitions: p.Transitions,
		Constraints: p.Constraints, Sentences: job.Sentences}
}

// start writes the job jf of learner name (the learner's settings and
// the shard count filled in here) and the shards' data, each shard to a
// file of its own.
func (e *beamExecutor) start(jf *jobFile, name string, train *feature.Dataset, shards [][]int) (*beamRun, error) {
	if name != e.learner {
		return nil, fmt.Errorf("trellis-beam trains %s, not %s", e.learner, name)
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
	for s, sentences := range shards {
		if err := writeShardData(shardDataPath(dir, s), train, sentences); err != nil {
			return nil, err
		}
	}
	jf.Learner, jf.Config, jf.Shards = e.learner, e.config, len(shards)
	if err := writeJob(filepath.Join(dir, jobFileName), jf); err != nil {
		return nil, err
	}
	e.log.Info().Str("kind", string(jf.Kind)).Int("shards", len(shards)).Int("workers", e.workers).Str("dir", dir).
		Float64("seconds", time.Since(t0).Seconds()).Msg("wrote the job and the shards' data")
	return &beamRun{e: e, dir: dir, shards: len(shards), kind: jf.Kind}, nil
}

// beamRun is a run's shard work on Beam: one pipeline run per round (an
// epoch, or an evaluation of the objective).
type beamRun struct {
	e      *beamExecutor
	dir    string
	shards int
	kind   jobKind
}

// round runs round n: write writes its broadcast file, one pipeline run
// has every shard's work done, and read reads the results back from the
// round's folder (resultPath), which then goes.
func (b *beamRun) round(ctx context.Context, n int, write func(path string) error, read func(dir string) error) error {
	t0 := time.Now()
	ed := epochDir(b.dir, n)
	if err := os.MkdirAll(ed, 0o755); err != nil {
		return err
	}
	if err := write(inputPath(ed)); err != nil {
		return err
	}
	fn := &shardWorkFn{Job: filepath.Join(b.dir, jobFileName), Input: inputPath(ed), Dir: ed, Epoch: n, Workers: b.e.workers}
	t1 := time.Now()
	if err := b.run(ctx, fn); err != nil {
		return err
	}
	t2 := time.Now()
	if err := read(ed); err != nil {
		return fmt.Errorf("%s %d: %w", b.kind.round(), n, err)
	}
	b.e.log.Info().Int(b.kind.round(), n).Float64("broadcast_seconds", t1.Sub(t0).Seconds()).Float64("pipeline_seconds", t2.Sub(t1).Seconds()).
		Float64("reduce_seconds", time.Since(t2).Seconds()).Msg("shards done on Beam")
	b.e.timing.add(t1.Sub(t0), t2.Sub(t1), time.Since(t2))
	return os.RemoveAll(ed)
}

// onlineShards is an online mixed run's shards.
type onlineShards struct {
	*beamRun
	weights, state int // the lengths of a result's W and State
}

// Epoch implements online.ShardRunner.
func (b *onlineShards) Epoch(ctx context.Context, epoch int, in *online.ShardInput, orders [][]int, tick func(n int) error, add func(r *online.ShardResult)) error {
	sentences := 0
	err := b.round(ctx, epoch, func(path string) error { return writeBroadcast(path, in, orders) }, func(ed string) error {
		for s := range orders {
			r, err := readResult(resultPath(ed, s), b.weights, b.state)
			if err != nil {
				return fmt.Errorf("shard %d: %w", s, err)
			}
			add(r)
			sentences += len(orders[s])
		}
		return nil
	})
	if err != nil {
		return err
	}
	return tick(sentences)
}

// sgdShards is a mixed CRF SGD run's shards.
type sgdShards struct {
	*beamRun
	weights int
}

// Epoch implements crf.SGDRunner.
func (b *sgdShards) Epoch(ctx context.Context, epoch int, in []crf.SGDShardInput, tick func(done int) error, add func(r *crf.SGDShardResult)) error {
	sentences := 0
	err := b.round(ctx, epoch, func(path string) error { return writeSGDBroadcast(path, in) }, func(ed string) error {
		for s := range in {
			r, err := readSGDResult(resultPath(ed, s), b.weights)
			if err != nil {
				return fmt.Errorf("shard %d: %w", s, err)
			}
			add(r)
			sentences += len(in[s].Order)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return tick(sentences)
}

// gradientShards is an L-BFGS or OWL-QN run's gradient shards.
type gradientShards struct {
	*beamRun
	weights int
	grad    []float64 // a shard's gradient as read, len(Model.W)
}

// Evaluate implements crf.GradientRunner.
func (b *gradientShards) Evaluate(ctx context.Context, eval int, x []float64, add func(k int, loss float64, grad []float64) error) error {
	return b.round(ctx, eval, func(path string) error { return writeFloats(path, x) }, func(ed string) error {
		for s := range b.shards {
			loss, err := readGradientResult(resultPath(ed, s), b.grad)
			if err != nil {
				return fmt.Errorf("shard %d: %w", s, err)
			}
			if err := add(s, loss, b.grad); err != nil {
				return err
			}
		}
		return nil
	})
}

// run runs fn's round as a pipeline, again when it fails, up to
// maxAttempts times. A shard's result is a function of the round's
// files alone, so a rerun writes the same bytes.
func (b *beamRun) run(ctx context.Context, fn *shardWorkFn) error {
	for attempt := 1; ; attempt++ {
		err := beamx.Run(ctx, epochPipeline(fn, b.e.workers))
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if attempt == maxAttempts {
			return fmt.Errorf("%s %d: the pipeline failed %d times, the last with: %w", b.kind.round(), fn.Epoch, attempt, err)
		}
		b.e.log.Warn().Err(err).Int(b.kind.round(), fn.Epoch).Int("attempt", attempt).Msgf("the %s's pipeline failed; running it again", b.kind.round())
	}
}

// Close implements the runners' Close: the files go, and this process's
// worker cache with them (prism's loopback workers run in it).
func (b *beamRun) Close() error {
	err := forgetWorker(filepath.Join(b.dir, jobFileName))
	b.e.timing.log(b.e.log)
	return errors.Join(err, os.RemoveAll(b.dir))
}

// epochPipeline is one round's pipeline: the work elements 0..workers-1
// (element k works on shards k, k+workers, …), reshuffled so that the
// runner may spread them over its workers, each worked by fn.
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

// roundTiming sums where a run's rounds spent their time, for the log
// line at the end (docs/results.md's overhead measurements).
type roundTiming struct {
	rounds                      int
	broadcast, pipeline, reduce time.Duration
}

func (t *roundTiming) add(b, p, r time.Duration) {
	t.rounds++
	t.broadcast, t.pipeline, t.reduce = t.broadcast+b, t.pipeline+p, t.reduce+r
}

// log reports the sums and starts them afresh.
func (t *roundTiming) log(log zerolog.Logger) {
	if t.rounds == 0 {
		return
	}
	n := float64(t.rounds)
	log.Info().Int("rounds", t.rounds).Float64("broadcast_seconds_per_round", t.broadcast.Seconds()/n).
		Float64("pipeline_seconds_per_round", t.pipeline.Seconds()/n).Float64("reduce_seconds_per_round", t.reduce.Seconds()/n).
		Msg("the run's rounds on Beam")
	*t = roundTiming{}
}
