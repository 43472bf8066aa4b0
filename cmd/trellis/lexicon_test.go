package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLexiconModelIsSelfContained: a segmentation spec with a lexicon
// template trains, and its model tags raw text exactly as the run tagged
// the test set after the word list has been deleted (the model file
// carries the list); a missing list is a spec error at the path, exit 2.
func TestLexiconModelIsSelfContained(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"cws-train.txt", "cws-test.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), readFile(t, filepath.Join("testdata", f)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The word list: the training part's words of two characters or more.
	var words []string
	for _, w := range strings.Fields(string(readFile(t, "testdata/cws-train.txt"))) {
		if len([]rune(w)) > 1 {
			words = append(words, w)
		}
	}
	list := filepath.Join(dir, "words.txt")
	if err := os.WriteFile(list, []byte(strings.Join(words, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := strings.Replace(string(readFile(t, "testdata/cws.hcl")), `transition "trans" {}`,
		"lexicon \"dict\" {\n    column = \"char\"\n    path   = \"words.txt\"\n  }\n  transition \"trans\" {}", 1)
	specPath := filepath.Join(dir, "cws-lexicon.hcl")
	if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	mustRun(t, "", "run", specPath, "--learner", "perceptron", "--out", out)
	if err := os.Remove(list); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(out, "models", "perceptron.model")
	got, _ := mustRun(t, "", "tag", "--model", model, filepath.Join(dir, "cws-test.txt"))
	if want := string(readFile(t, filepath.Join(out, "predictions", "perceptron.txt"))); got != want {
		t.Errorf("tagging without the word list differs from the run's predictions:\n%s\nwant\n%s", got, want)
	}
	inspect, _ := mustRun(t, "", "inspect", model)
	if !strings.Contains(inspect, "dict[0].b=") {
		t.Errorf("inspect shows no lexicon attribute:\n%.2000s", inspect)
	}
	code, _, stderr := trellis(t, "", "run", specPath, "--out", filepath.Join(dir, "run2"))
	if code != exitUsage || !strings.Contains(stderr, "cws-lexicon.hcl:") || !strings.Contains(stderr, "Cannot read the word list") {
		t.Errorf("missing list: exit %d, stderr:\n%s", code, stderr)
	}
}
