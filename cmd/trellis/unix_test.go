//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestValidateNoDataReadsNoCorpus: validate --no-data opens no corpus
// file. The corpora are named pipes holding one bad line, the test keeping
// their write ends open: whatever read a pipe would take the line out of
// it, so the line still there afterwards shows nothing read it. Without
// --no-data validate reads both (and the pipes are empty), the control.
func TestValidateNoDataReadsNoCorpus(t *testing.T) {
	const line = "caf\xe9 NN I-NP\n"
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.hcl")
	writeFiles(t, dir, map[string]string{"spec.hcl": badInputSpec(t)})
	fill := func(t *testing.T) []string {
		var pipes []string
		for _, name := range []string{"train.txt", "test.txt"} {
			p := filepath.Join(dir, name)
			os.Remove(p)
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skipf("no named pipes here: %v", err)
			}
			// Read and write: opening it does not wait for a reader, and
			// a reader never sees the end of it.
			f, err := os.OpenFile(p, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			if _, err := f.WriteString(line); err != nil {
				t.Fatal(err)
			}
			pipes = append(pipes, p)
		}
		return pipes
	}
	// held returns what pipe p still holds, without waiting.
	held := func(t *testing.T, p string) string {
		fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer syscall.Close(fd)
		buf := make([]byte, 100)
		n, err := syscall.Read(fd, buf)
		if err != nil && !errors.Is(err, syscall.EAGAIN) {
			t.Fatal(err)
		}
		return string(buf[:max(n, 0)])
	}

	t.Run("--no-data", func(t *testing.T) {
		pipes := fill(t)
		code, stdout, stderr := trellis(t, "", "validate", spec, "--no-data")
		if code != exitOK || !strings.Contains(stdout, "ok (experiment") {
			t.Errorf("exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
		}
		for _, p := range pipes {
			if got := held(t, p); got != line {
				t.Errorf("%s was read: it holds %q, want %q", filepath.Base(p), got, line)
			}
		}
	})
	t.Run("with data", func(t *testing.T) {
		pipes := fill(t)
		code, _, stderr := trellis(t, "", "validate", spec)
		if code != exitUsage || !strings.Contains(stderr, pipes[0]+":1: invalid UTF-8") || !strings.Contains(stderr, pipes[1]+":1: invalid UTF-8") {
			t.Errorf("exit %d, stderr:\n%s", code, stderr)
		}
		for _, p := range pipes {
			if got := held(t, p); got != "" {
				t.Errorf("%s was not read: it holds %q", filepath.Base(p), got)
			}
		}
	})
}

// TestSignalExitCode: SIGINT while tag reads an endless input stops it,
// saying so, with exit 130 as shells report Ctrl-C.
func TestSignalExitCode(t *testing.T) {
	model := filepath.Join(sharedRun(t, chunkSpec), "models", "hmm.model")
	var stderr bytes.Buffer
	code := realMain([]string{"tag", "--model", model}, &endlessInput{}, io.Discard, &stderr)
	if code != exitInterrupted || !strings.Contains(stderr.String(), "trellis: interrupted") {
		t.Errorf("exit %d, want %d and \"interrupted\"; stderr:\n%s", code, exitInterrupted, stderr.String())
	}
}

// endlessInput is sentences without end. Its first read sends SIGINT to
// the process, which trellis has taken over by then: the signal cancels
// the command's context, the only way tagging it ends.
type endlessInput struct{ sent bool }

func (r *endlessInput) Read(p []byte) (int, error) {
	if !r.sent {
		r.sent = true
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			return 0, err
		}
	}
	const sentence = "the DT\ncat NN\n\n"
	n := 0
	for n+len(sentence) <= len(p) {
		n += copy(p[n:], sentence)
	}
	return n, nil
}

// TestInterruptedExitCodes: the exit code is 128 plus the signal's
// number, whatever error the cancelled command returned; a command that
// ends well despite the signal (serve draining) exits 0.
func TestInterruptedExitCodes(t *testing.T) {
	a := &app{stderr: io.Discard}
	for sig, want := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(interrupted{sig})
		for _, err := range []error{ctx.Err(), errors.New("reading: stopped")} {
			if got := a.exitCode(ctx, err); got != want {
				t.Errorf("%v, error %v: exit %d, want %d", sig, err, got, want)
			}
		}
		if got := a.exitCode(ctx, nil); got != exitOK {
			t.Errorf("%v, no error: exit %d, want 0", sig, got)
		}
	}
}
