package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/rerank"
)

// rerankDocs writes a small NER corpus of documents (CoNLL, word and
// label): each mentions its own person and place several times, with an
// ambiguous word between them.
func rerankDocs(docs, seed int) string {
	var b strings.Builder
	for d := range docs {
		b.WriteString("-DOCSTART- O\n\n")
		per, loc := fmt.Sprintf("Smith%d", (d*7+seed)%5), fmt.Sprintf("Paris%d", (d*3+seed)%4)
		for k := range 3 {
			fmt.Fprintf(&b, "%s B-PER\nvisited O\n%s B-LOC\non O\nday%d O\n\n", per, loc, k)
			fmt.Fprintf(&b, "Mr O\n%s B-PER\nleft O\nJordan B-%s\n\n", per, []string{"PER", "LOC"}[(d+k)%2])
		}
	}
	return b.String()
}

const rerankCLISpec = `experiment "rerank" {
  seed = 2
}
corpus "train" {
  path    = "train.txt"
  format  = "conll"
  columns = ["word", "ner"]
}
corpus "test" {
  path    = "test.txt"
  format  = "conll"
  columns = ["word", "ner"]
}
labels {
  column = "ner"
  scheme = "iob2"
}
features {
  emission "w" {
    column  = "word"
    offsets = [-1, 0, 1]
  }
  transition "trans" {}
}
learner "crf" {
  type = "crf"
  rerank {
    k       = 5
    folds   = 3
    trainer = "maxent"
    c2      = 0.1
  }
}
evaluation {
  train = "train"
  test  = "test"
}
`

// TestRerankEndToEnd runs a reranked learner from a spec with the command
// line and checks that `trellis tag` with its model, serially and with
// threads, prints the run's predictions, that `trellis eval` gives the
// run's F1, that the model carries the reranker (format version 6), and
// that n-best, marginals, explain and another decoding method are refused.
func TestRerankEndToEnd(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"spec.hcl": rerankCLISpec, "train.txt": rerankDocs(9, 0), "test.txt": rerankDocs(4, 1)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := filepath.Join(dir, "run")
	mustRun(t, "", "run", filepath.Join(dir, "spec.hcl"), "--out", run)
	test := filepath.Join(dir, "test.txt")
	path, m := tagsAsRun(t, run, test)
	if m.Reranker == nil || m.Rerank == nil || m.Rerank.K != 5 || m.Version != model.RerankVersion {
		t.Errorf("model: rerank %+v, version %d", m.Rerank, m.Version)
	}
	stdout, _ := mustRun(t, "", "eval", "--model", path, test, "--json")
	var res struct {
		F1 *float64 `json:"f1"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.F1 == nil {
		t.Fatalf("eval --json: %v\n%s", err, stdout)
	}
	var metrics map[string]struct {
		F1     *float64 `json:"f1"`
		Rerank *struct {
			OracleF1 float64 `json:"oracle_f1"`
		} `json:"rerank"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(run, "metrics.json")), &metrics); err != nil {
		t.Fatal(err)
	}
	if f := metrics["crf"].F1; f == nil || *f != *res.F1 || metrics["crf"].Rerank == nil || metrics["crf"].Rerank.OracleF1 < *f {
		t.Errorf("metrics.json F1 %v (rerank %+v), eval F1 %v", f, metrics["crf"].Rerank, *res.F1)
	}
	for _, args := range [][]string{
		{"tag", "--model", path, "--nbest", "2", test},
		{"tag", "--model", path, "--marginals", test},
		{"tag", "--model", path, "--decode", "greedy", test},
		{"explain", "--model", path, test},
	} {
		code, _, stderr := trellis(t, "", args...)
		if code == exitOK || !strings.Contains(stderr, "rerank") {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
}

// TestRerankBySentenceEndToEnd reranks on files without document
// boundaries (one document each) from the command line: folds of whole
// documents are refused with a hint at by = "sentence"; with it, the run
// saves a reranked model whose `trellis tag`, serially and with threads,
// prints the run's predictions.
func TestRerankBySentenceEndToEnd(t *testing.T) {
	dir := t.TempDir()
	strip := func(s string) string { return strings.ReplaceAll(s, "-DOCSTART- O\n\n", "") }
	bySentence := strings.Replace(rerankCLISpec, "folds   = 3", "folds   = 3\n    by      = \"sentence\"", 1)
	for name, data := range map[string]string{"doc.hcl": rerankCLISpec, "sentence.hcl": bySentence,
		"train.txt": strip(rerankDocs(9, 0)), "test.txt": strip(rerankDocs(4, 1))} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, _, stderr := trellis(t, "", "run", filepath.Join(dir, "doc.hcl"), "--out", filepath.Join(dir, "doc"))
	if code == exitOK || !strings.Contains(stderr, "1 documents, fewer than the 3 folds") || !strings.Contains(stderr, `by = "sentence"`) {
		t.Errorf("folds of documents on one document: exit %d, %s", code, stderr)
	}
	run := filepath.Join(dir, "run")
	mustRun(t, "", "run", filepath.Join(dir, "sentence.hcl"), "--out", run)
	_, m := tagsAsRun(t, run, filepath.Join(dir, "test.txt"))
	if m.Reranker == nil || m.Rerank == nil || m.Rerank.Folds != 3 || m.Rerank.By != "sentence" {
		t.Fatalf("model: rerank %+v, reranker %v", m.Rerank, m.Reranker != nil)
	}
	if f := m.Reranker.Settings.Features; f == nil || slices.Contains(f, rerank.GroupDoc) {
		t.Errorf("reranker features %v, want every group but doc", f)
	}
}

// tagsAsRun checks that `trellis tag` of run's crf model on test, with 1
// and 3 threads, prints the run's predictions, and returns the model's
// path and the model.
func tagsAsRun(t *testing.T, run, test string) (string, *model.Model) {
	t.Helper()
	path := filepath.Join(run, "models", "crf.model")
	pred := string(readFile(t, filepath.Join(run, "predictions", "crf.txt")))
	for _, threads := range []string{"1", "3"} {
		if tagged, _ := mustRun(t, "", "tag", "--model", path, "--threads", threads, test); tagged != pred {
			t.Errorf("trellis tag --threads %s differs from the run's predictions:\n%s\nwant\n%s", threads, tagged, pred)
		}
	}
	m, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, m
}
