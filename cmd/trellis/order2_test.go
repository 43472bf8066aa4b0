package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// order2Spec is the tiny chunking spec made second order, with a CRF (and
// an input-conditioned transition template beside the trigrams) and an
// averaged perceptron.
func order2Spec(t *testing.T, learners string) string {
	src := string(readFile(t, chunkSpec))
	src = strings.Replace(src, `  transition "trans" {}`, "  emission \"pb\" {\n    column = \"pos\"\n    labels = \"bigram\"\n  }\n  transition \"trans\" {\n    order = 2\n  }", 1)
	src = strings.Replace(src, "learner \"hmm\" {\n  type = \"hmm\"\n}\n", learners, 1)
	if !strings.Contains(src, "order = 2") || !strings.Contains(src, learners) {
		t.Fatal("the chunk spec changed: the second-order spec was not built")
	}
	return src
}

const order2Learners = `learner "crf" {
  type = "crf"
}

learner "perceptron" {
  type = "perceptron"
}
`

// TestSecondOrder trains second-order models from a spec through the CLI
// on the tiny chunking corpus: with 1 and 2 threads the models and
// predictions are the same bytes; the model files are format version 3;
// `trellis tag` with a saved model reproduces the run's predictions;
// n-best lists start with the tagged labels and give distinct labellings
// whose probabilities sum to at most 1; marginals are probabilities;
// `trellis explain` gives the tagged labels and token scores that add up
// to the path's, trigrams included; greedy decoding is refused.
func TestSecondOrder(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"spec.hcl": []byte(order2Spec(t, order2Learners)), "chunk-train.txt": readFile(t, "testdata/chunk-train.txt"), "chunk-test.txt": readFile(t, chunkTest),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := filepath.Join(dir, "spec.hcl")
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	mustRun(t, "", "run", spec, "--out", a, "--threads", "1")
	mustRun(t, "", "run", spec, "--out", b, "--threads", "2")
	for _, l := range []string{"crf", "perceptron"} {
		for _, f := range []string{filepath.Join("models", l+".model"), filepath.Join("predictions", l+".txt")} {
			if !bytes.Equal(readFile(t, filepath.Join(a, f)), readFile(t, filepath.Join(b, f))) {
				t.Errorf("%s differs between --threads 1 and 2", f)
			}
		}
		model := filepath.Join(a, "models", l+".model")
		if v := binary.LittleEndian.Uint32(readFile(t, model)[8:]); v != 3 {
			t.Errorf("%s: model file format version %d, want 3", l, v)
		}
		tagged, _ := mustRun(t, "", "tag", "--model", model, chunkTest)
		if want := string(readFile(t, filepath.Join(a, "predictions", l+".txt"))); tagged != want {
			t.Fatalf("%s: tag output (%d bytes) differs from the run's predictions (%d bytes)", l, len(tagged), len(want))
		}
		t.Run(l+"/explain", func(t *testing.T) { checkOrder2Explain(t, model, tagged) })
	}
	model := filepath.Join(a, "models", "crf.model")
	tagged, _ := mustRun(t, "", "tag", "--model", model, chunkTest)
	t.Run("n-best", func(t *testing.T) { checkNBestJSON(t, model) })
	t.Run("marginals", func(t *testing.T) {
		out, _ := mustRun(t, "", "tag", "--model", model, "--marginals", chunkTest)
		marg := regexp.MustCompile(`\s([0-9.e-]+)$`)
		n := 0
		for _, line := range strings.Split(out, "\n") {
			if m := marg.FindStringSubmatch(line); m != nil {
				p, _ := strconv.ParseFloat(m[1], 64)
				if !(p > 0 && p <= 1+1e-12) || math.IsNaN(p) {
					t.Fatalf("marginal %v in %q", p, line)
				}
				n++
			}
		}
		if n == 0 {
			t.Fatalf("no marginals in:\n%s", out)
		}
	})
	t.Run("posterior", func(t *testing.T) {
		out, _ := mustRun(t, "", "tag", "--model", model, "--decode", "posterior", chunkTest)
		if got, want := strings.Count(out, "\n"), strings.Count(tagged, "\n"); got != want {
			t.Fatalf("posterior output has %d lines, Viterbi's %d", got, want)
		}
	})
	t.Run("greedy refused", func(t *testing.T) {
		code, _, stderr := trellis(t, "", "tag", "--model", model, "--decode", "greedy", chunkTest)
		if code == 0 || !strings.Contains(stderr, "second-order") {
			t.Fatalf("exit %d, stderr %q; want a refusal naming the second-order model", code, stderr)
		}
	})
}

// checkOrder2Explain checks `trellis explain --json` on a second-order
// model: the labels are tag's, and each sentence's token scores add up to
// its score, each token after the first carrying its trigram.
func checkOrder2Explain(t *testing.T, model, tagged string) {
	out, _ := mustRun(t, "", "explain", "--model", model, "--json", chunkTest)
	var labels []string
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var ex struct {
			Labels []string `json:"labels"`
			Score  float64  `json:"score"`
			Tokens []struct {
				Score       float64  `json:"score"`
				Trigram     *float64 `json:"trigram"`
				StopTrigram *float64 `json:"stop_trigram"`
			} `json:"tokens"`
		}
		if err := dec.Decode(&ex); err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for i, tok := range ex.Tokens {
			sum += tok.Score
			if (tok.Trigram != nil) != (i > 0) || (tok.StopTrigram != nil) != (i == len(ex.Tokens)-1) {
				t.Fatalf("token %d of %d: trigram %v, stop trigram %v", i, len(ex.Tokens), tok.Trigram, tok.StopTrigram)
			}
		}
		if math.Abs(sum-ex.Score) > 1e-9*math.Max(1, math.Abs(ex.Score)) {
			t.Fatalf("token scores sum to %v, the path scores %v", sum, ex.Score)
		}
		labels = append(labels, ex.Labels...)
	}
	var want []string
	for _, line := range strings.Split(tagged, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			want = append(want, f[len(f)-1])
		}
	}
	if strings.Join(labels, " ") != strings.Join(want, " ") {
		t.Errorf("explain's labels differ from tag's")
	}
}

// checkNBestJSON checks `trellis tag --nbest 3 --output json` with model
// on the tiny chunking test: each sentence's list starts with its tagged
// labels and holds distinct labellings whose probabilities are in (0, 1]
// and sum to at most 1.
func checkNBestJSON(t *testing.T, model string) {
	out, _ := mustRun(t, "", "tag", "--model", model, "--nbest", "3", "--output", "json", chunkTest)
	dec := json.NewDecoder(strings.NewReader(out))
	n := 0
	for ; dec.More(); n++ {
		var sent struct {
			Labels []string `json:"labels"`
			NBest  []struct {
				Labels      []string `json:"labels"`
				Probability float64  `json:"probability"`
			} `json:"nbest"`
		}
		if err := dec.Decode(&sent); err != nil {
			t.Fatal(err)
		}
		if len(sent.NBest) == 0 || !slices.Equal(sent.NBest[0].Labels, sent.Labels) {
			t.Fatalf("sentence %d: best of the n-best differs from the tagged labels", n)
		}
		sum := 0.0
		for r, p := range sent.NBest {
			if !(p.Probability > 0 && p.Probability <= 1) {
				t.Fatalf("sentence %d rank %d: probability %v", n, r+1, p.Probability)
			}
			for _, q := range sent.NBest[:r] {
				if slices.Equal(q.Labels, p.Labels) {
					t.Fatalf("sentence %d: labelling %v repeated", n, p.Labels)
				}
			}
			sum += p.Probability
		}
		if sum > 1+1e-9 {
			t.Fatalf("sentence %d: probabilities sum to %v", n, sum)
		}
	}
	if n == 0 {
		t.Fatalf("no sentences in:\n%s", out)
	}
}

// TestSecondOrderRefused: a learner that cannot train a second-order
// model, or one that would decode it with greedy or beam search, is a
// spec error placed at the transition template's order.
func TestSecondOrderRefused(t *testing.T) {
	for _, c := range []struct {
		name, learners, want string
	}{
		{"hmm", "learner \"hmm\" {\n  type = \"hmm\"\n}\n", "cannot train"},
		{"greedy", "learner \"p\" {\n  type   = \"perceptron\"\n  decode = \"greedy\"\n}\n", "first-order scores only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			src := order2Spec(t, c.learners)
			spec := filepath.Join(dir, "spec.hcl")
			if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			line := 1 + strings.Count(src[:strings.Index(src, "order = 2")], "\n")
			code, _, stderr := trellis(t, "", "validate", spec)
			if code != 2 || !strings.Contains(stderr, "spec.hcl:"+strconv.Itoa(line)+":") || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit 2 and a diagnostic at line %d saying %q", code, stderr, line, c.want)
			}
		})
	}
}

// TestSecondOrderWithoutPath tags sentences that a second-order model has
// no path through: trained on sentences cut to two tokens, its seen
// trigrams never continue past a second token. Every way of tagging —
// Viterbi, n-best, posterior with marginals, explain, with and without
// the scheme's constraints — answers for every token from the first-order
// lattice of the same scores, and none fails or prints a partial sentence.
func TestSecondOrderWithoutPath(t *testing.T) {
	dir := t.TempDir()
	var short strings.Builder
	for _, sent := range strings.Split(strings.TrimSpace(string(readFile(t, "testdata/chunk-train.txt"))), "\n\n") {
		lines := strings.Split(sent, "\n")
		short.WriteString(strings.Join(lines[:min(2, len(lines))], "\n") + "\n\n")
	}
	for name, data := range map[string][]byte{
		"spec.hcl": []byte(order2Spec(t, order2Learners)), "chunk-train.txt": []byte(short.String()), "chunk-test.txt": readFile(t, chunkTest),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "run")
	mustRun(t, "", "run", filepath.Join(dir, "spec.hcl"), "--out", out)
	tokens := 0
	for _, line := range strings.Split(string(readFile(t, chunkTest)), "\n") {
		if strings.TrimSpace(line) != "" {
			tokens++
		}
	}
	for _, l := range []string{"crf", "perceptron"} {
		model := filepath.Join(out, "models", l+".model")
		for _, args := range [][]string{
			{"tag"}, {"tag", "--constrained", "off"}, {"tag", "--nbest", "2"}, {"tag", "--decode", "posterior", "--marginals"},
			{"tag", "--decode", "posterior", "--constrained", "off"}, {"explain"},
		} {
			t.Run(l+"/"+strings.Join(args, " "), func(t *testing.T) {
				stdout, _ := mustRun(t, "", append(append(args, "--model", model), chunkTest)...)
				if args[0] == "explain" {
					return
				}
				labelled := 0
				for _, line := range strings.Split(stdout, "\n") {
					if f := strings.Fields(line); len(f) >= 4 {
						labelled++
					}
				}
				if labelled != tokens {
					t.Fatalf("%d of %d tokens labelled:\n%s", labelled, tokens, stdout)
				}
			})
		}
	}
}
