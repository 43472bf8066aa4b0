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

// latentBlocks are a plain CRF and a latent CRF with two hidden states per
// label, as a spec declares them.
const latentBlocks = `
learner "crf" {
  type = "crf"
}

learner "latent" {
  type          = "crf"
  hidden_states = 2
}

learner "latent_early" {
  type           = "crf"
  hidden_states  = 3
  max_iterations = 3
}
`

// TestLatentCRF runs the latent CRF from a spec through the CLI on the tiny
// chunking corpus: with 1 and 2 threads the model and predictions are the
// same bytes; the model file is format version 2 and records the hidden
// states, while the plain CRF's stays version 1; `trellis tag` with the
// saved model reproduces the run's predictions; n-best probabilities are
// those of distinct labellings (their sum at most 1) and marginals are
// probabilities; `trellis explain` gives the tagged labels and names each
// token's hidden state; posterior decoding runs; labelpath decoding finds a
// labelling at least as probable as Viterbi's.
func TestLatentCRF(t *testing.T) {
	dir := t.TempDir()
	src := string(readFile(t, chunkSpec)) + latentBlocks
	for name, data := range map[string][]byte{
		"spec.hcl": []byte(src), "chunk-train.txt": readFile(t, "testdata/chunk-train.txt"), "chunk-test.txt": readFile(t, chunkTest),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := filepath.Join(dir, "spec.hcl")
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	mustRun(t, "", "run", spec, "--out", a, "--threads", "1", "--learner", "crf", "--learner", "latent")
	mustRun(t, "", "run", spec, "--out", b, "--threads", "2", "--learner", "latent")
	for _, f := range []string{filepath.Join("models", "latent.model"), filepath.Join("predictions", "latent.txt")} {
		if !bytes.Equal(readFile(t, filepath.Join(a, f)), readFile(t, filepath.Join(b, f))) {
			t.Errorf("%s differs between --threads 1 and 2", f)
		}
	}
	model := filepath.Join(a, "models", "latent.model")
	for l, want := range map[string]uint32{"crf": 1, "latent": 2} {
		if v := binary.LittleEndian.Uint32(readFile(t, filepath.Join(a, "models", l+".model"))[8:]); v != want {
			t.Errorf("%s: model file format version %d, want %d", l, v, want)
		}
	}
	out, _ := mustRun(t, "", "inspect", "--json", model)
	var in struct {
		Labels []string `json:"labels"`
		States []string `json:"states"`
	}
	if err := json.Unmarshal([]byte(out), &in); err != nil {
		t.Fatal(err)
	}
	if len(in.States) != 2*len(in.Labels) || in.States[1] != in.Labels[0]+"#1" {
		t.Errorf("inspect: %d states for %d labels (%v)", len(in.States), len(in.Labels), in.States)
	}
	tagged, _ := mustRun(t, "", "tag", "--model", model, chunkTest)
	if want := string(readFile(t, filepath.Join(a, "predictions", "latent.txt"))); tagged != want {
		t.Fatalf("tag output (%d bytes) differs from the run's predictions (%d bytes)", len(tagged), len(want))
	}
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
		// Label marginals summed over states: every token gets one of the
		// model's labels, and the output has tag's layout.
		out, _ := mustRun(t, "", "tag", "--model", model, "--decode", "posterior", chunkTest)
		got, want := strings.Split(out, "\n"), strings.Split(tagged, "\n")
		if len(got) != len(want) {
			t.Fatalf("posterior output has %d lines, Viterbi's %d", len(got), len(want))
		}
		for i, line := range got {
			f, w := strings.Fields(line), strings.Fields(want[i])
			if len(f) != len(w) || (len(f) > 0 && !slices.Contains(in.Labels, f[len(f)-1])) {
				t.Fatalf("line %d: %q", i+1, line)
			}
		}
	})
	t.Run("posterior with marginals", func(t *testing.T) {
		// With --marginals the labels are still posterior decoding's (the
		// n-best search over states must not take over), each with its
		// marginal. A latent CRF stopped after 3 iterations, where
		// posterior and Viterbi disagree, shows the difference.
		mustRun(t, "", "run", spec, "--out", filepath.Join(dir, "early"), "--learner", "latent_early")
		early := filepath.Join(dir, "early", "models", "latent_early.model")
		viterbi, _ := mustRun(t, "", "tag", "--model", early, chunkTest)
		post, _ := mustRun(t, "", "tag", "--model", early, "--decode", "posterior", chunkTest)
		if post == viterbi {
			t.Fatal("posterior and Viterbi decoding agree on every token: the test checks nothing")
		}
		mout, _ := mustRun(t, "", "tag", "--model", early, "--decode", "posterior", "--marginals", chunkTest)
		got, marg := strings.Split(post, "\n"), strings.Split(mout, "\n")
		if len(marg) != len(got) {
			t.Fatalf("--marginals output has %d lines, without %d", len(marg), len(got))
		}
		for i := range got {
			f, m := strings.Fields(got[i]), strings.Fields(marg[i])
			if len(f) > 0 && (len(m) != len(f)+1 || m[len(m)-2] != f[len(f)-1]) {
				t.Fatalf("line %d: %q with --marginals, %q without", i+1, marg[i], got[i])
			}
		}
	})
	t.Run("labelpath", func(t *testing.T) {
		// The most probable labelling: one of the n-best labellings, at
		// least as probable as Viterbi's (the n-best list's first).
		out, _ := mustRun(t, "", "tag", "--model", model, "--decode", "labelpath", "--output", "json", chunkTest)
		nb, _ := mustRun(t, "", "tag", "--model", model, "--nbest", "32", "--output", "json", chunkTest)
		type labelling struct {
			Labels      []string `json:"labels"`
			Probability float64  `json:"probability"`
		}
		var sents []struct {
			Labels []string    `json:"labels"`
			NBest  []labelling `json:"nbest"`
		}
		for _, src := range []string{out, nb} {
			dec := json.NewDecoder(strings.NewReader(src))
			for k := 0; dec.More(); k++ {
				var sent struct {
					Labels []string    `json:"labels"`
					NBest  []labelling `json:"nbest"`
				}
				if err := dec.Decode(&sent); err != nil {
					t.Fatal(err)
				}
				if src == out {
					sents = append(sents, sent)
				} else if k < len(sents) {
					sents[k].NBest = sent.NBest
				}
			}
		}
		if len(sents) == 0 {
			t.Fatal("no sentences tagged")
		}
		for k, s := range sents {
			i := slices.IndexFunc(s.NBest, func(l labelling) bool { return slices.Equal(l.Labels, s.Labels) })
			if i < 0 || s.NBest[i].Probability < s.NBest[0].Probability {
				t.Fatalf("sentence %d: labelpath %v is not among the n-best or less probable than Viterbi's %v", k, s.Labels, s.NBest)
			}
		}
	})
	t.Run("explain", func(t *testing.T) {
		out, _ := mustRun(t, "", "explain", "--model", model, "--json", chunkTest)
		var labels []string
		dec := json.NewDecoder(strings.NewReader(out))
		for dec.More() {
			var ex struct {
				Labels []string `json:"labels"`
				Tokens []struct {
					Label       string `json:"label"`
					HiddenState string `json:"hidden_state"`
				} `json:"tokens"`
			}
			if err := dec.Decode(&ex); err != nil {
				t.Fatal(err)
			}
			for _, tok := range ex.Tokens {
				if !strings.HasPrefix(tok.HiddenState, tok.Label+"#") {
					t.Fatalf("token labelled %s has hidden state %q", tok.Label, tok.HiddenState)
				}
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
	})
}
