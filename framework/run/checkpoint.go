// Checkpoints: saving and resuming a learner's training state.

package run

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/trellis-nlp/trellis/framework/fileio"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/rundir"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// CheckpointDir is the folder of a run directory that holds training
// checkpoints while a run with checkpoints is unfinished. A run that ends
// removes it.
const CheckpointDir = "checkpoints"

// RunRecord is what a run with checkpoints records first, so that
// `trellis run --resume DIR` can run the same command again.
type RunRecord struct {
	Command []string `json:"command"`
	Dir     string   `json:"working_directory"`
}

// ReadRunRecord reads the record of the interrupted run into run
// directory dir, which waits in dir's partial folder (see rundir).
func ReadRunRecord(dir string) (*RunRecord, error) {
	path := filepath.Join(rundir.PartialPath(dir), CheckpointDir, "run.json")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no checkpoints to resume from (the run was not made with --checkpoint-every, or it finished)", dir)
	}
	if err != nil {
		return nil, err
	}
	var r RunRecord
	if err := json.Unmarshal(b, &r); err != nil || len(r.Command) < 2 {
		return nil, fmt.Errorf("%s: not a run record: %v", path, err)
	}
	return &r, nil
}

// Resumable reports whether the run that wrote into work left training
// state to resume from: a checkpoint, or a learner that finished.
func Resumable(work string) bool {
	entries, _ := os.ReadDir(filepath.Join(work, CheckpointDir))
	for _, e := range entries {
		if ext := filepath.Ext(e.Name()); ext == ".ckpt" || ext == ".done" {
			return true
		}
	}
	return false
}

// startCheckpoints prepares the checkpoint folder at the start of a run:
// a fresh run (whose folder is new, see rundir) records its command; a
// resumed run keeps what the interrupted one saved.
func startCheckpoints(ss *session) error {
	dir := filepath.Join(ss.outDir, CheckpointDir)
	if ss.opts.Resume {
		if _, err := os.Stat(filepath.Join(dir, "run.json")); err != nil {
			return fmt.Errorf("%s has no checkpoints to resume from", ss.outDir)
		}
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output folder: %w", err)
	}
	b, err := json.MarshalIndent(RunRecord{Command: ss.opts.Command, Dir: workingDirectory()}, "", "  ")
	if err != nil {
		return err
	}
	return fileio.WriteFile(filepath.Join(dir, "run.json"), append(b, '\n'))
}

// checkpointer keeps one learner's checkpoints.
type checkpointer struct {
	path, donePath string
	// fingerprint ties a checkpoint to the spec, data, seed, learner and
	// trellis version that made it.
	fingerprint string
	every       int
}

func newCheckpointer(ss *session, li *spec.LearnerInstance, dataHashes map[string]string) (*checkpointer, error) {
	cfg, err := json.Marshal(li.Config)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "trellis %s\nspec %s\nseed %d\nlearner %s %s %s\n", Version(), ss.spec.Hash, ss.spec.Seed, li.Name, li.Type, cfg)
	names := make([]string, 0, len(dataHashes))
	for n := range dataHashes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(h, "data %s %s\n", n, dataHashes[n])
	}
	if im := li.InitModel; im != nil {
		// The same init_model path may hold another model by now.
		fmt.Fprintf(h, "init_model %s\n", im.SHA256)
	}
	dir := filepath.Join(ss.outDir, CheckpointDir)
	return &checkpointer{
		path: filepath.Join(dir, li.Name+".ckpt"), donePath: filepath.Join(dir, li.Name+".done"),
		fingerprint: hex.EncodeToString(h.Sum(nil)), every: ss.opts.CheckpointEvery,
	}, nil
}

const checkpointMagic = "trellis checkpoint 1\n"

// checkpoints returns the learner's side: where to save, and the state to
// resume from when resuming and there is one.
func (c *checkpointer) checkpoints(resume bool) (*learn.Checkpoints, error) {
	cp := &learn.Checkpoints{Every: c.every, Save: c.save}
	if !resume {
		return cp, nil
	}
	b, err := os.ReadFile(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return cp, nil // interrupted before its first checkpoint: from the start
	}
	if err != nil {
		return nil, err
	}
	state, err := c.open(b)
	if err != nil {
		return nil, err
	}
	cp.Resume = state
	return cp, nil
}

func (c *checkpointer) save(state []byte) error {
	var buf bytes.Buffer
	buf.Grow(len(checkpointMagic) + 65 + len(state))
	buf.WriteString(checkpointMagic)
	buf.WriteString(c.fingerprint)
	buf.WriteByte('\n')
	buf.Write(state)
	return fileio.WriteFile(c.path, buf.Bytes())
}

// open checks a checkpoint file's header and returns the learner's state.
func (c *checkpointer) open(b []byte) ([]byte, error) {
	rest, ok := bytes.CutPrefix(b, []byte(checkpointMagic))
	if !ok || len(rest) < 65 || rest[64] != '\n' {
		return nil, fmt.Errorf("%s is not a trellis checkpoint", c.path)
	}
	if string(rest[:64]) != c.fingerprint {
		return nil, fmt.Errorf("%s was made by another spec, data, seed, learner setting or trellis version; remove it, or run without --resume", c.path)
	}
	return rest[65:], nil
}

// finishedLearner is what a run keeps of a learner that finished training
// before the run was interrupted (its model is in models/).
type finishedLearner struct {
	Fingerprint  string         `json:"fingerprint"`
	TrainSeconds float64        `json:"train_seconds"`
	Info         map[string]any `json:"info"`
	Curve        []learn.Point  `json:"curve"`
}

// finish records that the learner finished training (its model is saved)
// and drops its training checkpoint.
func (c *checkpointer) finish(lm *LearnerMetrics) error {
	b, err := json.Marshal(finishedLearner{Fingerprint: c.fingerprint, TrainSeconds: lm.TrainSeconds, Info: lm.Info, Curve: lm.Curve})
	if err != nil {
		return err
	}
	if err := fileio.WriteFile(c.donePath, b); err != nil {
		return err
	}
	if err := os.Remove(c.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// finished returns the record of a learner that finished training in the
// interrupted run, or nil.
func (c *checkpointer) finished(modelPath string) (*finishedLearner, error) {
	b, err := os.ReadFile(c.donePath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f finishedLearner
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", c.donePath, err)
	}
	if f.Fingerprint != c.fingerprint {
		return nil, fmt.Errorf("%s was made by another spec, data, seed, learner setting or trellis version; remove it, or run without --resume", c.donePath)
	}
	if _, err := os.Stat(modelPath); err != nil {
		return nil, nil // the model is gone: train again
	}
	return &f, nil
}
