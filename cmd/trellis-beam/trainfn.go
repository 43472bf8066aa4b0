package main

// This file holds the workers' side of `trellis-beam train`: the DoFn
// that trains shards (shardWorkFn) and what a worker process keeps
// between epochs (worker): the job, and the replica and encoded data of
// each shard it has trained — only those.

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

// shardWorkFn trains the shards of a work element: element k trains
// shards k, k+Workers, … of the epoch, each from the broadcast file to
// its result file. Its fields are paths the workers read and write.
type shardWorkFn struct {
	Job     string // the job file
	Input   string // the epoch's broadcast file
	Dir     string // the epoch's folder, where results go
	Epoch   int
	Workers int
}

// ProcessElement trains element group's shards.
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
		if err := w.train(s, b, f); err != nil {
			return fmt.Errorf("epoch %d, shard %d: %w", f.Epoch, s, err)
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
	bc     *broadcast
	shards map[int]*workerShard
}

// workerShard is a shard this process has trained: its replica, and the
// index of each of its sentences (by their index in the full training
// Dataset) in its own Dataset. mu makes one epoch of it run at a time.
type workerShard struct {
	mu    sync.Mutex
	data  *shardData // mapped: the worker's only copy of the shard
	rep   *online.Replica
	local map[int]int
	order []int // the epoch's order in local indices
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

// broadcast returns the broadcast at path, read once per epoch.
func (w *worker) broadcast(path string) (*broadcast, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.bcPath != path {
		b, err := readBroadcast(path)
		if err != nil {
			return nil, err
		}
		w.bcPath, w.bc = path, b
	}
	return w.bc, nil
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
	rule, err := rebuildRule(w.job)
	if err != nil {
		sd.Close()
		return nil, err
	}
	p := &learn.Problem{Train: sd.Data, NumLabels: w.job.NumLabels, Transitions: w.job.Transitions, Constraints: w.job.Constraints}
	ws := &workerShard{data: sd, rep: online.NewReplica(w.job.Model, p, rule), local: make(map[int]int, len(sd.Sentences))}
	for k, g := range sd.Sentences {
		ws.local[g] = k
	}
	w.shards[s] = ws
	return ws, nil
}

// rebuildRule makes the job's rule from its learner's type and settings
// through the learner registry.
func rebuildRule(j *jobFile) (online.Rule, error) {
	_, learners := builtin.Registries()
	l, ok := learners.New(j.Learner)
	if !ok {
		return nil, fmt.Errorf("no learner type %q", j.Learner)
	}
	if err := json.Unmarshal(j.Config, l.Config()); err != nil {
		return nil, fmt.Errorf("the %s settings: %w", j.Learner, err)
	}
	m, ok := l.(online.Mixable)
	if !ok {
		return nil, fmt.Errorf("%s is not an online learner", j.Learner)
	}
	return m.Rule(), nil
}

// train trains shard s one epoch from b and writes its result.
func (w *worker) train(s int, b *broadcast, f *shardWorkFn) error {
	ws, err := w.shard(s)
	if err != nil {
		return err
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.order = ws.order[:0]
	for _, g := range b.Orders[s] {
		k, ok := ws.local[g]
		if !ok {
			return fmt.Errorf("the broadcast names sentence %d, which the shard does not hold", g)
		}
		ws.order = append(ws.order, k)
	}
	in := b.In
	in.Order = ws.order
	r, err := ws.rep.Epoch(&in, nil)
	if err != nil {
		return err
	}
	if err := failOnce(w.dir, f.Epoch, s); err != nil {
		return err
	}
	return writeResult(resultPath(f.Dir, s), r)
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
