package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trellis-nlp/trellis/framework/rundir"
)

// resumeSpec is the quickstart's data, features and two learners that can
// checkpoint, short enough for a test.
func resumeSpec(t *testing.T) string {
	t.Helper()
	src := string(readFile(t, "../../specs/quickstart.hcl"))
	src = strings.Replace(src, `default     = "data/ud-ewt-sample"`, `default     = "`+mustAbs(t, "../../specs/data/ud-ewt-sample")+`"`, 1)
	i := strings.Index(src, `learner "hmm"`)
	j := strings.Index(src, "evaluation {")
	src = src[:i] + `learner "perceptron" {
  type   = "perceptron"
  epochs = 6
}

learner "crf" {
  type           = "crf"
  c2             = 0.1
  max_iterations = 80
}

` + src[j:]
	p := filepath.Join(t.TempDir(), "resume.hcl")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestInterruptAndResume interrupts a run with SIGINT while the CRF
// trains, checks that it stops promptly, keeps the perceptron's finished
// model, leaves no temporary file, and that `run --resume` then ends with
// the same model and prediction bytes as a run that was never
// interrupted.
func TestInterruptAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "trellis")
	// -buildvcs=false: the models record trellis's version, which must be
	// the in-process reference run's ("dev"); go build otherwise stamps a
	// VCS pseudo-version under some settings (seen with GOFLAGS set).
	if out, err := exec.Command("go", "build", "-buildvcs=false", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	spec := resumeSpec(t)
	ref := filepath.Join(t.TempDir(), "ref")
	mustRun(t, "", "run", spec, "--out", ref, "--threads", "2")

	dir := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(bin, "run", spec, "--out", dir, "--checkpoint-every", "5", "--threads", "2")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The run writes into its partial folder beside dir until it ends.
	partial := rundir.PartialPath(dir)
	ckpt := filepath.Join(partial, "checkpoints", "crf.ckpt")
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(ckpt); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no CRF checkpoint after 60 s:\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A second run into the same folder while the first works: refused,
	// naming the first (a lock held by another process).
	code, _, busy := trellis(t, "", "run", spec, "--out", dir)
	if want := fmt.Sprintf("another trellis run (pid %d", cmd.Process.Pid); code != exitFailure || !strings.Contains(busy, want) {
		t.Errorf("a second run into the folder being written: exit %d, want 1 and %q:\n%s", code, want, busy)
	}
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	stopped := time.Since(sent)
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != exitInterrupted || !strings.Contains(stderr.String(), "trellis: interrupted") {
		t.Fatalf("interrupted run: %v, want exit 130 and \"interrupted\":\n%s", err, stderr.String())
	}
	if stopped > 3*time.Second {
		t.Errorf("stopped %v after SIGINT", stopped)
	}
	t.Logf("stopped %v after SIGINT", stopped)
	if _, err := os.Stat(filepath.Join(partial, "models", "perceptron.model")); err != nil {
		t.Errorf("the finished perceptron's model is gone: %v", err)
	}
	if _, err := os.Stat(filepath.Join(partial, "models", "crf.model")); err == nil {
		t.Errorf("an interrupted learner left a model")
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("an interrupted run made %s, which must only ever hold a complete run", dir)
	}
	filepath.Walk(partial, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasPrefix(info.Name(), ".") && info.Name() != rundir.MarkerName && p != partial {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})

	// A checkpoint is refused once the spec has changed.
	src := readFile(t, spec)
	os.WriteFile(spec, append(append([]byte(nil), src...), "\n# edited\n"...), 0o644)
	if code, _, stderr := trellis(t, "", "run", "--resume", dir); code != exitFailure || !strings.Contains(stderr, "was made by another spec") {
		t.Errorf("resume after editing the spec: exit %d:\n%s", code, stderr)
	}
	os.WriteFile(spec, src, 0o644)

	resume := exec.Command(bin, "run", "--resume", dir, "--threads", "1")
	if out, err := resume.CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	} else if !strings.Contains(string(out), "crf resumed from a checkpoint") {
		t.Errorf("the CRF did not resume from its checkpoint:\n%s", out)
	}
	for _, f := range []string{"models/perceptron.model", "models/crf.model", "predictions/perceptron.txt", "predictions/crf.txt", "eval/crf.tsv"} {
		if !bytes.Equal(readFile(t, filepath.Join(ref, f)), readFile(t, filepath.Join(dir, f))) {
			t.Errorf("%s differs from the uninterrupted run's", f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "checkpoints")); err == nil {
		t.Errorf("a finished run kept its checkpoints")
	}
	if _, err := os.Stat(partial); err == nil {
		t.Errorf("a finished run kept its partial folder")
	}

	// Nothing to resume.
	if code, _, stderr := trellis(t, "", "run", "--resume", dir); code != exitFailure || !strings.Contains(stderr, "no checkpoints to resume from") {
		t.Errorf("resume of a finished run: exit %d:\n%s", code, stderr)
	}
	if code, _, _ := trellis(t, "", "run", spec, "--resume", dir); code != exitUsage {
		t.Errorf("--resume with a spec: exit %d, want %d", code, exitUsage)
	}
}
