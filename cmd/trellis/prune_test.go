// prune_test.go: `trellis prune` on models of every kind the tiny corpora
// train quickly, each pruned model tagging, listing n-best paths and
// marginals, explaining and evaluating to the unpruned model's bytes.

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// pruneFeatures are the chunk spec's templates made richer, so that
// learners leave weights at zero: the words around, the POS tags and
// suffixes.
const pruneFeatures = `  emission "w" {
    column    = "word"
    offsets   = [-1, 0, 1]
    lowercase = true
  }
  emission "p" {
    column  = "pos"
    offsets = [-1, 0, 1]
  }
  suffix "suf" {
    column  = "word"
    lengths = [1, 2, 3]
  }
  transition "trans" {}`

// pruneLearners are first-order learners: L1 CRF and MEMM (many zero
// weights), the perceptron, a latent CRF and the HMM (whose unknown-value
// attributes have weights, so attributes stay).
const pruneLearners = `learner "crf" {
  type = "crf"
  c1   = 0.5
}
learner "memm" {
  type = "memm"
  c1   = 0.5
}
learner "perceptron" {
  type   = "perceptron"
  epochs = 3
}
learner "latent" {
  type           = "crf"
  hidden_states  = 2
  c1             = 0.2
  max_iterations = 40
}
learner "hmm" {
  type = "hmm"
}
`

// unseenChunk is a corpus of words, POS tags and suffixes the tiny
// training corpus does not have.
const unseenChunk = "Zorblax NNP B-NP\nflimmed VBDX B-VP\nthe DT B-NP\nquick JJ I-NP\nwug NN I-NP\n. . O\n\nqwerty ZZ O\n"

// chunkPruneSpec writes the chunk spec with the templates feats and the
// learners into dir, with its corpora and a test file of the test
// sentences and unseenChunk, and returns the spec's and test file's paths.
func chunkPruneSpec(t *testing.T, dir, feats, learners string) (spec, test string) {
	t.Helper()
	src := string(readFile(t, chunkSpec))
	src = strings.Replace(src, "  emission \"w\" {\n    column    = \"word\"\n    lowercase = true\n  }\n  transition \"trans\" {}", feats, 1)
	src = strings.Replace(src, "learner \"hmm\" {\n  type = \"hmm\"\n}\n", learners, 1)
	if !strings.Contains(src, feats) || !strings.Contains(src, learners) {
		t.Fatal("the chunk spec changed: the pruning spec was not built")
	}
	test = filepath.Join(dir, "test.txt")
	for name, data := range map[string][]byte{
		"spec.hcl": []byte(src), "chunk-train.txt": readFile(t, "testdata/chunk-train.txt"),
		"chunk-test.txt": readFile(t, chunkTest), "test.txt": append(readFile(t, chunkTest), "\n"+unseenChunk...),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "spec.hcl"), test
}

// pruneReport matches `trellis prune`'s figures.
var pruneReport = regexp.MustCompile(`(?m)^attributes: +(\d+) -> (\d+)\nfeatures: +(\d+) -> (\d+)`)

// checkPruned prunes model and checks that the pruned model gives the
// same bytes as model under every command that reads one, on test; that
// pruning it again changes no byte; and returns the attributes and
// features before and after.
func checkPruned(t *testing.T, model, test string, commands [][]string) [4]int {
	t.Helper()
	pruned := strings.TrimSuffix(model, ".model") + ".pruned.model"
	out, _ := mustRun(t, "", "prune", "--model", model, "--out", pruned)
	m := pruneReport.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "bytes:") {
		t.Fatalf("prune printed:\n%s", out)
	}
	var n [4]int
	for i := range n {
		n[i], _ = strconv.Atoi(m[i+1])
	}
	for _, c := range commands {
		args := append(append([]string{c[0], "--model", model}, c[1:]...), test)
		code, want, wantErr := trellis(t, "", args...)
		args[2] = pruned
		gotCode, got, gotErr := trellis(t, "", args...)
		if code != gotCode || strings.ReplaceAll(got, pruned, model) != want || strings.ReplaceAll(gotErr, pruned, model) != wantErr {
			t.Errorf("%s: trellis %s: exit %d, %d bytes out; unpruned: exit %d, %d bytes\nstderr: %s", model, strings.Join(args, " "), gotCode, len(got), code, len(want), gotErr)
		}
	}
	again := pruned + ".again"
	mustRun(t, "", "prune", "--model", pruned, "--out", again)
	if string(readFile(t, again)) != string(readFile(t, pruned)) {
		t.Errorf("%s: pruning the pruned model changed it", model)
	}
	return n
}

// taggingCommands are the commands compared, each followed by its flags.
var taggingCommands = [][]string{
	{"tag"}, {"tag", "--nbest", "3", "--output", "json"}, {"tag", "--marginals"},
	{"explain", "--json", "--top", "0"}, {"explain", "--top", "2"}, {"eval", "--json"},
}

// TestPruneFirstOrder: the first-order learners' models, pruned, tag as
// before; the L1 ones lose most of their attributes, the HMM none.
func TestPruneFirstOrder(t *testing.T) {
	dir := t.TempDir()
	spec, test := chunkPruneSpec(t, dir, pruneFeatures, pruneLearners)
	mustRun(t, "", "run", spec, "--out", filepath.Join(dir, "run"))
	for _, l := range []string{"crf", "memm", "perceptron", "latent", "hmm"} {
		n := checkPruned(t, filepath.Join(dir, "run", "models", l+".model"), test, taggingCommands)
		switch {
		case l == "hmm" && n[1] != n[0]:
			t.Errorf("hmm: attributes %d -> %d; its unknown-value attributes have weights, so all must stay", n[0], n[1])
		case l != "hmm" && l != "latent" && (n[1] >= n[0] || n[3] >= n[2]):
			t.Errorf("%s: attributes %d -> %d, features %d -> %d: nothing pruned", l, n[0], n[1], n[2], n[3])
		}
	}
}

// TestPruneSecondOrder: second-order models with pair features (a
// bigram template), pruned, tag as before.
func TestPruneSecondOrder(t *testing.T) {
	dir := t.TempDir()
	feats := strings.Replace(pruneFeatures, `  transition "trans" {}`,
		"  emission \"pb\" {\n    column = \"pos\"\n    labels = \"bigram\"\n  }\n  transition \"trans\" {\n    order = 2\n  }", 1)
	spec, test := chunkPruneSpec(t, dir, feats, "learner \"crf\" {\n  type = \"crf\"\n  c1   = 0.5\n}\nlearner \"perceptron\" {\n  type = \"perceptron\"\n}\n")
	mustRun(t, "", "run", spec, "--out", filepath.Join(dir, "run"))
	for _, l := range []string{"crf", "perceptron"} {
		model := filepath.Join(dir, "run", "models", l+".model")
		checkPruned(t, model, test, taggingCommands)
		if info, _ := mustRun(t, "", "inspect", strings.TrimSuffix(model, ".model")+".pruned.model"); !strings.Contains(info, "pair features:") {
			t.Errorf("%s: the pruned model has no pair features:\n%s", l, info)
		}
	}
}

// TestPruneTransitionAndStages: a transition model keeps its attribute
// names and tags as before; a two-stage model's first stage is pruned
// too and the pair tags the UD sample as before.
func TestPruneTransitionAndStages(t *testing.T) {
	dir := t.TempDir()
	feats := strings.Replace(pruneFeatures, `  transition "trans" {}`, "  transition \"trans\" {}\n  decisions \"hist\" {\n    previous = 2\n  }", 1)
	spec, test := chunkPruneSpec(t, dir, feats, "learner \"greedy\" {\n  type = \"transition\"\n}\n")
	mustRun(t, "", "run", spec, "--out", filepath.Join(dir, "run"))
	n := checkPruned(t, filepath.Join(dir, "run", "models", "greedy.model"), test, [][]string{{"tag"}, {"eval", "--json"}})
	if n[1] != n[0] {
		t.Errorf("transition model: attributes %d -> %d, want all kept", n[0], n[1])
	}

	sample, err := filepath.Abs("../../specs/data/ud-ewt-sample")
	if err != nil {
		t.Fatal(err)
	}
	staged := filepath.Join(dir, "stages.hcl")
	if err := os.WriteFile(staged, []byte(strings.ReplaceAll(stageSpecSrc, "SAMPLE", sample)), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "", "run", staged, "--out", filepath.Join(dir, "stages"), "--learner", "second")
	model := filepath.Join(dir, "stages", "models", "second.model")
	checkPruned(t, model, ewtTest, taggingCommands)
	out, _ := mustRun(t, "", "prune", "--model", model, "--out", filepath.Join(dir, "second2.model"))
	if !regexp.MustCompile(`stage "pred":\n  attributes: +\d+ -> \d+\n  features: +(\d+) -> (\d+)`).MatchString(out) {
		t.Errorf("no report of the first stage:\n%s", out)
	}
}

// TestPruneUsage: the flags are required, an existing --out is kept (exit
// 2), a missing model is a failure (exit 1).
func TestPruneUsage(t *testing.T) {
	dir := t.TempDir()
	exists := filepath.Join(dir, "exists.model")
	if err := os.WriteFile(exists, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"prune", "--out", filepath.Join(dir, "x")}, exitUsage, "needs --model"},
		{[]string{"prune", "--model", "en-upos"}, exitUsage, "needs --out"},
		{[]string{"prune", "--model", "en-upos", "--out", exists}, exitUsage, "already exists"},
		{[]string{"prune", "--model", filepath.Join(dir, "none.model"), "--out", filepath.Join(dir, "y")}, exitFailure, "no such file"},
	} {
		code, _, stderr := trellis(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("trellis %s: exit %d, stderr %q; want %d, %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.msg)
		}
	}
	if string(readFile(t, exists)) != "keep me" {
		t.Error("an existing --out was overwritten")
	}
}
