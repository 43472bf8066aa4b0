package main

// This file holds the workers' side of `trellis-beam train`: the DoFn
// that does shards' work (shardWorkFn) and what a worker process keeps
// between rounds (worker): the job, and the encoded data and the replica
// (an online one, a CRF SGD one, or a CRF shard gradient, by the job's
// kind) of each shard it has worked on — only those.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/crf"
	"github.com/trellis-nlp/trellis/framework/learn/online"
)

func init() {
	beam.RegisterType(reflect.TypeOf((*shardWorkFn)(nil)).Elem())
	register.DoFn2x1[context.Context, int, error](&shardWorkFn{})
}

// envFailOnce is a test hook: "EPOCH:SHARD:MODE" makes the first attempt
// at that shard of that epoch fail after training, before its result is
// written — MODE "error" returns an error, "panic" panics — leaving a
// marker in the run's beam folder so that the retry succeeds; MODE
// "always" fails every attempt (the run stops, its checkpoints kept).
const envFailOnce = "TRELLIS_BEAM_TEST_FAIL_ONCE"

// shardWorkFn does the shards' work of a work element: element k does
// shards k, k+Workers, … of the round, each from the broadcast file to
// its result file. Its fields are paths the workers read and write.
type shardWorkFn struct {
	Job     string // the job file
	Input   string // the round's broadcast file
	Dir     string // the round's folder, where results go
	Epoch   int    // the round: an epoch, or an evaluation of the objective
	Workers int
}

// ProcessElement does element group's shards.
func (f *shardWorkFn) ProcessElement(_ context.Context, group int) error {
	w, err := workerFor(f.Job)
	if err != nil {
		return err
	}
	b, err := w.broadcast(f.Input)
	if err != nil {
		return err
	}
	for s := group; s < w.job.Shards; s += f.Workers {
		if err := w.work(s, b, f); err != nil {
			return fmt.Errorf("%s %d, shard %d: %w", w.job.Kind.round(), f.Epoch, s, err)
		}
	}
	return nil
}

// worker is what one process keeps of a job: the job file, the last
// broadcast it read, and its shards.
type worker struct {
	dir    string
	job    *jobFile
	mu     sync.Mutex
	bcPath string
	bc     any // *broadcast, *sgdBroadcast or []float64, by the job's kind
	shards map[int]*workerShard
}

// workerShard is a shard this process has worked on: its replica, and
// the index of each of its sentences (by their index in the full training
// Dataset) in its own Dataset. mu makes one round of it run at a time.
// One of rep, sgd and grad is set, by the job's kind.
type workerShard struct {
	mu    sync.Mutex
	data  *shardData // mapped: the worker's only copy of the shard
	rep   *online.Replica
	sgd   *crf.SGDReplica
	grad  *crf.ShardGradient
	buf   []float64 // grad's expected counts, len(Model.W)
	kind  jobKind
	local map[int]int
	order []int // the round's order in local indices
}

var (
	workersMu sync.Mutex
	workers   = map[string]*worker{} // by job file
)

// workerFor returns this process's worker for the job file at path,
// reading it the first time.
func workerFor(path string) (*worker, error) {
	workersMu.Lock()
	defer workersMu.Unlock()
	if w := workers[path]; w != nil {
		return w, nil
	}
	j, err := readJob(path)
	if err != nil {
		return nil, err
	}
	w := &worker{dir: filepath.Dir(path), job: j, shards: map[int]*workerShard{}}
	workers[path] = w
	return w, nil
}

// forgetWorker drops the worker of the job file at path and unmaps its
// shards' data; no epoch of it may be running.
func forgetWorker(path string) error {
	workersMu.Lock()
	defer workersMu.Unlock()
	w := workers[path]
	delete(workers, path)
	if w == nil {
		return nil
	}
	var errs []error
	for _, ws := range w.shards {
		errs = append(errs, ws.data.Close())
	}
	return errors.Join(errs...)
}

// broadcast returns the broadcast at path, read once per round.
func (w *worker) broadcast(path string) (any, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.bcPath == path {
		return w.bc, nil
	}
	var b any
	var err error
	switch w.job.Kind {
	case sgdJob:
		b, err = readSGDBroadcast(path)
	case gradientJob:
		b, err = readFloats(path)
	default:
		b, err = readBroadcast(path)
	}
	if err != nil {
		return nil, err
	}
	w.bcPath, w.bc = path, b
	return b, nil
}

// shard returns shard s, loading its data and building its replica the
// first time.
func (w *worker) shard(s int) (*workerShard, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if ws := w.shards[s]; ws != nil {
		return ws, nil
	}
	sd, err := readShardData(shardDataPath(w.dir, s))
	if err != nil {
		return nil, err
	}
	ws := &workerShard{data: sd, local: make(map[int]int, len(sd.Sentences)), kind: w.job.Kind}
	if err := ws.build(w.job); err != nil {
		sd.Close()
		return nil, err
	}
	for k, g := range sd.Sentences {
		ws.local[g] = k
	}
	w.shards[s] = ws
	return ws, nil
}

// build makes the shard's replica for job j from its learner's type
// and settings (through the learner registry) and the shard's data.
func (ws *workerShard) build(j *jobFile) error {
	_, learners := builtin.Registries()
	l, ok := learners.New(j.Learner)
	if !ok {
		return fmt.Errorf("no learner type %q", j.Learner)
	}
	if err := json.Unmarshal(j.Config, l.Config()); err != nil {
		return fmt.Errorf("the %s settings: %w", j.Learner, err)
	}
	p := &learn.Problem{Train: ws.data.Data, NumLabels: j.NumLabels, Transitions: j.Transitions, Constraints: j.Constraints}
	if j.Kind == onlineJob {
		m, ok := l.(online.Mixable)
		if !ok {
			return fmt.Errorf("%s is not an online learner", j.Learner)
		}
		ws.rep = online.NewReplica(j.Model, p, m.Rule())
		return nil
	}
	c, ok := l.(*crf.Learner)
	if !ok {
		return fmt.Errorf("%s is not a CRF learner", j.Learner)
	}
	var err error
	if j.Kind == sgdJob {
		ws.sgd, err = c.NewShardSGD(j.Model, p, j.Sentences)
		return err
	}
	ws.grad, err = c.NewShardGradient(j.Model, p)
	ws.buf = make([]float64, len(j.Model.W))
	return err
}

// work does shard s's part of the round from b and writes its result.
func (w *worker) work(s int, b any, f *shardWorkFn) error {
	ws, err := w.shard(s)
	if err != nil {
		return err
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	var write func(path string) error
	switch b := b.(type) {
	case *broadcast:
		write, err = ws.onlineEpoch(s, b)
	case *sgdBroadcast:
		write, err = ws.sgdEpoch(s, b)
	case []float64:
		if len(b) != len(ws.buf) {
			return fmt.Errorf("a point of %d weights for a model of %d: %w", len(b), len(ws.buf), errBadFile)
		}
		loss := ws.grad.Compute(b, ws.buf)
		write = func(path string) error { return writeGradientResult(path, loss, ws.buf) }
	default:
		return fmt.Errorf("a broadcast of %T for a %s job", b, ws.kind)
	}
	if err != nil {
		return err
	}
	if err := failOnce(w.dir, f.Epoch, s); err != nil {
		return err
	}
	return write(resultPath(f.Dir, s))
}

// localOrder sets ws.order to orders[s] in the shard's local indices.
func (ws *workerShard) localOrder(orders [][]int, s int) error {
	if s >= len(orders) {
		return fmt.Errorf("the broadcast has %d shards' orders", len(orders))
	}
	ws.order = ws.order[:0]
	for _, g := range orders[s] {
		k, ok := ws.local[g]
		if !ok {
			return fmt.Errorf("the broadcast names sentence %d, which the shard does not hold", g)
		}
		ws.order = append(ws.order, k)
	}
	return nil
}

// onlineEpoch trains shard s one online epoch from b.
func (ws *workerShard) onlineEpoch(s int, b *broadcast) (func(string) error, error) {
	if err := ws.localOrder(b.Orders, s); err != nil {
		return nil, err
	}
	in := b.In
	in.Order = ws.order
	r, err := ws.rep.Epoch(&in, nil)
	if err != nil {
		return nil, err
	}
	return func(path string) error { return writeResult(path, r) }, nil
}

// sgdEpoch runs shard s one CRF SGD epoch from b.
func (ws *workerShard) sgdEpoch(s int, b *sgdBroadcast) (func(string) error, error) {
	if err := ws.localOrder(b.Orders, s); err != nil {
		return nil, err
	}
	in := crf.SGDShardInput{V: b.V, Scale: b.Scale, T: b.Clocks[s], Order: ws.order}
	r, err := ws.sgd.Epoch(&in, nil)
	if err != nil {
		return nil, err
	}
	return func(path string) error { return writeSGDResult(path, r) }, nil
}

// failOnce is the envFailOnce hook.
func failOnce(dir string, epoch, s int) error {
	spec := os.Getenv(envFailOnce)
	if spec == "" {
		return nil
	}
	parts := strings.Split(spec, ":")
	if len(parts) != 3 || parts[0] != strconv.Itoa(epoch) || parts[1] != strconv.Itoa(s) {
		return nil
	}
	marker := filepath.Join(dir, fmt.Sprintf("failed-%d-%d", epoch, s))
	if _, err := os.Stat(marker); err == nil && parts[2] != "always" {
		return nil
	}
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		return err
	}
	if parts[2] == "panic" {
		panic(fmt.Sprintf("%s: a worker dies in epoch %d, shard %d", envFailOnce, epoch, s))
	}
	return fmt.Errorf("%s: a worker fails in epoch %d, shard %d", envFailOnce, epoch, s)
}
