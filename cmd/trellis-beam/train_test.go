package main

// This file holds the tests of `trellis-beam train` on prism: the run
// directory against `trellis run`'s with the same spec (models,
// predictions, per-token evaluations, byte for byte), for 1 and 4 work
// elements; `trellis reproduce` and `trellis compare` taking it; a
// worker failing or dying mid-epoch; resuming from a checkpoint; and the
// mistakes refused.

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// trainSpec is the tiny experiment the train tests run: shards on three
// online learners and on the CRF (SGD mixing, L-BFGS and OWL-QN on the
// sharded gradient), a dev corpus (dev scoring, best epoch), and
// learners trellis-beam train refuses.
const trainSpec = `
experiment "ipm" {
  seed = 7
}
corpus "train" {
  path    = "train.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}
corpus "dev" {
  path    = "dev.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}
corpus "test" {
  path    = "test.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}
labels {
  column = "chunk"
  scheme = "iob2"
}
features {
  emission "w" {
    column  = "word"
    offsets = [-1, 0, 1]
  }
  emission "pos" {
    column  = "pos"
    offsets = [-1, 0]
  }
  transition "trans" {}
}
learner "perceptron" {
  type   = "perceptron"
  epochs = 4
  shards = 4
}
learner "arow" {
  type   = "arow"
  epochs = 3
  shards = 3
  mix    = "mistakes"
  gamma  = 0.5
}
learner "pa" {
  type   = "pa"
  epochs = 3
  shards = 2
  c      = 0.5
}
learner "crfsgd" {
  type           = "crf"
  algorithm      = "sgd"
  max_iterations = 3
  shards         = 3
  batch_size     = 2
}
learner "lbfgs" {
  type           = "crf"
  max_iterations = 6
  shards         = 3
}
learner "owlqn" {
  type           = "crf"
  max_iterations = 5
  shards         = 2
  c1             = 0.1
}
learner "latent" {
  type          = "crf"
  hidden_states = 2
  shards        = 2
}
learner "serial" {
  type   = "perceptron"
  epochs = 2
}
learner "hmm" {
  type = "hmm"
}
evaluation {
  train = "train"
  dev   = "dev"
  test  = "test"
}
`

// trainCorpus writes the spec and a synthetic chunking corpus (noun
// phrases, verbs, prepositional phrases; some words ambiguous between
// tags) of 48 training, 12 dev and 12 test sentences into a new folder,
// and returns the spec's path.
func trainCorpus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(11, 12))
	words := map[string][]string{
		"DT": {"the", "a", "this", "every"}, "JJ": {"big", "old", "red", "fast", "light"},
		"NN": {"dog", "man", "ship", "light", "plan", "house", "run"}, "VBD": {"saw", "made", "run", "took"},
		"IN": {"in", "on", "with", "near"}, "RB": {"quickly", "there"},
	}
	pick := func(pos string) string { return words[pos][r.IntN(len(words[pos]))] }
	np := func(b *strings.Builder) {
		fmt.Fprintf(b, "%s DT B-NP\n", pick("DT"))
		for range r.IntN(3) {
			fmt.Fprintf(b, "%s JJ I-NP\n", pick("JJ"))
		}
		fmt.Fprintf(b, "%s NN I-NP\n", pick("NN"))
	}
	sentence := func(b *strings.Builder) {
		np(b)
		fmt.Fprintf(b, "%s VBD B-VP\n", pick("VBD"))
		if r.IntN(3) == 0 {
			fmt.Fprintf(b, "%s RB B-ADVP\n", pick("RB"))
		}
		np(b)
		for r.IntN(2) == 0 {
			fmt.Fprintf(b, "%s IN B-PP\n", pick("IN"))
			np(b)
		}
		b.WriteString(". . O\n\n")
	}
	for name, n := range map[string]int{"train.txt": 48, "dev.txt": 12, "test.txt": 12} {
		var b strings.Builder
		for range n {
			sentence(&b)
		}
		writeTemp(t, dir, name, b.String())
	}
	return writeTemp(t, dir, "ipm.hcl", trainSpec)
}

// runEnv runs a built binary with env added to the environment.
func runEnv(t *testing.T, env []string, name string, args ...string) (code int, stderr string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return code, errb.String()
}

// sameRun checks that run directory got holds learner's model,
// predictions and per-token evaluation as want does, byte for byte.
func sameRun(t *testing.T, got, want, learner string) {
	t.Helper()
	for _, f := range []string{"models/" + learner + ".model", "predictions/" + learner + ".txt", "eval/" + learner + ".tsv"} {
		a, err := os.ReadFile(filepath.Join(want, f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(got, f))
		if err != nil {
			t.Fatalf("%s: %v", got, err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: %s differs from trellis run's (%d bytes, want %d)", got, f, len(b), len(a))
		}
	}
	if _, err := os.Stat(filepath.Join(got, beamDirName)); err == nil {
		t.Errorf("%s: the executor's folder was left in the run directory", got)
	}
}

// TestTrainMatchesTrellisRun trains each online learner and the CRF
// (SGD, L-BFGS, OWL-QN) with trellis-beam train on prism, its shards
// dealt into 1 and 4 work elements, and checks the run directory against
// trellis run's; trellis reproduce reruns it to the same bytes and
// trellis compare takes it.
func TestTrainMatchesTrellisRun(t *testing.T) {
	spec := trainCorpus(t)
	tmp := t.TempDir()
	for _, learner := range []string{"perceptron", "arow", "pa", "crfsgd", "lbfgs", "owlqn"} {
		t.Run(learner, func(t *testing.T) {
			ref := filepath.Join(tmp, learner+"-ref")
			mustRun(t, bin.trellis, "run", spec, "--learner", learner, "--out", ref)
			for _, workers := range []string{"1", "4"} {
				out := filepath.Join(tmp, learner+"-beam-"+workers)
				mustRun(t, bin.beam, "train", spec, "--learner", learner, "--out", out, "--workers", workers)
				sameRun(t, out, ref, learner)
			}
			manifest, err := os.ReadFile(filepath.Join(tmp, learner+"-beam-4", "manifest.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(manifest), `"shards":`) {
				t.Errorf("the manifest records no shards setting:\n%s", manifest)
			}
		})
	}
	got := mustRun(t, bin.trellis, "reproduce", filepath.Join(tmp, "perceptron-beam-4"))
	if !strings.Contains(got, "reproduced: every model, prediction and metric matches") {
		t.Errorf("trellis reproduce:\n%s", got)
	}
	got = mustRun(t, bin.trellis, "compare", filepath.Join(tmp, "perceptron-ref"), filepath.Join(tmp, "perceptron-beam-4"))
	if !strings.Contains(got, "+0.00") {
		t.Errorf("trellis compare of the two runs:\n%s", got)
	}
}

// TestTrainRetriesFailedWorker makes a worker fail (an error) or die (a
// panic) mid-round on its first attempt at one shard — an online epoch,
// a CRF SGD epoch, an L-BFGS evaluation: prism fails the pipeline, the
// command runs the round again, and the run is trellis run's to the byte.
func TestTrainRetriesFailedWorker(t *testing.T) {
	spec := trainCorpus(t)
	for _, tc := range []struct {
		learner, round, logged string
		modes                  []string
	}{
		{"arow", "2:1", "epoch 2, shard 1", []string{"error", "panic"}},
		{"crfsgd", "2:2", "epoch 2, shard 2", []string{"panic"}},
		{"lbfgs", "3:1", "evaluation 3, shard 1", []string{"error"}},
	} {
		ref := filepath.Join(t.TempDir(), "ref")
		mustRun(t, bin.trellis, "run", spec, "--learner", tc.learner, "--out", ref)
		for _, mode := range tc.modes {
			t.Run(tc.learner+"-"+mode, func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "run")
				code, stderr := runEnv(t, []string{envFailOnce + "=" + tc.round + ":" + mode}, bin.beam, "train", spec, "--learner", tc.learner, "--out", out, "--workers", "3")
				if code != 0 {
					t.Fatalf("exit %d:\n%s", code, stderr)
				}
				if !strings.Contains(stderr, "running it again") || !strings.Contains(stderr, tc.logged) {
					t.Errorf("no failed and retried %s in the log:\n%s", tc.logged, stderr)
				}
				sameRun(t, out, ref, tc.learner)
			})
		}
	}
}

// TestTrainResume stops a run with checkpoints mid-way (a shard failing
// every attempt: the perceptron's third epoch, the L-BFGS CRF's fifth
// evaluation, CRF SGD's third epoch), then resumes it with trellis-beam
// train --resume: the result is the uninterrupted run's.
func TestTrainResume(t *testing.T) {
	spec := trainCorpus(t)
	for _, tc := range []struct{ learner, fail string }{
		{"perceptron", "3:2"}, {"lbfgs", "5:0"}, {"crfsgd", "3:1"},
	} {
		t.Run(tc.learner, func(t *testing.T) {
			ref := filepath.Join(t.TempDir(), "ref")
			mustRun(t, bin.trellis, "run", spec, "--learner", tc.learner, "--out", ref)
			out := filepath.Join(t.TempDir(), "run")
			code, stderr := runEnv(t, []string{envFailOnce + "=" + tc.fail + ":always"}, bin.beam, "train", spec, "--learner", tc.learner, "--out", out, "--checkpoint-every", "1")
			if code != exitFailure || !strings.Contains(stderr, fmt.Sprintf("failed %d times", maxAttempts)) || !strings.Contains(stderr, "--resume") {
				t.Fatalf("a shard failing every attempt: exit %d, want 1, the attempts and --resume:\n%s", code, stderr)
			}
			code, stderr = runEnv(t, nil, bin.beam, "train", "--resume", out)
			if code != 0 {
				t.Fatalf("resume: exit %d:\n%s", code, stderr)
			}
			if !strings.Contains(stderr, "resumed from a checkpoint") {
				t.Errorf("%s did not resume from its checkpoint:\n%s", tc.learner, stderr)
			}
			sameRun(t, out, ref, tc.learner)
			// The manifest records the command the run was started with,
			// which trellis reproduce reruns.
			if got := mustRun(t, bin.trellis, "reproduce", out); !strings.Contains(got, "reproduced: every model") {
				t.Errorf("trellis reproduce of the resumed run:\n%s", got)
			}
		})
	}
}

// TestTrainErrors: what trellis-beam train refuses, with exit code 2.
func TestTrainErrors(t *testing.T) {
	spec := trainCorpus(t)
	bad := writeTemp(t, filepath.Dir(spec), "bad.hcl", strings.Replace(trainSpec, "shards = 4", "shards = -4", 1))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"several learners", []string{spec}, "name the one to train with --learner"},
		{"not online", []string{spec, "--learner", "hmm"}, "trains the online learners"},
		{"no shards", []string{spec, "--learner", "serial"}, "add `shards = 2` to its block"},
		{"latent CRF", []string{spec, "--learner", "latent"}, "is a latent CRF"},
		{"shards disagree", []string{spec, "--learner", "perceptron", "--shards", "5"}, "says shards = 4"},
		{"no such learner", []string{spec, "--learner", "crf"}, "no such learner"},
		{"spec error", []string{bad, "--learner", "perceptron"}, "bad.hcl:"},
		{"no spec", nil, "one spec file"},
		{"resume with a spec", []string{spec, "--resume", "x"}, "--resume DIR takes no spec"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			code, _, stderr := command(t, bin.beam, append(append([]string{"train"}, tc.args...), "--out", out)...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, want 2 and %q:\n%s", code, tc.want, stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a refused run made %s", out)
			}
		})
	}
}
