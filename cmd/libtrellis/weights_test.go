package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/trellis"
)

// posSentences are small tagging sentences in which some attributes occur
// once, some often, one token carries real values and one a value of 0.
func posSentences() []trellis.AttributeSentence {
	tok := func(word string, extra ...trellis.Attribute) []trellis.Attribute {
		out := attrs("w="+word, "bias", "suf="+word[len(word)-1:])
		return append(out, extra...)
	}
	return []trellis.AttributeSentence{
		{Tokens: [][]trellis.Attribute{tok("the"), tok("dog", trellis.Attribute{Name: "len", Value: 0.3}), tok("barks")},
			Labels: []string{"D", "N", "V"}},
		{Tokens: [][]trellis.Attribute{tok("a"), tok("cat"), tok("sleeps", trellis.Attribute{Name: "len", Value: 0.6})},
			Labels: []string{"D", "N", "V"}},
		{Tokens: [][]trellis.Attribute{tok("the"), tok("cat", trellis.Attribute{Name: "zero", Value: 0}), tok("sees"), tok("a"), tok("dog")},
			Labels: []string{"D", "N", "V", "D", "N"}},
	}
}

func decodeWeights(t *testing.T, m *trellis.Model) weights {
	t.Helper()
	raw, err := modelWeights(m)
	if err != nil {
		t.Fatal(err)
	}
	var w weights
	if err := json.Unmarshal(raw, &w); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestWeightsScoreTheModel: the weights trellis_weights reports are the
// model's: the marginals computed from them by enumerating every label
// sequence (state features times attribute values, transitions from p to
// c, start and stop) are the model's own marginals. This pins the
// attribute and label indices and the transitions' direction.
func TestWeightsScoreTheModel(t *testing.T) {
	sents := posSentences()
	m, _, err := train([]byte(`{"learner": {"type": "crf", "config": {"c2": 0.1}}, "seed": 1}`), encodeSentences(sents), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	w := decodeWeights(t, m)
	if b, _ := m.Bytes(); w.Size != len(b) {
		t.Errorf("size %d, the model file has %d bytes", w.Size, len(b))
	}
	if !reflect.DeepEqual(w.States, m.Labels()) {
		t.Fatalf("states %q, labels %q", w.States, m.Labels())
	}
	for _, a := range w.Attributes {
		if strings.HasPrefix(a, "<unknown>") {
			t.Errorf("trellis's own attribute %q is listed", a)
		}
	}
	for _, x := range w.State.Weight {
		if x == 0 {
			t.Fatal("a zero weight is listed")
		}
	}
	state := map[string][]float64{} // attribute -> weight per label
	for k, a := range w.State.Attr {
		name := w.Attributes[a]
		if state[name] == nil {
			state[name] = make([]float64, len(w.States))
		}
		state[name][w.State.Label[k]] = w.State.Weight[k]
	}
	for k, s := range sents {
		want, err := m.MarginalsAttributes(s.Tokens)
		if err != nil {
			t.Fatal(err)
		}
		got := bruteMarginals(s.Tokens, state, w)
		for i := range want {
			for y := range want[i] {
				if math.Abs(got[i][y]-want[i][y]) > 1e-9 {
					t.Fatalf("sentence %d token %d label %s: marginal %v from the weights, %v from the model", k, i, w.States[y], got[i][y], want[i][y])
				}
			}
		}
	}
}

// bruteMarginals computes P(y_i = label) by scoring every label sequence.
func bruteMarginals(toks [][]trellis.Attribute, state map[string][]float64, w weights) [][]float64 {
	n, L := len(toks), len(w.States)
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, L)
	}
	seq := make([]int, n)
	z := 0.0
	for {
		score := w.Start[seq[0]] + w.Stop[seq[n-1]]
		for i, tok := range toks {
			for _, a := range tok {
				if ws := state[a.Name]; ws != nil {
					score += a.Value * ws[seq[i]]
				}
			}
			if i > 0 {
				score += w.Transitions[seq[i-1]][seq[i]]
			}
		}
		p := math.Exp(score)
		z += p
		for i, y := range seq {
			out[i][y] += p
		}
		k := 0 // the next sequence, as an odometer
		for k < n && seq[k] == L-1 {
			seq[k] = 0
			k++
		}
		if k == n {
			break
		}
		seq[k]++
	}
	for i := range out {
		for y := range out[i] {
			out[i][y] /= z
		}
	}
	return out
}

// crfsuiteText writes sentences in CRFsuite's format.
func crfsuiteText(sents []trellis.AttributeSentence) string {
	var b strings.Builder
	esc := strings.NewReplacer(`\`, `\\`, `:`, `\:`)
	for _, s := range sents {
		for i, tok := range s.Tokens {
			b.WriteString(s.Labels[i])
			for _, a := range tok {
				b.WriteString("\t" + esc.Replace(a.Name))
				if a.Value != 1 {
					b.WriteString(":" + strconv.FormatFloat(a.Value, 'g', -1, 64))
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestPruneRareIsMinCount: min_count in a request trains the model
// `trellis run` trains from a spec with that min_count on the same
// sentences (the same attributes and weights, to the bit), and it does
// prune: fewer attributes than without it, none seen fewer times.
func TestPruneRareIsMinCount(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "train.crfsuite"), []byte(crfsuiteText(posSentences())), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, learner := range []string{"crf", "perceptron"} {
		t.Run(learner, func(t *testing.T) {
			req := `{"learner": {"type": "` + learner + `"}, "seed": 2, "min_count": 2}`
			mem, _, err := train([]byte(req), encodeSentences(posSentences()), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer mem.Close()
			src := `experiment "prune" {
  seed = 2
}
corpus "train" {
  path   = "train.crfsuite"
  format = "crfsuite"
}
labels {
  column = "label"
}
features {
  min_count = 2
  attributes "attributes" {}
  transition "trans" {}
}
learner "l" {
  type = "` + learner + `"
}
evaluation {
  train = "train"
  test  = "train"
}
`
			file, err := trellis.TrainSpec(context.Background(), filepath.Join(dir, "prune.hcl"), []byte(src), trellis.SpecOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer file.Close()
			got, want := decodeWeights(t, mem), decodeWeights(t, file)
			got.Size, want.Size = 0, 0 // the provenance differs
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("min_count in the request:\n%+v\nin a spec:\n%+v", got, want)
			}
			all, _, err := train([]byte(`{"learner": {"type": "`+learner+`"}, "seed": 2}`), encodeSentences(posSentences()), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer all.Close()
			if n, m := len(got.Attributes), len(decodeWeights(t, all).Attributes); n >= m {
				t.Errorf("%d attributes with min_count 2, %d without", n, m)
			}
			kept := map[string]bool{}
			for _, a := range got.Attributes {
				kept[a] = true
			}
			for _, a := range []string{"w=barks", "w=sleeps", "w=sees"} {
				if kept[a] {
					t.Errorf("attribute %q, seen once, is kept", a)
				}
			}
			// (The perceptron leaves weights it never needed at 0.)
			if learner == "crf" && (!kept["w=the"] || !kept["len"]) {
				t.Errorf("attributes seen twice are dropped: %q", got.Attributes)
			}
		})
	}
}

// TestTrainingLog: a trained model's log has one event per iteration,
// numbered, with the loss; a loaded model's log is empty; the log is
// valid JSON however many events it holds.
func TestTrainingLog(t *testing.T) {
	m, log, err := train([]byte(`{"learner": {"type": "crf", "config": {"max_iterations": 4}}}`), encodeSentences(posSentences()), nil)
	if err != nil {
		t.Fatal(err)
	}
	h := models.add(m, log)
	defer models.remove(h)
	raw, err := trainingLog(h)
	if err != nil {
		t.Fatal(err)
	}
	var events []map[string]any
	if err := json.Unmarshal(raw, &events); err != nil {
		t.Fatalf("%v in %s", err, raw)
	}
	var iters []float64
	for _, e := range events {
		if e["message"] == "crf iteration" {
			iters = append(iters, e["iteration"].(float64))
			if _, ok := e["loss"].(float64); !ok {
				t.Errorf("iteration event without a loss: %v", e)
			}
		}
	}
	if !reflect.DeepEqual(iters, []float64{1, 2, 3, 4}) {
		t.Errorf("iterations %v in %s", iters, raw)
	}
	b, err := m.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := trellis.LoadBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	h2 := models.add(loaded, nil)
	defer models.remove(h2)
	if raw, err := trainingLog(h2); err != nil || string(raw) != "[]" {
		t.Errorf("loaded model's log %s, %v", raw, err)
	}
	if _, err := trainingLog(-1); err == nil {
		t.Error("no error for an unknown handle")
	}
}
