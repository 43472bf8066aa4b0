package trellis_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/trellis"
)

// attributeChunks are the chunks as attribute sentences, with attributes
// whose names need CRFsuite's escapes (":" and "\") and real values.
func attributeChunks() []trellis.AttributeSentence {
	var out []trellis.AttributeSentence
	for _, s := range parse(chunks) {
		var as trellis.AttributeSentence
		for i, w := range s.Tokens {
			attrs := []trellis.Attribute{
				{Name: "w=" + strings.ToLower(w), Value: 1},
				{Name: "url:" + w + `\x`, Value: 1},
				{Name: "len", Value: float64(len(w)) / 4},
				{Name: "pos:" + strconv.Itoa(i%3+2), Value: 1}, // read as a value unless escaped
				{Name: "", Value: 1},                           // CRFsuite's ":1", a bias
			}
			if i > 0 {
				attrs = append(attrs, trellis.Attribute{Name: "w[-1]=" + strings.ToLower(s.Tokens[i-1]), Value: 1})
			}
			as.Tokens = append(as.Tokens, attrs)
		}
		as.Labels = s.Labels
		out = append(out, as)
	}
	return out
}

// crfsuiteText writes sentences in CRFsuite's file format by hand (not
// through the package's own escaping).
func crfsuiteText(sents []trellis.AttributeSentence) string {
	var b strings.Builder
	for _, s := range sents {
		for i, attrs := range s.Tokens {
			b.WriteString(s.Labels[i])
			for _, a := range attrs {
				name := strings.NewReplacer(`\`, `\\`, `:`, `\:`).Replace(a.Name)
				if a.Value == 1 && name != "" {
					b.WriteString("\t" + name)
				} else {
					b.WriteString("\t" + name + ":" + strconv.FormatFloat(a.Value, 'g', -1, 64))
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestTrainAttributesMatchesCRFsuiteFile: a model trained from attribute
// sentences in memory is the model `trellis run` trains on the same data
// written as a CRFsuite file (same labels and marginals on every
// sentence, for each learner), and a saved one tags that file's
// sentences the same after loading.
func TestTrainAttributesMatchesCRFsuiteFile(t *testing.T) {
	sents := attributeChunks()
	dir := t.TempDir()
	data := filepath.Join(dir, "train.crfsuite")
	if err := os.WriteFile(data, []byte(crfsuiteText(sents)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, learner := range []string{"crf", "perceptron"} {
		t.Run(learner, func(t *testing.T) {
			ctx := context.Background()
			mem, err := trellis.TrainAttributes(ctx, sents, trellis.AttributeOptions{Learner: trellis.Learner{Type: learner}, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			defer mem.Close()
			src := `experiment "attrs" {
  seed = 3
}
corpus "train" {
  path   = "train.crfsuite"
  format = "crfsuite"
}
labels {
  column = "label"
}
features {
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
			file, err := trellis.TrainSpec(ctx, filepath.Join(dir, "attrs.hcl"), []byte(src), trellis.SpecOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer file.Close()
			if !mem.ReadsAttributes() || !file.ReadsAttributes() {
				t.Fatal("models trained on attributes do not read attributes")
			}
			for k, s := range sents {
				a, err := mem.TagAttributes(s.Tokens)
				if err != nil {
					t.Fatal(err)
				}
				b, err := file.TagAttributes(s.Tokens)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(a, b) {
					t.Errorf("sentence %d: in memory %q, from the file %q", k, a, b)
				}
				ma, err := mem.MarginalsAttributes(s.Tokens)
				if err != nil {
					t.Fatal(err)
				}
				mb, err := file.MarginalsAttributes(s.Tokens)
				if err != nil {
					t.Fatal(err)
				}
				checkMarginalsEqual(t, k, mem.Labels(), file.Labels(), ma, mb)
			}
		})
	}
}

// checkMarginalsEqual compares two models' marginals label by label (the
// models may order labels differently) and checks they sum to 1.
func checkMarginalsEqual(t *testing.T, k int, la, lb []string, ma, mb [][]float64) {
	t.Helper()
	idx := map[string]int{}
	for y, l := range lb {
		idx[l] = y
	}
	for i := range ma {
		sum := 0.0
		for y, l := range la {
			if d := math.Abs(ma[i][y] - mb[i][idx[l]]); d > 1e-9 {
				t.Errorf("sentence %d token %d label %s: marginal %v in memory, %v from the file", k, i, l, ma[i][y], mb[i][idx[l]])
			}
			sum += ma[i][y]
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("sentence %d token %d: marginals sum to %v", k, i, sum)
		}
	}
}

// TestAttributeModelRoundTrip: Bytes is the file Save writes, and
// LoadBytes of it tags the same.
func TestAttributeModelRoundTrip(t *testing.T) {
	sents := attributeChunks()
	m, err := trellis.TrainAttributes(context.Background(), sents, trellis.AttributeOptions{Learner: trellis.Learner{Type: "crf", Config: map[string]any{"c2": 0.1}}, Scheme: "iob2"})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	raw, err := m.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.model")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw, readFile(t, path)) {
		t.Fatal("Bytes differ from the file Save writes")
	}
	back, err := trellis.LoadBytes(raw)
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	for k, s := range sents {
		a, _ := m.TagAttributes(s.Tokens)
		b, err := back.TagAttributes(s.Tokens)
		if err != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("sentence %d: %q before, %q (%v) after LoadBytes", k, a, b, err)
		}
	}
	if _, err := trellis.LoadBytes([]byte("not a model")); err == nil {
		t.Error("LoadBytes took bytes that are not a model")
	}
	// The attribute methods share the model's lock: closed, they refuse.
	back.Close()
	if _, err := back.TagAttributes(sents[0].Tokens); !errors.Is(err, trellis.ErrClosed) {
		t.Errorf("TagAttributes after Close: %v, want ErrClosed", err)
	}
	if _, err := back.MarginalsAttributes(sents[0].Tokens); !errors.Is(err, trellis.ErrClosed) {
		t.Errorf("MarginalsAttributes after Close: %v, want ErrClosed", err)
	}
}

// TestAttributeErrors: bad attribute input is refused with a message
// naming the sentence and token; models of the other kind refuse the
// other input.
func TestAttributeErrors(t *testing.T) {
	ctx := context.Background()
	good := attributeChunks()
	attrs := func(names ...string) []trellis.Attribute {
		var out []trellis.Attribute
		for _, n := range names {
			out = append(out, trellis.Attribute{Name: n, Value: 1})
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		sents []trellis.AttributeSentence
		dev   []trellis.AttributeSentence
		want  string
	}{
		{"ragged", []trellis.AttributeSentence{{Tokens: [][]trellis.Attribute{attrs("a"), attrs("b")}, Labels: []string{"X"}}}, nil, "train sentence 1: 2 tokens, 1 labels"},
		{"empty sentence", []trellis.AttributeSentence{good[0], {}}, nil, "train sentence 2: no tokens"},
		{"empty label", []trellis.AttributeSentence{{Tokens: [][]trellis.Attribute{attrs("a")}, Labels: []string{""}}}, nil, "train sentence 1 token 1: empty label"},
		{"NaN", []trellis.AttributeSentence{{Tokens: [][]trellis.Attribute{attrs("a"), {{Name: "len", Value: math.NaN()}}}, Labels: []string{"X", "Y"}}}, nil, `train sentence 1 token 2: attribute "len": value NaN is not a finite number`},
		{"Inf in dev", good, []trellis.AttributeSentence{{Tokens: [][]trellis.Attribute{{{Name: "x", Value: math.Inf(1)}}}, Labels: []string{"O"}}}, `dev sentence 1 token 1: attribute "x": value +Inf is not a finite number`},
		{"no sentences", nil, nil, "no training sentences"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := trellis.TrainAttributes(ctx, tc.sents, trellis.AttributeOptions{Dev: tc.dev})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	t.Run("unknown learner", func(t *testing.T) {
		_, err := trellis.TrainAttributes(ctx, good, trellis.AttributeOptions{Learner: trellis.Learner{Type: "crff"}})
		if err == nil || !strings.Contains(err.Error(), `Did you mean "crf"?`) {
			t.Fatalf("error %v, want a did-you-mean", err)
		}
	})
	t.Run("word model given attributes", func(t *testing.T) {
		m, err := trellis.Train(ctx, parse(chunks), trellis.Options{Learner: trellis.Learner{Type: "hmm"}})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		if m.ReadsAttributes() {
			t.Fatal("a word model claims to read attributes")
		}
		_, err = m.TagAttributes(good[0].Tokens)
		if err == nil || !strings.Contains(err.Error(), "not attributes") {
			t.Fatalf("error %v", err)
		}
		_, err = m.MarginalsAttributes(good[0].Tokens)
		if err == nil || !strings.Contains(err.Error(), "not attributes") {
			t.Fatalf("error %v", err)
		}
	})
}

// TestMarginalsRows: a word model's marginals cover every label, sum to 1
// per token, and (on this sentence) put the most mass on the CRF's
// predicted labels.
func TestMarginalsRows(t *testing.T) {
	m, err := trellis.Train(context.Background(), parse(chunks), trellis.Options{Learner: trellis.Learner{Type: "crf"}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tokens := strings.Fields("The bird barks at a dog .")
	rows, err := m.Rows(tokens)
	if err != nil {
		t.Fatal(err)
	}
	pred, err := m.TagRows(rows)
	if err != nil {
		t.Fatal(err)
	}
	marg, err := m.Marginals(rows)
	if err != nil {
		t.Fatal(err)
	}
	labels := m.Labels()
	if len(marg) != len(tokens) {
		t.Fatalf("%d tokens of marginals, want %d", len(marg), len(tokens))
	}
	for i, p := range marg {
		if len(p) != len(labels) {
			t.Fatalf("token %d: %d marginals, want %d", i, len(p), len(labels))
		}
		best, sum := 0, 0.0
		for y := range p {
			sum += p[y]
			if p[y] > p[best] {
				best = y
			}
		}
		if math.Abs(sum-1) > 1e-9 || labels[best] != pred[i] {
			t.Errorf("token %d: marginals %v (sum %v), most probable %s, predicted %s", i, p, sum, labels[best], pred[i])
		}
	}
	if empty, err := m.Marginals(nil); err != nil || len(empty) != 0 {
		t.Errorf("empty sentence: %v, %v", empty, err)
	}
}
