package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// newLearnerBlocks are the learners of issue 17 as a spec declares them.
const newLearnerBlocks = `
learner "maxent" {
  type = "maxent"
}

learner "memm" {
  type = "memm"
}

learner "pa" {
  type    = "pa"
  pa_type = 2
  c       = 0.5
}

learner "arow" {
  type     = "arow"
  variance = 0.5
  gamma    = 2
}
`

// TestNewLearners runs maxent, memm, pa and arow from a spec through the
// CLI on the tiny chunking corpus: with 1 and 2 threads the models and
// predictions are the same bytes; `trellis tag` with a saved model
// reproduces the run's predictions; the MEMM's model file is format
// version 2 (locally normalized), the others stay version 1; the MEMM's
// n-best scores are log probabilities (descending, probability ≤ 1) and
// its marginals probabilities.
func TestNewLearners(t *testing.T) {
	dir := t.TempDir()
	src := string(readFile(t, chunkSpec)) + newLearnerBlocks
	for name, data := range map[string][]byte{
		"spec.hcl": []byte(src), "chunk-train.txt": readFile(t, "testdata/chunk-train.txt"), "chunk-test.txt": readFile(t, chunkTest),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := filepath.Join(dir, "spec.hcl")
	learners := []string{"maxent", "memm", "pa", "arow"}
	var args []string
	for _, l := range learners {
		args = append(args, "--learner", l)
	}
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	_, stderr := mustRun(t, "", append([]string{"run", spec, "--out", a, "--threads", "1"}, args...)...)
	if !strings.Contains(stderr, "maxent ignores the spec's transition template") {
		t.Errorf("maxent did not warn that it ignores the transition template:\n%s", stderr)
	}
	mustRun(t, "", append([]string{"run", spec, "--out", b, "--threads", "2"}, args...)...)
	for _, l := range learners {
		t.Run(l, func(t *testing.T) {
			model := filepath.Join(a, "models", l+".model")
			mb := readFile(t, model)
			for _, f := range []string{filepath.Join("models", l+".model"), filepath.Join("predictions", l+".txt")} {
				if !bytes.Equal(readFile(t, filepath.Join(a, f)), readFile(t, filepath.Join(b, f))) {
					t.Errorf("%s differs between --threads 1 and 2", f)
				}
			}
			wantVersion := uint32(1)
			if l == "memm" {
				wantVersion = 2
			}
			if v := binary.LittleEndian.Uint32(mb[8:]); v != wantVersion {
				t.Errorf("model file format version %d, want %d", v, wantVersion)
			}
			got, _ := mustRun(t, "", "tag", "--model", model, chunkTest)
			if want := string(readFile(t, filepath.Join(a, "predictions", l+".txt"))); got != want {
				t.Errorf("tag output (%d bytes) differs from the run's predictions (%d bytes)", len(got), len(want))
			}
		})
	}
	t.Run("memm n-best and marginals", func(t *testing.T) {
		model := filepath.Join(a, "models", "memm.model")
		// Scores are in JSON (the column layout of --nbest has none): each
		// sentence's n-best, best first, as log probabilities.
		out, _ := mustRun(t, "", "tag", "--model", model, "--nbest", "3", "--output", "json", chunkTest)
		lines := parseJSONLines(t, out)
		if len(lines) == 0 {
			t.Fatalf("no sentences in:\n%s", out)
		}
		for k, j := range lines {
			if len(j.NBest) == 0 || len(j.NBest) > 3 {
				t.Fatalf("sentence %d: %d best, want 1 to 3", k, len(j.NBest))
			}
			prev := 0.0
			for r, b := range j.NBest {
				if b.Score == nil || b.Probability == nil {
					t.Fatalf("sentence %d rank %d: no score or probability", k, r+1)
				}
				score, p := *b.Score, *b.Probability
				if score > 0 || p > 1 || p <= 0 {
					t.Fatalf("sentence %d rank %d: score %v, probability %v; want a log probability ≤ 0 and 0 < p ≤ 1", k, r+1, score, p)
				}
				if r > 0 && score > prev {
					t.Fatalf("sentence %d rank %d scores %v above the previous %v", k, r+1, score, prev)
				}
				prev = score
			}
		}
		out, _ = mustRun(t, "", "tag", "--model", model, "--marginals", chunkTest)
		marg := regexp.MustCompile(`\s([0-9.e-]+)$`)
		n := 0
		for _, line := range strings.Split(out, "\n") {
			if m := marg.FindStringSubmatch(line); m != nil {
				p, _ := strconv.ParseFloat(m[1], 64)
				if !(p > 0 && p <= 1) {
					t.Fatalf("marginal %v in %q", p, line)
				}
				n++
			}
		}
		if n == 0 {
			t.Fatalf("no marginals in:\n%s", out)
		}
	})
}
