package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocumentFeaturesEndToEnd runs a spec with only the document
// template (so that its features decide the labels) on
// the UD sample (CoNLL-U "# newdoc"; the 400 test sentences are more than
// a tagging batch), then tags the test file with the saved model: the
// labels equal the run's predictions (the run tags in batches of whole
// documents too), and the best n-best path, collected in batches of its
// own, agrees with plain tagging; so does tagging document by document.
func TestDocumentFeaturesEndToEnd(t *testing.T) {
	sample, err := filepath.Abs("../../specs/data/ud-ewt-sample")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	spec := filepath.Join(tmp, "doc.hcl")
	src := `experiment "doc" { seed = 1 }
corpus "train" {
  path   = "` + sample + `/train.conllu"
  format = "conllu"
}
corpus "test" {
  path   = "` + sample + `/test.conllu"
  format = "conllu"
}
labels {
  column = "upos"
  scheme = "none"
}
features {
  document "doc" {
    column = "form"
  }
  transition "trans" {}
}
learner "perceptron" {
  type   = "perceptron"
  epochs = 3
}
evaluation {
  train = "train"
  test  = "test"
}
`
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "out")
	mustRun(t, "", "run", spec, "--out", dir)
	model := filepath.Join(dir, "models", "perceptron.model")
	want := string(readFile(t, filepath.Join(dir, "predictions", "perceptron.txt")))
	got, _ := mustRun(t, "", "tag", "--model", model, ewtTest)
	if got != want {
		t.Fatalf("tag output (%d bytes) differs from the run's predictions (%d bytes)", len(got), len(want))
	}
	// Tagging the documents one by one, each as its own input, gives the
	// same labels: nothing was cut, and no document saw another.
	input := string(readFile(t, ewtTest))
	var each strings.Builder
	docs := strings.Split(input, "# newdoc")
	for k, doc := range docs {
		if k > 0 {
			doc = "# newdoc" + doc
		}
		if strings.TrimSpace(doc) == "" {
			continue
		}
		out, _ := mustRun(t, doc, "tag", "--model", model)
		each.WriteString(out)
	}
	if len(docs) < 10 || each.String() != got {
		t.Errorf("tagging %d documents one by one differs from tagging the file", len(docs))
	}
	inspect, _ := mustRun(t, "", "inspect", model, "--top", "1000")
	if !strings.Contains(inspect, "doc/") {
		t.Error("the model has no document attributes among its top features")
	}
	// --marginals takes the detailed path, which collects its own batches.
	ranked, _ := mustRun(t, "", "tag", "--model", model, "--marginals", ewtTest)
	var best []string
	for _, line := range strings.Split(ranked, "\n") {
		if strings.HasPrefix(line, "# rank=") {
			continue
		}
		if strings.Count(line, "\t") == 11 {
			// A token's ten CoNLL-U columns, label, marginal: drop the
			// marginal (multiword-token lines have none).
			line = line[:strings.LastIndexByte(line, '\t')]
		}
		best = append(best, line)
	}
	if strings.Join(best, "\n") != got {
		g := strings.Split(got, "\n")
		for i := range min(len(g), len(best)) {
			if g[i] != best[i] {
				t.Errorf("the best path with marginals differs from plain tagging at line %d:\n%q\n%q", i+1, best[i], g[i])
				break
			}
		}
	}
}
