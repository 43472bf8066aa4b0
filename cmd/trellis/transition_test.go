package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/model"
)

// TestTransitionEndToEnd runs a tiny transition spec (greedy, beam with
// early and max-violation updates, a decisions template with every
// setting) and checks that `trellis tag` with each saved model, serially
// and with threads, prints the run's predictions, that the model records
// its search (format version 5), that inspect names history weights, and
// that n-best, another decoding method and explain are refused.
func TestTransitionEndToEnd(t *testing.T) {
	dir := t.TempDir()
	src := string(readFile(t, chunkSpec))
	src = strings.ReplaceAll(src, `"chunk-`, `"`+mustAbs(t, "testdata")+`/chunk-`)
	src = strings.Replace(src, `transition "trans" {}`, `transition "trans" {}
  emission "p" {
    column = "pos"
  }
  decisions "hist" {
    previous = 2
    span     = true
    document = true
  }`, 1)
	src = strings.Replace(src, `learner "hmm" {
  type = "hmm"
}`, `learner "greedy" {
  type = "transition"
  beta = 0.5
}
learner "early" {
  type = "transition"
  beam = 4
}
learner "mv" {
  type   = "transition"
  beam   = 3
  update = "max_violation"
}`, 1)
	specPath := filepath.Join(dir, "transition.hcl")
	if err := os.WriteFile(specPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "run")
	mustRun(t, "", "run", specPath, "--out", run)
	for name, beam := range map[string]int{"greedy": 1, "early": 4, "mv": 3} {
		path := filepath.Join(run, "models", name+".model")
		pred := string(readFile(t, filepath.Join(run, "predictions", name+".txt")))
		for _, threads := range []string{"1", "3"} {
			if tagged, _ := mustRun(t, "", "tag", "--model", path, "--threads", threads, chunkTest); tagged != pred {
				t.Errorf("%s: trellis tag --threads %s differs from the run's predictions", name, threads)
			}
		}
		m, err := model.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if m.Search == nil || m.Search.Beam != beam || m.Version != model.TransitionVersion {
			t.Errorf("%s: search %+v, version %d", name, m.Search, m.Version)
		}
	}
	// Many documents over several batches: StreamParallel's replicas each
	// start a batch at a document boundary, and give Stream's bytes.
	var many strings.Builder
	test := string(readFile(t, chunkTest))
	for d := 0; d < 12; d++ {
		many.WriteString("-DOCSTART- -X- O\n\n" + test + "\n")
	}
	manyPath := filepath.Join(dir, "many.txt")
	if err := os.WriteFile(manyPath, []byte(many.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	serial, _ := mustRun(t, "", "tag", "--model", filepath.Join(run, "models", "early.model"), manyPath)
	if parallel, _ := mustRun(t, "", "tag", "--model", filepath.Join(run, "models", "early.model"), "--threads", "3", manyPath); parallel != serial {
		t.Error("tag --threads 3 differs from tag over many documents")
	}
	out, _ := mustRun(t, "", "inspect", filepath.Join(run, "models", "early.model"))
	if !strings.Contains(out, "hist/") {
		t.Errorf("inspect shows no history weight:\n%s", out)
	}
	early := filepath.Join(run, "models", "early.model")
	for _, args := range [][]string{
		{"tag", "--model", early, "--nbest", "2", chunkTest},
		{"tag", "--model", early, "--decode", "greedy", chunkTest},
		{"explain", "--model", early, chunkTest},
	} {
		code, _, stderr := trellis(t, "", args...)
		if code == exitOK || !strings.Contains(stderr, "transition model") {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
}
