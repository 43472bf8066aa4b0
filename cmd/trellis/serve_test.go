package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trellis-nlp/trellis/framework/serve"
)

// servedProcess is `trellis serve` running as a real process.
type servedProcess struct {
	cmd    *exec.Cmd
	base   string
	stderr *bytes.Buffer // every log line, once the process has exited
	lines  chan string   // log lines as they come
	read   chan struct{} // closed when stderr has been read to its end
}

// wait waits for the process to exit. Its stderr is read to the end first:
// exec.Cmd.Wait closes the pipe, and a line not yet read (the last log
// line) would be lost.
func (p *servedProcess) wait() error {
	<-p.read
	return p.cmd.Wait()
}

// startServe builds trellis and runs `trellis serve ARGS --addr
// 127.0.0.1:0`, returning once it logs the address it listens on.
func startServe(t *testing.T, args ...string) *servedProcess {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "trellis")
	if out, err := exec.Command("go", "build", "-buildvcs=false", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, append(append([]string{"serve"}, args...), "--addr", "127.0.0.1:0", "--log-format", "json")...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &servedProcess{cmd: cmd, stderr: &bytes.Buffer{}, lines: make(chan string, 1024), read: make(chan struct{})}
	go func() {
		defer close(p.read)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			p.stderr.WriteString(sc.Text() + "\n")
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			p.wait()
		}
	})
	line := p.waitLog(t, "serving")
	var ev struct{ Addr string }
	if err := json.Unmarshal([]byte(line), &ev); err != nil || !strings.HasPrefix(ev.Addr, "127.0.0.1:") {
		t.Fatalf("serving line %q: %v", line, err)
	}
	p.base = "http://" + ev.Addr
	return p
}

// waitLog returns the next log line whose message is msg.
func (p *servedProcess) waitLog(t *testing.T, msg string) string {
	t.Helper()
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				t.Fatalf("trellis serve ended before logging %q:\n%s", msg, p.stderr)
			}
			if strings.Contains(line, `"message":"`+msg+`"`) {
				return line
			}
		case <-timeout:
			t.Fatalf("trellis serve did not log %q", msg)
		}
	}
}

// conlluSentences reads the token lines of CoNLL-U text into sentences of
// fields.
func conlluSentences(text string) [][][]string {
	var out [][][]string
	var cur [][]string
	token := regexp.MustCompile(`^\d+\t`)
	for _, line := range strings.Split(text, "\n") {
		switch {
		case line == "":
			if cur != nil {
				out = append(out, cur)
			}
			cur = nil
		case token.MatchString(line):
			cur = append(cur, strings.Split(line, "\t"))
		}
	}
	if cur != nil {
		out = append(out, cur)
	}
	return out
}

// TestServeEndToEnd runs `trellis serve` as a process on a loopback port,
// tags the test file over HTTP in concurrent requests and checks the
// labels (and the n-best scores) against `trellis tag`; then it stops the
// service with SIGTERM while a request is still being sent, and checks
// that the request is answered, new connections refused, and the exit 0.
func TestServeEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	modelPath := filepath.Join(sharedRun(t, quickstart), "models", "hmm.model")
	tagged, _ := mustRun(t, "", "tag", "--model", modelPath, ewtTest)
	want := conlluSentences(tagged)
	p := startServe(t, "--model", "ewt="+modelPath, "--concurrency", "2")

	// All sentences, in 8 concurrent requests.
	words := make([][]string, len(want))
	for k, s := range want {
		for _, tok := range s {
			words[k] = append(words[k], tok[1])
		}
	}
	const parts = 8
	got := make([][][]string, parts)
	errs := make(chan error, parts)
	for i := range parts {
		go func() {
			lo, hi := i*len(words)/parts, (i+1)*len(words)/parts
			resp, err := tagOver(p.base, serve.TagRequest{Sentences: words[lo:hi]})
			if err == nil {
				got[i] = resp.Labels
			}
			errs <- err
		}()
	}
	for range parts {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	var labels [][]string
	for _, g := range got {
		labels = append(labels, g...)
	}
	if len(labels) != len(want) {
		t.Fatalf("%d sentences tagged, want %d", len(labels), len(want))
	}
	for k, s := range want {
		for i, tok := range s {
			if labels[k][i] != tok[len(tok)-1] {
				t.Fatalf("sentence %d token %d: served %q, trellis tag %q", k, i, labels[k][i], tok[len(tok)-1])
			}
		}
	}

	checkNBest(t, p, modelPath, words[:20])
	checkDrainOnSIGTERM(t, p, words[:5], labels[:5])
}

// waitInFlight waits until the service counts n requests in flight.
func waitInFlight(t *testing.T, p *servedProcess, n int) {
	t.Helper()
	want := fmt.Sprintf("trellis_serve_requests_in_flight %d\n", n)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		resp, err := http.Get(p.base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the service never counted %d requests in flight", n)
		}
	}
}

func tagOver(base string, req serve.TagRequest) (*serve.TagResponse, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	resp, err := http.Post(base+"/v1/models/ewt/tag", "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	var out serve.TagResponse
	return &out, json.Unmarshal(b, &out)
}

// checkNBest compares the 3 best sequences, their scores and
// probabilities with `trellis tag --nbest 3 --output json`'s.
func checkNBest(t *testing.T, p *servedProcess, modelPath string, words [][]string) {
	t.Helper()
	var input strings.Builder
	for _, s := range words {
		for i, w := range s {
			fmt.Fprintf(&input, "%d\t%s\t_\t_\t_\t_\t_\t_\t_\t_\n", i+1, w)
		}
		input.WriteString("\n")
	}
	cli, _ := mustRun(t, input.String(), "tag", "--model", modelPath, "--nbest", "3", "--output", "json")
	var want [][]serve.ScoredPath
	dec := json.NewDecoder(strings.NewReader(cli))
	for dec.More() {
		var line struct {
			NBest []serve.ScoredPath `json:"nbest"`
		}
		if err := dec.Decode(&line); err != nil {
			t.Fatalf("trellis tag --output json: %v", err)
		}
		want = append(want, line.NBest)
	}
	resp, err := tagOver(p.base, serve.TagRequest{Sentences: words, NBest: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(resp.NBest, want) {
		t.Errorf("n-best over HTTP differs from trellis tag --nbest 3 --output json:\nserved %v\ntrellis tag %v", resp.NBest, want)
	}
}

// checkDrainOnSIGTERM starts a request whose body is still being sent,
// sends SIGTERM, checks that new connections are refused, finishes the
// body, and checks the answer and the exit code.
func checkDrainOnSIGTERM(t *testing.T, p *servedProcess, words, want [][]string) {
	t.Helper()
	body, err := json.Marshal(serve.TagRequest{Sentences: words})
	if err != nil {
		t.Fatal(err)
	}
	// Earlier requests may still be counted for a moment after their
	// answers arrive (the handler returns after the client has read the
	// body): wait until none is, so that the one in flight below is ours.
	waitInFlight(t, p, 0)
	pr, pw := io.Pipe()
	type answer struct {
		resp *serve.TagResponse
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		resp, err := http.Post(p.base+"/v1/models/ewt/tag", "application/json", pr)
		if err != nil {
			done <- answer{nil, err}
			return
		}
		defer resp.Body.Close()
		var out serve.TagResponse
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			done <- answer{nil, fmt.Errorf("status %d: %s", resp.StatusCode, b)}
			return
		}
		done <- answer{&out, json.Unmarshal(b, &out)}
	}()
	half := len(body) / 2
	if _, err := pw.Write(body[:half]); err != nil {
		t.Fatal(err)
	}
	// The handler is running (reading the body) once the service counts
	// one request in flight (scrapes of /metrics do not count).
	waitInFlight(t, p, 1)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.waitLog(t, "draining: refusing new requests, finishing those in flight")
	addr := strings.TrimPrefix(p.base, "http://")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			break // refused: the listener is closed
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("new connections are still accepted while draining")
		}
	}
	if _, err := pw.Write(body[half:]); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	a := <-done
	if a.err != nil {
		t.Fatalf("the request in flight at SIGTERM: %v", a.err)
	}
	if !reflect.DeepEqual(a.resp.Labels, want) {
		t.Errorf("the request in flight at SIGTERM: labels %v, want %v", a.resp.Labels, want)
	}
	err = p.wait()
	if err != nil || p.cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("trellis serve after SIGTERM: %v (exit %d)\n%s", err, p.cmd.ProcessState.ExitCode(), p.stderr)
	}
	if !strings.Contains(p.stderr.String(), `"message":"drained"`) {
		t.Errorf("no drained line in the log:\n%s", p.stderr)
	}
}

// TestServeUsage: mistakes in the command line are usage errors (exit 2),
// a model that cannot be loaded, or a pipeline whose model reads a column
// no earlier one labels, a failure (exit 1) naming it.
func TestServeUsage(t *testing.T) {
	modelPath := filepath.Join(sharedRun(t, quickstart), "models", "hmm.model")
	chunker := filepath.Join(sharedRun(t, "testdata/tag-pos.hcl"), "models", "hmm.model")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"serve"}, exitUsage, "serve needs at least one --model"},
		{[]string{"serve", "--model", "=x"}, exitUsage, "want NAME=PATH"},
		{[]string{"serve", "--model", modelPath, "extra"}, exitUsage, "serve takes no arguments"},
		{[]string{"serve", "--model", modelPath, "--concurrency", "0"}, exitUsage, "must be at least 1"},
		{[]string{"serve", "--model", modelPath, "--max-nbest", "0"}, exitUsage, "--max-nbest must be at least 1"},
		{[]string{"serve", "--model", modelPath, "--read-timeout", "0s"}, exitUsage, "timeouts must be positive"},
		{[]string{"serve", "--model", "a=" + modelPath, "--model", "a=" + modelPath}, exitUsage, `model name "a" given twice`},
		{[]string{"serve", "--model", "a/b=" + modelPath}, exitUsage, `model name "a/b"`},
		{[]string{"serve", "--model", "bad name=" + modelPath}, exitUsage, `model name "bad name"`},
		{[]string{"serve", "--model", "m=" + filepath.Join(t.TempDir(), "none.model")}, exitFailure, `model "m"`},
		{[]string{"serve", "--model", "p=" + chunker + "+" + modelPath}, exitFailure, chunker + ` reads the column "pos"`},
		{[]string{"serve", "--model", "m=" + modelPath, "--addr", "256.0.0.1:1"}, exitFailure, "256.0.0.1"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, stderr := trellis(t, "", tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, want %d; stderr:\n%s\nwant it to contain %q", code, tc.code, stderr, tc.want)
			}
		})
	}
}

// TestServeModelFlag: --model NAME=PATH serves one model, NAME=A+B a
// pipeline (shipped names and paths alike), PATH one named after its
// file; a pipeline without a name or with an empty part is a usage error.
func TestServeModelFlag(t *testing.T) {
	got, err := modelFiles([]string{"chunk=en-xpos+runs/x/models/crf.model", "upos=en-upos", "runs/q/models/hmm.model", "three=a+b+c"})
	if err != nil {
		t.Fatal(err)
	}
	want := []serve.ModelFile{
		{Name: "chunk", Path: "en-xpos", Then: []string{"runs/x/models/crf.model"}},
		{Name: "upos", Path: "en-upos"},
		{Name: "hmm", Path: "runs/q/models/hmm.model"},
		{Name: "three", Path: "a", Then: []string{"b", "c"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("modelFiles: %+v, want %+v", got, want)
	}
	// A file whose name holds "+" is one model, not a pipeline.
	plus := filepath.Join(t.TempDir(), "c++.model")
	if err := os.WriteFile(plus, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := modelFiles([]string{"c=" + plus}); err != nil || got[0].Path != plus || got[0].Then != nil {
		t.Errorf("a path with +: %+v, %v", got, err)
	}
	for _, tc := range []struct{ arg, want string }{
		{"en-xpos+crf.model", "a pipeline needs a name: NAME=en-xpos+crf.model"},
		{"chunk=en-xpos+", "want NAME=PATH, or NAME=PATH+PATH..."},
		{"chunk=+crf.model", "want NAME=PATH, or NAME=PATH+PATH..."},
		{"chunk=a++b", "want NAME=PATH, or NAME=PATH+PATH..."},
		{"=a+b", "want NAME=PATH"},
	} {
		_, err := modelFiles([]string{tc.arg})
		var ue *usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--model %s: %v, want a usage error with %q", tc.arg, err, tc.want)
		}
	}
}
