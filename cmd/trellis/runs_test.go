package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/rundir"
)

func TestReproduce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "orig")
	mustRun(t, "", "run", quickstart, "--out", dir, "--learner", "hmm", "--learner", "perceptron")
	out, _ := mustRun(t, "", "reproduce", dir, "--threads", "1")
	for _, want := range []string{"models/hmm.model", "models/perceptron.model", "predictions/perceptron.txt", "metrics.json (timings excepted)", "reproduced:"} {
		if !strings.Contains(out, want) {
			t.Errorf("reproduce output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "DIFFERENT") {
		t.Fatalf("an untouched run did not reproduce:\n%s", out)
	}

	// Tamper with one weight byte of the original: reproduce must notice.
	model := filepath.Join(dir, "models", "perceptron.model")
	b := readFile(t, model)
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(model, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := trellis(t, "", "reproduce", dir)
	if code != exitFailure || !strings.Contains(out, "models/perceptron.model") || !strings.Contains(out, "DIFFERENT") {
		t.Fatalf("tampered run: exit %d, stdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
}

func TestCompare(t *testing.T) {
	a := filepath.Join(t.TempDir(), "a")
	b := filepath.Join(t.TempDir(), "b")
	mustRun(t, "", "run", quickstart, "--out", a, "--learner", "hmm")
	mustRun(t, "", "run", quickstart, "--out", b, "--learner", "perceptron")
	out, _ := mustRun(t, "", "compare", a, b)
	for _, want := range []string{a + ":hmm", b + ":perceptron", "95% CI", "pairwise significance", a + ":hmm vs " + b + ":perceptron"} {
		if !strings.Contains(out, want) {
			t.Errorf("compare output lacks %q:\n%s", want, out)
		}
	}
	// A run on other test data is refused.
	other := filepath.Join(t.TempDir(), "other")
	mustRun(t, "", "run", chunkSpec, "--out", other, "--learner", "hmm")
	code, _, stderr := trellis(t, "", "compare", a, other)
	if code != exitFailure || !strings.Contains(stderr, "different data") {
		t.Fatalf("compare across test sets: exit %d, stderr:\n%s", code, stderr)
	}
	if code, _, _ := trellis(t, "", "compare"); code != exitUsage {
		t.Fatalf("compare without directories: exit %d, want %d", code, exitUsage)
	}
}

func TestAblation(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "abl")
	out, _ := mustRun(t, "", "run", quickstart, "--out", dir, "--ablate", "hmm")
	for _, want := range []string{"feature ablation, learner hmm", "all", "without w", "without suf", "without trans"} {
		if !strings.Contains(out, want) {
			t.Errorf("ablation output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ablation.json")); err != nil {
		t.Fatal(err)
	}
	// Removing the word template must hurt the HMM: the table is not
	// decoration.
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "without w ") && !strings.Contains(line, " -") {
			t.Fatalf("removing the word template did not lower accuracy: %q", line)
		}
	}
	if code, _, _ := trellis(t, "", "run", quickstart, "--out", t.TempDir(), "--ablate", "nope"); code != exitUsage {
		t.Fatalf("--ablate of an unknown learner: exit %d, want %d", code, exitUsage)
	}
}

func TestCrossValidation(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cv")
	out, _ := mustRun(t, "", "run", "testdata/chunk-cv.hcl", "--out", dir)
	if !strings.Contains(out, "3-fold cross-validation") || !strings.Contains(out, "±") {
		t.Fatalf("cross-validation output:\n%s", out)
	}
	for f := 0; f < 3; f++ {
		if _, err := os.Stat(filepath.Join(dir, "folds", fmt.Sprint(f), "metrics.json")); err != nil {
			t.Fatalf("fold %d: %v", f, err)
		}
	}
	// The folds partition the corpus: their test sets add up to it.
	total := 0
	for f := 0; f < 3; f++ {
		total += len(readEvalSentences(t, filepath.Join(dir, "folds", fmt.Sprint(f), "eval", "hmm.tsv")))
	}
	if want := len(readEvalSentences(t, "testdata/chunk-train.txt")); total != want {
		t.Fatalf("fold test sets hold %d sentences, the corpus %d", total, want)
	}
	again := filepath.Join(t.TempDir(), "cv2")
	out2, _ := mustRun(t, "", "run", "testdata/chunk-cv.hcl", "--out", again)
	strip := func(s string) string { // drop the timing column
		var b strings.Builder
		for _, l := range strings.Split(s, "\n") {
			f := strings.Fields(l)
			if len(f) > 5 && (f[0] == "hmm" || f[0] == "perceptron") {
				l = strings.Join(append(f[:4:4], f[5:]...), " ")
			}
			b.WriteString(l + "\n")
		}
		return b.String()
	}
	if strip(out) != strip(out2) {
		t.Fatalf("cross-validation is not reproducible:\n%s\n%s", out, out2)
	}
}

// readEvalSentences counts blank-line-separated blocks.
func readEvalSentences(t *testing.T, path string) []string {
	t.Helper()
	var blocks []string
	for _, b := range strings.Split(strings.TrimSpace(string(readFile(t, path))), "\n\n") {
		if strings.TrimSpace(b) != "" {
			blocks = append(blocks, b)
		}
	}
	return blocks
}

// TestProgress: --progress on draws status lines (count, rate, ETA) for
// extraction, training and tagging between the log lines, which stay
// whole JSON objects; without a terminal (auto) nothing is drawn.
func TestProgress(t *testing.T) {
	out := t.TempDir()
	_, stderr := mustRun(t, "", "run", "../../specs/quickstart.hcl", "--learner", "perceptron", "--out", filepath.Join(out, "a"),
		"--progress", "on", "--log-format", "json")
	for _, want := range []string{"\r\x1b[Kextracting features  0/1,500 sentences (0%)", "\r\x1b[Kperceptron  ", "/15,000 sentences", "\r\x1b[Ktagging test with perceptron"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%q", want, stderr)
		}
	}
	// Every log line is a JSON object once the status lines are lifted.
	logLines := 0
	for _, line := range strings.Split(stderr, "\n") {
		if i := strings.LastIndex(line, "\r\x1b[K"); i >= 0 {
			line = line[i+len("\r\x1b[K"):]
		}
		if !strings.HasPrefix(line, "{") {
			continue
		}
		logLines++
		if !json.Valid([]byte(line)) {
			t.Errorf("log line broken by the status line: %q", line)
		}
	}
	if logLines < 5 {
		t.Errorf("%d JSON log lines", logLines)
	}
	_, stderr = mustRun(t, "", "run", "../../specs/quickstart.hcl", "--learner", "hmm", "--out", filepath.Join(out, "b"))
	if strings.Contains(stderr, "\x1b[K") {
		t.Errorf("status lines drawn without a terminal")
	}
	if code, _, stderr := trellis(t, "", "run", "../../specs/quickstart.hcl", "--progress", "sometimes"); code != exitUsage || !strings.Contains(stderr, "--progress") {
		t.Errorf("bad --progress: exit %d: %s", code, stderr)
	}
}

// TestRerunReplacesTheRun reruns into a run directory with fewer learners:
// the folder must then hold the second run only (no model, prediction,
// evaluation or comparison of the first run's extra learner), its report
// must not mention that learner, and reproduce must succeed.
func TestRerunReplacesTheRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	mustRun(t, "", "run", quickstart, "--out", dir, "--learner", "hmm", "--learner", "perceptron")
	if _, err := os.Stat(filepath.Join(dir, "comparisons.json")); err != nil {
		t.Fatalf("the two-learner run has no comparisons: %v", err)
	}
	mustRun(t, "", "run", quickstart, "--out", dir, "--learner", "hmm")
	files, dirs := tree(t, dir)
	want := []string{".trellis-run", "eval/hmm.tsv", "manifest.json", "metrics.json", "models/hmm.model", "predictions/hmm.txt", "report.html", "report.md"}
	if !slices.Equal(files, want) {
		t.Errorf("after the rerun the folder holds %v, want %v", files, want)
	}
	if want := []string{"eval", "models", "predictions"}; !slices.Equal(dirs, want) {
		t.Errorf("folders %v, want %v", dirs, want)
	}
	for _, f := range []string{"report.md", "metrics.json"} { // report.html quotes the spec, which has a perceptron
		if strings.Contains(string(readFile(t, filepath.Join(dir, f))), "perceptron") {
			t.Errorf("%s still mentions the first run's perceptron", f)
		}
	}
	if out, _ := mustRun(t, "", "reproduce", dir); !strings.Contains(out, "reproduced:") {
		t.Errorf("reproduce:\n%s", out)
	}
	if _, err := os.Stat(rundir.PartialPath(dir)); err == nil {
		t.Errorf("the partial folder is left behind")
	}
}
