package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestTooManyShards: a learner's shards setting larger than the training
// sentences (the tiny chunk corpus has 80) is a spec error, exit 2, placed
// at the setting's value, for the online learners and the CRF (L-BFGS and
// SGD), found after the corpus is read and before any model is written
// (the hmm before it trains nothing either); 80 shards train.
func TestTooManyShards(t *testing.T) {
	for _, c := range []struct{ name, learner string }{
		{"perceptron", "type   = \"perceptron\"\n  epochs = 1\n"},
		{"arow", "type   = \"arow\"\n  epochs = 1\n"},
		{"crf lbfgs", "type = \"crf\"\n"},
		{"crf sgd", "type      = \"crf\"\n  algorithm = \"sgd\"\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{"chunk-train.txt", "chunk-test.txt"} {
				if err := os.WriteFile(filepath.Join(dir, f), readFile(t, "testdata/"+f), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write := func(shards int) (spec string, line, col int) {
				block := "learner \"hmm\" {\n  type = \"hmm\"\n}\n\nlearner \"sharded\" {\n  " + c.learner + "  shards = " + strconv.Itoa(shards) + "\n}\n"
				src := strings.Replace(string(readFile(t, chunkSpec)), "learner \"hmm\" {\n  type = \"hmm\"\n}\n", block, 1)
				at := strings.Index(src, "shards = ") + len("shards = ")
				line = 1 + strings.Count(src[:at], "\n")
				col = at - strings.LastIndex(src[:at], "\n")
				spec = filepath.Join(dir, "spec.hcl")
				if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
				return spec, line, col
			}
			spec, line, col := write(81)
			out := filepath.Join(dir, "run")
			code, _, stderr := trellis(t, "", "run", spec, "--out", out)
			where := "spec.hcl:" + strconv.Itoa(line) + ":" + strconv.Itoa(col) + ":"
			if code != 2 || !strings.Contains(stderr, where) || !strings.Contains(stderr, "More shards than training sentences") ||
				!strings.Contains(stderr, "80 sentences") {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit 2 and a diagnostic at %s naming 80 sentences", code, stderr, where)
			}
			if models, _ := filepath.Glob(filepath.Join(out, "models", "*")); len(models) > 0 {
				t.Fatalf("models written: %v", models)
			}
			spec, _, _ = write(80)
			mustRun(t, "", "run", spec, "--out", filepath.Join(dir, "ok"), "--learner", "sharded")
		})
	}
}
