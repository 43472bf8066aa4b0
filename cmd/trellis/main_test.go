package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

const (
	quickstart = "../../specs/quickstart.hcl"
	ewtTest    = "../../specs/data/ud-ewt-sample/test.conllu"
	chunkSpec  = "testdata/chunk.hcl"
	chunkTest  = "testdata/chunk-test.txt"
	badSpec    = "testdata/bad.hcl"
)

// trellis runs the command in-process.
func trellis(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = realMain(args, strings.NewReader(stdin), &out, &errb)
	if strings.Contains(errb.String(), "goroutine ") || strings.Contains(errb.String(), "panic:") {
		t.Errorf("trellis %v panicked:\n%s", args, errb.String())
	}
	return code, out.String(), errb.String()
}

// mustRun runs trellis and fails the test unless it exits 0.
func mustRun(t *testing.T, stdin string, args ...string) (stdout, stderr string) {
	t.Helper()
	code, stdout, stderr := trellis(t, stdin, args...)
	if code != exitOK {
		t.Fatalf("trellis %s: exit %d\nstderr:\n%s", strings.Join(args, " "), code, stderr)
	}
	return stdout, stderr
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it)\n--- got ---\n%s--- want ---\n%s", path, got, want)
	}
}

// runs holds the run directories shared by the tests, made once.
var runs struct {
	sync.Mutex
	dirs map[string]string
	root string
}

// sharedRun runs `trellis run SPEC --learner hmm` once per spec and returns
// its run directory and stdout.
func sharedRun(t *testing.T, specPath string) string {
	t.Helper()
	runs.Lock()
	defer runs.Unlock()
	if dir, ok := runs.dirs[specPath]; ok {
		return dir
	}
	dir := filepath.Join(runs.root, fmt.Sprintf("run%d", len(runs.dirs)))
	mustRun(t, "", "run", specPath, "--out", dir, "--learner", "hmm")
	runs.dirs[specPath] = dir
	return dir
}

func TestMain(m *testing.M) {
	flag.Parse()
	root, err := os.MkdirTemp("", "trellis-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	runs.root, runs.dirs = root, map[string]string{}
	code := m.Run()
	os.RemoveAll(root)
	os.Exit(code)
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func lines(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\n")
	return strings.Split(s, "\n")
}

var conlluSpecialLine = regexp.MustCompile(`^(#|\d+-\d+\t|\d+\.\d+\t)`)

func TestRunQuickstart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	stdout, stderr := mustRun(t, "", "run", quickstart, "--out", dir, "--learner", "hmm")

	t.Run("metrics.json", func(t *testing.T) {
		var metrics map[string]struct {
			Accuracy *float64 `json:"accuracy"`
			Tokens   int      `json:"tokens"`
		}
		if err := json.Unmarshal(readFile(t, filepath.Join(dir, "metrics.json")), &metrics); err != nil {
			t.Fatal(err)
		}
		if len(metrics) != 1 {
			t.Errorf("metrics for %d learners, want 1 (hmm)", len(metrics))
		}
		m, ok := metrics["hmm"]
		if !ok || m.Accuracy == nil {
			t.Fatalf("no accuracy for hmm in metrics.json: %+v", metrics)
		}
		if a := *m.Accuracy; !(a > 0.5 && a <= 1) {
			t.Errorf("hmm accuracy %v not in (0.5, 1]", a)
		}
		if m.Tokens == 0 {
			t.Errorf("metrics count no tokens")
		}
	})

	t.Run("manifest.json", func(t *testing.T) {
		var manifest map[string]any
		if err := json.Unmarshal(readFile(t, filepath.Join(dir, "manifest.json")), &manifest); err != nil {
			t.Fatal(err)
		}
		if manifest["experiment"] != "quickstart" {
			t.Errorf("manifest experiment = %v", manifest["experiment"])
		}
		for _, k := range []string{"spec_sha256", "spec_source", "data_sha256", "learners", "command"} {
			if _, ok := manifest[k]; !ok {
				t.Errorf("manifest lacks %q", k)
			}
		}
	})

	t.Run("model", func(t *testing.T) {
		st, err := os.Stat(filepath.Join(dir, "models", "hmm.model"))
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() == 0 {
			t.Errorf("empty model file")
		}
	})

	t.Run("predictions", func(t *testing.T) {
		gold := lines(readFile(t, ewtTest))
		pred := lines(readFile(t, filepath.Join(dir, "predictions", "hmm.txt")))
		if len(pred) != len(gold) {
			t.Fatalf("predictions have %d lines, test file %d", len(pred), len(gold))
		}
		tokens := 0
		for i := range gold {
			g, p := gold[i], pred[i]
			switch {
			case g == "" || conlluSpecialLine.MatchString(g):
				// Blank lines, comments, multiword and empty-node lines
				// carry no prediction.
				if p != g {
					t.Fatalf("line %d: %q became %q", i+1, g, p)
				}
			default:
				label, ok := strings.CutPrefix(p, g+"\t")
				if !ok || label == "" || strings.Contains(label, "\t") {
					t.Fatalf("line %d: %q is not %q plus one field", i+1, p, g)
				}
				tokens++
			}
		}
		if tokens == 0 {
			t.Errorf("no token lines")
		}
	})

	t.Run("stdout is the table, stderr the logs", func(t *testing.T) {
		if !strings.Contains(stdout, "accuracy") || !strings.Contains(stdout, "hmm") {
			t.Errorf("stdout lacks the results table:\n%s", stdout)
		}
		if strings.Contains(stdout, `"level"`) || strings.Contains(stdout, "{") {
			t.Errorf("stdout contains log lines:\n%s", stdout)
		}
		if !strings.Contains(stderr, `"level":"info"`) {
			t.Errorf("stderr has no (JSON) log lines:\n%s", stderr)
		}
		if strings.Contains(stderr, "IV acc") {
			t.Errorf("the table went to stderr:\n%s", stderr)
		}
		// Every stderr line is a JSON log record when stderr is not a terminal.
		for _, l := range lines([]byte(stderr)) {
			if !json.Valid([]byte(l)) {
				t.Errorf("stderr line is not a JSON log record: %q", l)
			}
		}
	})

	t.Run("log numbers are rounded", func(t *testing.T) {
		floats := 0
		for _, l := range lines([]byte(stderr)) {
			for _, num := range logNumbers(t, l) {
				if strings.ContainsAny(num, ".eE") {
					floats++
				}
				if d := significantDigits(num); d > logDigits {
					t.Errorf("%s has %d significant digits in %s", num, d, l)
				}
			}
		}
		if floats == 0 {
			t.Errorf("no number with a fraction in the logs to check:\n%s", stderr)
		}
	})
}

// logNumbers returns the numbers of a JSON log record, as written.
func logNumbers(t *testing.T, record string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(record))
	dec.UseNumber()
	var nums []string
	for {
		tok, err := dec.Token()
		if err != nil {
			return nums
		}
		if n, ok := tok.(json.Number); ok {
			nums = append(nums, string(n))
		}
	}
}

// significantDigits counts the digits of a number's mantissa after its
// leading zeros ("0.00120" has 3).
func significantDigits(num string) int {
	mantissa, _, _ := strings.Cut(strings.ToLower(num), "e")
	digits := strings.TrimLeft(strings.NewReplacer("-", "", ".", "").Replace(mantissa), "0")
	if !strings.Contains(mantissa, ".") {
		digits = strings.TrimRight(digits, "0") // 1200000: two
	}
	return len(digits)
}

// TestRoundNumbers: log records keep their integers and strings, and
// their other numbers to logDigits significant digits.
func TestRoundNumbers(t *testing.T) {
	for in, want := range map[string]string{
		`{"accuracy":0.8862807295796986,"tokens":32997}`:           `{"accuracy":0.886281,"tokens":32997}`,
		`{"loss":73462.36595719944,"rate":243932.20100818088}`:     `{"loss":73462.4,"rate":243932}`,
		`{"loss":1234567.891,"eta":-0.063669078}`:                  `{"loss":1234568,"eta":-0.0636691}`,
		`{"c2":0.1,"w":[1.5,2e-9,1.23456789e+22],"x":1e-7}`:        `{"c2":0.1,"w":[1.5,2e-9,1.23457e+22],"x":1e-7}`,
		`{"dev":0.9999996,"f":0.5000001}`:                          `{"dev":1,"f":0.5}`,
		`{"message":"took 0.123456789 s \"x\" 1.23456789","n":-3}`: `{"message":"took 0.123456789 s \"x\" 1.23456789","n":-3}`,
	} {
		if got := string(roundNumbers([]byte(in + "\n"))); got != want+"\n" {
			t.Errorf("roundNumbers(%s)\n got %s\nwant %s", in, got, want)
		}
	}
}

func TestRunReproducible(t *testing.T) {
	tests := []struct {
		name       string
		spec       string
		argsA      []string
		argsB      []string
		learner    string
		skipReason string
	}{
		{name: "quickstart same flags", spec: quickstart, learner: "hmm",
			argsA: []string{"--learner", "hmm"}, argsB: []string{"--learner", "hmm"}},
		{name: "quickstart threads 1 vs 4", spec: quickstart, learner: "hmm",
			argsA: []string{"--learner", "hmm", "--threads", "1"}, argsB: []string{"--learner", "hmm", "--threads", "4"}},
		{name: "chunk same flags", spec: chunkSpec, learner: "hmm"},
		{name: "quickstart perceptron threads 1 vs 2", spec: quickstart, learner: "perceptron",
			argsA: []string{"--learner", "perceptron", "--threads", "1"}, argsB: []string{"--learner", "perceptron", "--threads", "2"}},
		{name: "quickstart crf threads 1 vs 2", spec: quickstart, learner: "crf",
			argsA: []string{"--learner", "crf", "--threads", "1"}, argsB: []string{"--learner", "crf", "--threads", "2"}},
		// Where the training set lives changes no byte.
		{name: "quickstart perceptron in memory vs on disk", spec: quickstart, learner: "perceptron",
			argsA: []string{"--learner", "perceptron"}, argsB: []string{"--learner", "perceptron", "--dataset", "disk", "--dataset-dir", os.TempDir()}},
		{name: "quickstart crf in memory vs spilt to disk", spec: quickstart, learner: "crf",
			argsA: []string{"--learner", "crf"}, argsB: []string{"--learner", "crf", "--dataset", "auto", "--memory-budget", "1KiB"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
			mustRun(t, "", append([]string{"run", tc.spec, "--out", a}, tc.argsA...)...)
			mustRun(t, "", append([]string{"run", tc.spec, "--out", b}, tc.argsB...)...)
			for _, f := range []string{
				filepath.Join("models", tc.learner+".model"),
				filepath.Join("predictions", tc.learner+".txt"),
			} {
				if !bytes.Equal(readFile(t, filepath.Join(a, f)), readFile(t, filepath.Join(b, f))) {
					t.Errorf("%s differs between the two runs", f)
				}
			}
		})
	}
}

func TestTag(t *testing.T) {
	dir := sharedRun(t, quickstart)
	model := filepath.Join(dir, "models", "hmm.model")
	want := string(readFile(t, filepath.Join(dir, "predictions", "hmm.txt")))
	input := string(readFile(t, ewtTest))
	tests := []struct {
		name  string
		stdin string
		args  []string
	}{
		{"file", "", []string{"tag", "--model", model, ewtTest}},
		{"file before flag", "", []string{"tag", ewtTest, "--model", model}},
		{"stdin", input, []string{"tag", "--model", model}},
		{"stdin with --model=", input, []string{"tag", "--model=" + model}},
		{"3 threads", "", []string{"tag", "--threads", "3", "--model", model, ewtTest}},
		{"2 threads, stdin", input, []string{"tag", "--model", model, "--threads=2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := mustRun(t, tc.stdin, tc.args...)
			if got != want {
				t.Errorf("tag output (%d bytes) differs from the run's predictions (%d bytes)", len(got), len(want))
			}
		})
	}
	t.Run("json, 1 and 4 threads", func(t *testing.T) {
		one, _ := mustRun(t, "", "tag", "--model", model, "--output", "json", ewtTest)
		four, _ := mustRun(t, "", "tag", "--model", model, "--output", "json", "--threads", "4", ewtTest)
		if one != four || !strings.Contains(one, `"labels"`) {
			t.Errorf("--threads 4 json output (%d bytes) differs from --threads 1 (%d bytes)", len(four), len(one))
		}
	})
	if code, _, stderr := trellis(t, "", "tag", "--model", model, "--threads", "0", ewtTest); code != exitUsage || !strings.Contains(stderr, "--threads") {
		t.Errorf("--threads 0: exit %d, stderr %q; want a usage error", code, stderr)
	}
}

// TestTagPlainTextHint: plain text read as the model's corpus format (one
// column where CoNLL-U has ten) fails naming the line, with a hint to use
// --input text; a line of the wrong width that is not plain text gets none.
func TestTagPlainTextHint(t *testing.T) {
	model := filepath.Join(sharedRun(t, quickstart), "models", "hmm.model")
	for _, tc := range []struct {
		name, stdin string
		hint        bool
	}{
		{"plain text", "The cat sat .\n", true},
		{"three columns", "1\tThe\tthe\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := trellis(t, tc.stdin, "tag", "--model", model)
			if code != exitUsage || !strings.Contains(stderr, "<stdin>:1: expected 10 tab-separated columns") {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if got := strings.Contains(stderr, "(plain text? use --input text)"); got != tc.hint {
				t.Errorf("hint given: %v, want %v; stderr %q", got, tc.hint, stderr)
			}
		})
	}
}

func TestTagUnlabelled(t *testing.T) {
	// Input without the label column: tag must still append one field.
	dir := sharedRun(t, chunkSpec)
	model := filepath.Join(dir, "models", "hmm.model")
	in := "the DT\ncat NN\nsees VBZ\nit PRP\n. .\n\n"
	got, _ := mustRun(t, in, "tag", "--model", model)
	gotLines := lines([]byte(strings.TrimRight(got, "\n")))
	inLines := lines([]byte(strings.TrimRight(in, "\n")))
	if len(gotLines) != len(inLines) {
		t.Fatalf("got %d lines, want %d:\n%s", len(gotLines), len(inLines), got)
	}
	for i, l := range inLines {
		label, ok := strings.CutPrefix(gotLines[i], l+" ")
		if !ok || !regexp.MustCompile(`^([BI]-(NP|VP|PP)|O)$`).MatchString(label) {
			t.Errorf("line %d: %q is not %q plus a chunk label", i+1, gotLines[i], l)
		}
	}
}

func TestEvalJSON(t *testing.T) {
	dir := sharedRun(t, quickstart)
	stdout, _ := mustRun(t, "", "eval", "--model", filepath.Join(dir, "models", "hmm.model"), ewtTest, "--json")
	var res struct {
		Accuracy    *float64 `json:"accuracy"`
		Tokens      int      `json:"tokens"`
		IVAccuracy  *float64 `json:"iv_accuracy"`
		OOVAccuracy *float64 `json:"oov_accuracy"`
		OOVTokens   int      `json:"oov_tokens"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("eval --json printed invalid JSON: %v\n%s", err, stdout)
	}
	if res.Accuracy == nil || !(*res.Accuracy > 0.5 && *res.Accuracy <= 1) {
		t.Fatalf("accuracy = %v, want in (0.5, 1]", res.Accuracy)
	}
	var metrics map[string]struct {
		Accuracy    float64 `json:"accuracy"`
		Tokens      int     `json:"tokens"`
		IVAccuracy  float64 `json:"iv_accuracy"`
		OOVAccuracy float64 `json:"oov_accuracy"`
		OOVTokens   int     `json:"oov_tokens"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, "metrics.json")), &metrics); err != nil {
		t.Fatal(err)
	}
	if m := metrics["hmm"]; m.Accuracy != *res.Accuracy || m.Tokens != res.Tokens {
		t.Errorf("eval accuracy %v on %d tokens, run's metrics.json %v on %d", *res.Accuracy, res.Tokens, m.Accuracy, m.Tokens)
	}
	// One definition of out of vocabulary for both (the model's words).
	m := metrics["hmm"]
	if res.IVAccuracy == nil || res.OOVAccuracy == nil || m.IVAccuracy != *res.IVAccuracy || m.OOVAccuracy != *res.OOVAccuracy || m.OOVTokens != res.OOVTokens {
		t.Errorf("eval IV/OOV accuracy %s/%s over %d OOV tokens, run's metrics.json %v/%v over %d",
			ptrString(res.IVAccuracy), ptrString(res.OOVAccuracy), res.OOVTokens, m.IVAccuracy, m.OOVAccuracy, m.OOVTokens)
	}
}

func ptrString(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

// TestEvalGolden checks eval's text report, which (unlike the run table)
// has no timings and so is deterministic.
func TestEvalGolden(t *testing.T) {
	tests := []struct {
		name, spec, data, golden string
	}{
		{"accuracy (quickstart, no spans)", quickstart, ewtTest, "testdata/eval-quickstart.golden"},
		{"conlleval (chunk, iob2)", chunkSpec, chunkTest, "testdata/eval-chunk.golden"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := sharedRun(t, tc.spec)
			stdout, stderr := mustRun(t, "", "eval", "--model", filepath.Join(dir, "models", "hmm.model"), tc.data)
			if strings.Contains(stderr, "accuracy") {
				t.Errorf("results went to stderr:\n%s", stderr)
			}
			golden(t, tc.golden, stdout)
		})
	}
}

// TestExitCodes checks exit codes and where the messages go.
func TestExitCodes(t *testing.T) {
	dir := sharedRun(t, chunkSpec)
	model := filepath.Join(dir, "models", "hmm.model")
	missing := filepath.Join(t.TempDir(), "nope.model")
	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     string // substring; "" means stdout must be empty
		stderr     string // substring
		wantStdout bool
	}{
		{name: "validate good", args: []string{"validate", chunkSpec}, code: 0, stdout: "ok", wantStdout: true},
		{name: "validate quickstart", args: []string{"validate", quickstart}, code: 0, stdout: `experiment "quickstart"`, wantStdout: true},
		{name: "validate broken spec", args: []string{"validate", badSpec}, code: 2,
			stderr: badSpec + `:32:10: error: Unknown learner type; There is no learner type "hmn". Did you mean "hmm"?`},
		{name: "validate broken spec snippet", args: []string{"validate", badSpec}, code: 2, stderr: `   32 |   type = "hmn"`},
		{name: "validate unknown var", args: []string{"validate", quickstart, "--var", "sample_dri=x"}, code: 2, stderr: `did you mean "sample_dir"?`},
		{name: "validate bad var syntax", args: []string{"validate", quickstart, "--var", "novalue"}, code: 2, stderr: "name=value"},
		{name: "validate missing spec", args: []string{"validate", "testdata/nope.hcl"}, code: 2, stderr: "nope.hcl"},
		{name: "validate two specs", args: []string{"validate", chunkSpec, chunkSpec}, code: 2, stderr: "one spec"},
		{name: "run broken spec", args: []string{"run", badSpec, "--out", filepath.Join(t.TempDir(), "x")}, code: 2, stderr: badSpec + ":32:10:"},
		{name: "run unknown learner", args: []string{"run", chunkSpec, "--out", filepath.Join(t.TempDir(), "x"), "--learner", "crf"}, code: 2, stderr: `"crf"`},
		{name: "run bad threads", args: []string{"run", chunkSpec, "--threads", "0"}, code: 2, stderr: "--threads"},
		{name: "run bad dataset", args: []string{"run", chunkSpec, "--dataset", "ssd"}, code: 2, stderr: `--dataset must be memory, disk or auto, got "ssd"`},
		{name: "run bad memory budget", args: []string{"run", chunkSpec, "--dataset", "auto", "--memory-budget", "lots"}, code: 2, stderr: "--memory-budget is a size"},
		{name: "unknown command", args: []string{"trian", chunkSpec}, code: 2, stderr: `unknown command "trian"`},
		{name: "no command", args: nil, code: 2, stderr: "usage"},
		{name: "help", args: []string{"--help"}, code: 0, stdout: "usage", wantStdout: true},
		{name: "bad flag", args: []string{"run", chunkSpec, "--bogus"}, code: 2, stderr: "bogus"},
		{name: "bad flag value", args: []string{"run", chunkSpec, "--threads", "many"}, code: 2, stderr: "threads"},
		{name: "bad log level", args: []string{"--log-level", "loud", "validate", chunkSpec}, code: 2, stderr: "--log-level"},
		{name: "bad log format", args: []string{"validate", chunkSpec, "--log-format=xml"}, code: 2, stderr: "--log-format"},
		{name: "version", args: []string{"version"}, code: 0, stdout: "trellis", wantStdout: true},
		{name: "tag missing model file", args: []string{"tag", "--model", missing, chunkTest}, code: 1, stderr: "nope.model"},
		{name: "eval missing model file", args: []string{"eval", "--model", missing, chunkTest}, code: 1, stderr: "nope.model"},
		{name: "tag without --model", args: []string{"tag", chunkTest}, code: 2, stderr: "--model"},
		{name: "tag missing input", args: []string{"tag", "--model", model, "testdata/nope.txt"}, code: 1, stderr: "nope.txt"},
		{name: "eval without file", args: []string{"eval", "--model", model}, code: 2, stderr: "one labelled file"},
		{name: "eval missing input", args: []string{"eval", "--model", model, "testdata/nope.txt"}, code: 1, stderr: "nope.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := trellis(t, "", tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			if tc.wantStdout {
				if !strings.Contains(stdout, tc.stdout) {
					t.Errorf("stdout lacks %q:\n%s", tc.stdout, stdout)
				}
			} else if code != 0 && stdout != "" {
				t.Errorf("a failing command wrote to stdout:\n%s", stdout)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr)
			}
		})
	}
}

// TestRunFailureWritesNothing: a run rejected before training leaves no
// run directory behind.
func TestRunFailureWritesNothing(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"broken spec", []string{"run", badSpec}},
		{"unknown --var", []string{"run", chunkSpec, "--var", "x=1"}},
		{"unknown learner", []string{"run", chunkSpec, "--learner", "crf"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			code, _, stderr := trellis(t, "", append(tc.args, "--out", out)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d\n%s", code, exitUsage, stderr)
			}
			entries, err := os.ReadDir(out)
			if err == nil && len(entries) > 0 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("--out has %v after a failed run", names)
			} else if err == nil {
				t.Logf("--out exists, empty")
			}
		})
	}
}

func TestCorruptModel(t *testing.T) {
	dir := sharedRun(t, chunkSpec)
	model := readFile(t, filepath.Join(dir, "models", "hmm.model"))
	flipped := bytes.Clone(model)
	flipped[len(flipped)/2] ^= 0x55
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"4 bytes", model[:4]},
		{"header only", model[:min(64, len(model))]},
		{"half", model[:len(model)/2]},
		{"all but one byte", model[:len(model)-1]},
		{"one byte flipped", flipped},
		{"text file", []byte("B-NP I-NP\n")},
	}
	for _, tc := range tests {
		for _, cmd := range []string{"tag", "eval"} {
			t.Run(cmd+" "+tc.name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "bad.model")
				if err := os.WriteFile(path, tc.data, 0o644); err != nil {
					t.Fatal(err)
				}
				code, stdout, stderr := trellis(t, "", cmd, "--model", path, chunkTest)
				if code != exitFailure {
					t.Errorf("exit %d, want %d\nstderr:\n%s", code, exitFailure, stderr)
				}
				if stdout != "" {
					t.Errorf("wrote to stdout:\n%s", stdout)
				}
				if !strings.Contains(stderr, "trellis: error: "+path+": ") {
					t.Errorf("stderr does not name the model file:\n%s", stderr)
				}
				if !regexp.MustCompile(`corrupt|truncated|not a trellis model`).MatchString(stderr) {
					t.Errorf("stderr does not say what is wrong:\n%s", stderr)
				}
			})
		}
	}
}

// TestBinary builds trellis and checks the real process: exit codes, and
// that stdout and stderr are kept apart.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "trellis")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := filepath.Join(t.TempDir(), "run")
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string
		stderr string
	}{
		{"version", []string{"version"}, "", 0, "trellis", ""},
		{"run", []string{"run", chunkSpec, "--out", out}, "", 0, "accuracy", `"message":"run complete"`},
		{"validate good", []string{"validate", chunkSpec}, "", 0, "ok", ""},
		{"validate broken", []string{"validate", badSpec}, "", 2, "", badSpec + ":32:10: error:"},
		{"unknown command", []string{"frobnicate"}, "", 2, "", "unknown command"},
		{"bad flag", []string{"tag", "--nope"}, "", 2, "", "nope"},
		{"missing model", []string{"tag", "--model", filepath.Join(out, "missing.model")}, "", 1, "", "missing.model"},
		{"tag stdin", []string{"tag", "--model", filepath.Join(out, "models", "hmm.model")}, "the DT\ncat NN\n\n", 0, "the DT B-NP\ncat NN I-NP\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			cmd.Stdin = strings.NewReader(tc.stdin)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstderr:\n%s", code, tc.code, stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, stdout.String())
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr.String())
			}
			if tc.code != 0 && stdout.Len() > 0 {
				t.Errorf("failing command wrote to stdout:\n%s", stdout.String())
			}
			if strings.Contains(stdout.String(), `"level"`) {
				t.Errorf("log records on stdout:\n%s", stdout.String())
			}
			sc := bufio.NewScanner(&stderr)
			for sc.Scan() {
				if strings.Contains(sc.Text(), "panic") {
					t.Errorf("panic: %s", sc.Text())
				}
			}
		})
	}
}
