package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// parseRanked splits `tag --nbest/--marginals` output into per-sentence
// lists of (rank, score, probability, token lines).
type ranked struct {
	rank        int
	score, prob float64
	tokens      []string
}

func parseRanked(t *testing.T, out string) [][]ranked {
	t.Helper()
	var sents [][]ranked
	var cur *ranked
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "# rank="):
			var r ranked
			for _, f := range strings.Fields(line[2:]) {
				k, v, _ := strings.Cut(f, "=")
				x, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatalf("bad field %q in %q", f, line)
				}
				switch k {
				case "rank":
					r.rank = int(x)
				case "score":
					r.score = x
				case "probability":
					r.prob = x
				}
			}
			if r.rank == 1 {
				sents = append(sents, nil)
			}
			sents[len(sents)-1] = append(sents[len(sents)-1], r)
			cur = &sents[len(sents)-1][len(sents[len(sents)-1])-1]
		case line == "":
		default:
			cur.tokens = append(cur.tokens, line)
		}
	}
	return sents
}

func TestTagNBestAndMarginals(t *testing.T) {
	dir := sharedRun(t, chunkSpec)
	model := filepath.Join(dir, "models", "hmm.model")
	plain, _ := mustRun(t, "", "tag", "--model", model, chunkTest)
	plainLines := strings.Split(strings.TrimSpace(plain), "\n")

	out, _ := mustRun(t, "", "tag", "--model", model, "--nbest", "3", "--marginals", chunkTest)
	sents := parseRanked(t, out)
	if len(sents) == 0 {
		t.Fatal("no sentences in n-best output")
	}
	k := 0 // index into the plain output's token lines
	for s, ranks := range sents {
		if len(ranks) == 0 || len(ranks) > 3 {
			t.Fatalf("sentence %d: %d ranks", s, len(ranks))
		}
		total := 0.0
		for r, rk := range ranks {
			if rk.rank != r+1 || rk.prob <= 0 || rk.prob > 1 {
				t.Fatalf("sentence %d rank %d: %+v", s, r+1, rk)
			}
			if r > 0 && (rk.score > ranks[r-1].score || rk.prob > ranks[r-1].prob) {
				t.Fatalf("sentence %d: rank %d scores higher than rank %d", s, r+1, r)
			}
			if len(rk.tokens) != len(ranks[0].tokens) {
				t.Fatalf("sentence %d: ranks have different lengths", s)
			}
			total += rk.prob
		}
		if total > 1+1e-6 {
			t.Fatalf("sentence %d: probabilities of distinct sequences sum to %v > 1", s, total)
		}
		// The best sequence with marginals agrees with plain tagging.
		for _, line := range ranks[0].tokens {
			for plainLines[k] == "" {
				k++
			}
			fields := strings.Fields(line)
			last := fields[len(fields)-1]
			label, p, ok := strings.Cut(last, ":")
			prob, err := strconv.ParseFloat(p, 64)
			if !ok || err != nil || prob < 0 || prob > 1 {
				t.Fatalf("marginal field %q", last)
			}
			pf := strings.Fields(plainLines[k])
			if pf[len(pf)-1] != label {
				t.Fatalf("best n-best label %q, plain tagging %q (%s)", label, pf[len(pf)-1], plainLines[k])
			}
			k++
		}
	}

	// Constrained decoding (on by default for IOB2): no I-X after O or a
	// different type, at any rank.
	for _, mode := range []string{"on", "off"} {
		out, _ := mustRun(t, "", "tag", "--model", model, "--nbest", "2", "--constrained", mode, chunkTest)
		if mode == "off" {
			continue
		}
		for _, ranks := range parseRanked(t, out) {
			for _, rk := range ranks {
				prev := "O"
				for _, line := range rk.tokens {
					f := strings.Fields(line)
					y := f[len(f)-1]
					if strings.HasPrefix(y, "I-") && prev != "B-"+y[2:] && prev != y {
						t.Fatalf("constrained output has %s after %s", y, prev)
					}
					prev = y
				}
			}
		}
	}
	if code, _, _ := trellis(t, "", "tag", "--model", model, "--constrained", "maybe", chunkTest); code != exitUsage {
		t.Fatalf("--constrained maybe: exit %d, want %d", code, exitUsage)
	}
	if code, _, _ := trellis(t, "", "tag", "--model", model, "--nbest", "0", chunkTest); code != exitUsage {
		t.Fatalf("--nbest 0: exit %d, want %d", code, exitUsage)
	}
}

func TestInspect(t *testing.T) {
	dir := sharedRun(t, chunkSpec)
	model := filepath.Join(dir, "models", "hmm.model")
	out, _ := mustRun(t, "", "inspect", model, "--top", "2")
	for _, want := range []string{"learner:      hmm", "labels:", "features:", "top 2 features per label", "transition weights", "<start>", "<stop>"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, out)
		}
	}
	js, _ := mustRun(t, "", "inspect", model, "--json", "--top", "3")
	var in struct {
		Labels      []string                     `json:"labels"`
		Features    int                          `json:"features"`
		TopFeatures map[string][]json.RawMessage `json:"top_features"`
		Trans       [][]float64                  `json:"transitions_matrix"`
	}
	if err := json.Unmarshal([]byte(js), &in); err != nil {
		t.Fatal(err)
	}
	if len(in.Labels) == 0 || in.Features == 0 || len(in.Trans) != len(in.Labels) {
		t.Fatalf("inspect --json: %+v", in)
	}
	for y, list := range in.TopFeatures {
		if len(list) > 3 {
			t.Fatalf("label %s lists %d features with --top 3", y, len(list))
		}
	}
	if code, _, _ := trellis(t, "", "inspect", filepath.Join(dir, "nope.model")); code != exitFailure {
		t.Fatalf("inspect of a missing model: exit %d", code)
	}
}
