package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// columnBlocks splits column output into sentences of token lines split
// into fields, refusing comment lines (a CoNLL file has none).
func columnBlocks(t *testing.T, out string) [][][]string {
	t.Helper()
	var sents [][][]string
	var cur [][]string
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
			t.Fatalf("comment line in CoNLL output: %q", line)
		case line == "":
			if cur != nil {
				sents, cur = append(sents, cur), nil
			}
		default:
			cur = append(cur, strings.Fields(line))
		}
	}
	return sents
}

// TestTagNBestAndMarginals: --nbest and --marginals keep a CoNLL file a
// column file: the best label, its marginal and the 2nd..kth best labels
// as further columns of every token line, no comment lines; the best
// label is plain tagging's, and the columns agree with --output json,
// which carries the sequences' scores and probabilities.
func TestTagNBestAndMarginals(t *testing.T) {
	dir := sharedRun(t, chunkSpec)
	model := filepath.Join(dir, "models", "hmm.model")
	plain, _ := mustRun(t, "", "tag", "--model", model, chunkTest)
	plainSents := columnBlocks(t, plain)

	out, _ := mustRun(t, "", "tag", "--model", model, "--nbest", "3", "--marginals", chunkTest)
	sents := columnBlocks(t, out)
	js, _ := mustRun(t, "", "tag", "--model", model, "--nbest", "3", "--marginals", "--output", "json", chunkTest)
	jsonSents := parseJSONLines(t, js)
	if len(sents) != len(plainSents) || len(jsonSents) != len(sents) {
		t.Fatalf("%d sentences with --nbest, %d plain, %d JSON lines", len(sents), len(plainSents), len(jsonSents))
	}
	for k, sent := range sents {
		j := jsonSents[k]
		if len(j.NBest) == 0 || len(j.NBest) > 3 {
			t.Fatalf("sentence %d: %d sequences", k, len(j.NBest))
		}
		total := 0.0
		for r, b := range j.NBest {
			if *b.Probability <= 0 || *b.Probability > 1 || r > 0 && (*b.Score > *j.NBest[r-1].Score || *b.Probability > *j.NBest[r-1].Probability) {
				t.Fatalf("sentence %d rank %d: score %v probability %v", k, r+1, *b.Score, *b.Probability)
			}
			total += *b.Probability
		}
		if total > 1+1e-6 {
			t.Fatalf("sentence %d: probabilities of distinct sequences sum to %v > 1", k, total)
		}
		for i, f := range sent {
			pf := plainSents[k][i]
			if len(f) != len(pf)+3 {
				t.Fatalf("sentence %d token %d: %d columns, want %d (plain) + marginal + 2 labels: %q", k, i, len(f), len(pf)+2, f)
			}
			best, marg := f[len(pf)-1], f[len(pf)]
			if best != pf[len(pf)-1] || best != j.Labels[i] {
				t.Fatalf("sentence %d token %d: best label %q, plain %q, JSON %q", k, i, best, pf[len(pf)-1], j.Labels[i])
			}
			if p, err := strconv.ParseFloat(marg, 64); err != nil || p <= 0 || p > 1 || strconv.FormatFloat(j.Marginals[i], 'f', 6, 64) != marg {
				t.Fatalf("sentence %d token %d: marginal column %q, JSON %v", k, i, marg, j.Marginals[i])
			}
			for r := 1; r < 3; r++ {
				want := "_"
				if r < len(j.NBest) {
					want = j.NBest[r].Labels[i]
				}
				if got := f[len(pf)+r]; got != want {
					t.Fatalf("sentence %d token %d: rank %d label %q, JSON %q", k, i, r+1, got, want)
				}
			}
		}
	}

	// Constrained decoding (on by default for IOB2): no I-X after O or a
	// different type, at any rank.
	out, _ = mustRun(t, "", "tag", "--model", model, "--nbest", "2", "--constrained", "on", chunkTest)
	for _, sent := range columnBlocks(t, out) {
		for _, col := range []int{3, 4} {
			prev := "O"
			for _, f := range sent {
				y := f[col]
				if y == "_" {
					break
				}
				if strings.HasPrefix(y, "I-") && prev != "B-"+y[2:] && prev != y {
					t.Fatalf("constrained output has %s after %s", y, prev)
				}
				prev = y
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

// TestTagNBestCoNLLU: CoNLL-U keeps the scores as comment lines, one per
// rank, after the sentence's own comments (# newdoc, # sent_id, # text
// still open it) and before its token lines.
func TestTagNBestCoNLLU(t *testing.T) {
	model := filepath.Join(sharedRun(t, quickstart), "models", "hmm.model")
	out, _ := mustRun(t, "", "tag", "--model", model, "--nbest", "2", ewtTest)
	blocks := strings.Split(strings.TrimSpace(out), "\n\n")
	if len(blocks) != 400 {
		t.Fatalf("%d sentences, want 400", len(blocks))
	}
	for _, b := range blocks {
		lines := strings.Split(b, "\n")
		first := slices.IndexFunc(lines, func(l string) bool { return !strings.HasPrefix(l, "#") })
		if first < 3 || !strings.HasPrefix(lines[first-2], "# rank=1 score=") || !strings.HasPrefix(lines[first-1], "# rank=2 score=") {
			t.Fatalf("the ranks are not the last comments before the tokens: %q", lines[:max(first, 0)])
		}
		if !strings.HasPrefix(lines[0], "# newdoc") && !strings.HasPrefix(lines[0], "# sent_id") {
			t.Fatalf("the sentence does not open with its own comments: %q", lines[0])
		}
		for _, l := range lines {
			if !strings.HasPrefix(l, "#") && !conlluSpecialLine.MatchString(l) && len(strings.Split(l, "\t")) != 12 {
				t.Fatalf("token line %q: want 10 columns and 2 labels", l)
			}
		}
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
