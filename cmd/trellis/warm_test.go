package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// warmBlocks are a plain CRF and the same CRF warm-started by three SGD
// epochs.
const warmBlocks = `
learner "crf" {
  type = "crf"
}

learner "warm" {
  type              = "crf"
  warm_start_epochs = 3
}
`

// TestWarmStartCRF runs warm_start_epochs from a spec through the CLI on the
// tiny chunking corpus: the model and predictions are the same bytes with 1
// and 2 threads, metrics.json records the warm start, the F1 is the plain
// CRF's (the same optimum up to the stopping tolerance), and the setting on
// a learner that has no L-BFGS to warm up is a spec error (exit 2) that
// points at it.
func TestWarmStartCRF(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"spec.hcl": append(readFile(t, chunkSpec), warmBlocks...), "chunk-train.txt": readFile(t, "testdata/chunk-train.txt"), "chunk-test.txt": readFile(t, chunkTest),
		"bad.hcl": append(readFile(t, chunkSpec), strings.Replace(warmBlocks, `type = "crf"`, "type = \"crf\"\n  algorithm = \"sgd\"\n  warm_start_epochs = 2", 1)...),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := filepath.Join(dir, "spec.hcl")
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	mustRun(t, "", "run", spec, "--out", a, "--threads", "1", "--learner", "crf", "--learner", "warm")
	mustRun(t, "", "run", spec, "--out", b, "--threads", "2", "--learner", "warm")
	for _, f := range []string{filepath.Join("models", "warm.model"), filepath.Join("predictions", "warm.txt")} {
		if !bytes.Equal(readFile(t, filepath.Join(a, f)), readFile(t, filepath.Join(b, f))) {
			t.Errorf("%s differs between --threads 1 and 2", f)
		}
	}
	var metrics map[string]struct {
		F1   float64        `json:"f1"`
		Info map[string]any `json:"info"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(a, "metrics.json")), &metrics); err != nil {
		t.Fatal(err)
	}
	plain, warm := metrics["crf"], metrics["warm"]
	if warm.Info["warm_start_epochs"] != 3.0 || warm.Info["warm_start_loss"] == nil || plain.Info["warm_start_epochs"] != nil {
		t.Errorf("metrics.json info: warm %v, plain %v", warm.Info, plain.Info)
	}
	if plain.F1 < 0.5 || math.Abs(warm.F1-plain.F1) > 0.005 {
		t.Errorf("F1 %.4f warm-started, %.4f plain", warm.F1, plain.F1)
	}
	code, _, stderr := trellis(t, "", "run", filepath.Join(dir, "bad.hcl"), "--out", filepath.Join(dir, "c"))
	if code != exitUsage || !strings.Contains(stderr, "bad.hcl:") || !strings.Contains(stderr, "warm_start_epochs warms L-BFGS") {
		t.Errorf("algorithm = \"sgd\" with warm_start_epochs: exit %d, stderr:\n%s", code, stderr)
	}
}
