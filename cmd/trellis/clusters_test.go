package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClustersCommand: `trellis clusters` writes the same file for any
// thread count, keeps an existing file unless --force, and a spec's
// clusters template reads it (relative to the spec), adds attributes,
// tags as the run did, and a model refuses a changed cluster file.
func TestClustersCommand(t *testing.T) {
	dir := t.TempDir()
	sample := "../../specs/data/ud-ewt-sample/"
	out := filepath.Join(dir, "brown.txt")
	mustRun(t, "", "clusters", "--conllu", sample+"train.conllu", "--clusters", "30", "--min-count", "2", "--threads", "1", "--out", out)
	one := readFile(t, out)
	fields := strings.Split(lines(one)[0], "\t")
	if len(fields) != 3 || strings.Trim(fields[0], "01") != "" {
		t.Fatalf("first line %q: want bitstring<TAB>word<TAB>count", lines(one)[0])
	}
	code, _, stderr := trellis(t, "", "clusters", "--conllu", sample+"train.conllu", "--clusters", "30", "--min-count", "2", "--out", out)
	if code != exitUsage || !strings.Contains(stderr, "already exists") {
		t.Fatalf("existing --out: exit %d, stderr %s", code, stderr)
	}
	mustRun(t, "", "clusters", "--conllu", sample+"train.conllu", "--clusters", "30", "--min-count", "2", "--threads", "2", "--out", out, "--force")
	if two := readFile(t, out); string(two) != string(one) {
		t.Fatal("--threads 2 wrote another file than --threads 1")
	}

	src := string(readFile(t, "../../specs/quickstart.hcl"))
	src = strings.Replace(src, `default     = "data/ud-ewt-sample"`, `default     = "`+mustAbs(t, "../../specs/data/ud-ewt-sample")+`"`, 1)
	block := "clusters \"bc\" {\n    column   = \"form\"\n    path     = \"brown.txt\"\n    offsets  = [-1, 0, 1]\n  }\n  "
	attributes := map[string]float64{}
	var model string
	for _, variant := range []string{"builtin", "clusters"} {
		s := src
		if variant == "clusters" {
			s = strings.Replace(src, `case "case" {`, block+`case "case" {`, 1)
		}
		specPath := filepath.Join(dir, variant+".hcl")
		if err := os.WriteFile(specPath, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		run := filepath.Join(dir, "run-"+variant)
		mustRun(t, "", "run", specPath, "--learner", "hmm", "--out", run)
		var manifest struct{ Attributes float64 }
		if err := json.Unmarshal(readFile(t, filepath.Join(run, "manifest.json")), &manifest); err != nil {
			t.Fatal(err)
		}
		attributes[variant] = manifest.Attributes
		model = filepath.Join(run, "models", "hmm.model")
		tagged, _ := mustRun(t, "", "tag", "--model", model, sample+"test.conllu")
		if pred := string(readFile(t, filepath.Join(run, "predictions", "hmm.txt"))); tagged != pred {
			t.Errorf("%s: trellis tag differs from the run's predictions", variant)
		}
	}
	if attributes["clusters"] <= attributes["builtin"] {
		t.Errorf("the clusters template added no attributes: %v", attributes)
	}

	// The model pins the file: any other content is refused.
	if err := os.WriteFile(out, append([]byte("0\tzzz\t1\n"), one...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = trellis(t, "", "tag", "--model", model, sample+"test.conllu")
	if code != exitFailure || !strings.Contains(stderr, "not the file the model was trained with") {
		t.Fatalf("changed cluster file: exit %d, stderr %s", code, stderr)
	}
	// So does a spec that gives the sha256.
	pinned := strings.Replace(src, `case "case" {`, "clusters \"bc\" {\n    column = \"form\"\n    path   = \"brown.txt\"\n    sha256 = \""+strings.Repeat("0", 64)+"\"\n  }\n  case \"case\" {", 1)
	specPath := filepath.Join(dir, "pinned.hcl")
	if err := os.WriteFile(specPath, []byte(pinned), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = trellis(t, "", "validate", specPath)
	if code != exitUsage || !strings.Contains(stderr, "pinned.hcl:") || !strings.Contains(stderr, "sha256 = ") {
		t.Fatalf("wrong sha256: exit %d, stderr %s", code, stderr)
	}
}
