package trellis_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/tagger"
	"github.com/trellis-nlp/trellis/framework/trellis"
)

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// chunks are tiny IOB2 chunking sentences, "word/label".
var chunks = []string{
	"The/B-NP dog/I-NP barks/B-VP at/B-PP the/B-NP cat/I-NP ./O",
	"A/B-NP cat/I-NP sleeps/B-VP ./O",
	"The/B-NP big/I-NP dog/I-NP sees/B-VP a/B-NP bird/I-NP ./O",
	"Dogs/B-NP bark/B-VP ./O",
	"A/B-NP bird/I-NP sings/B-VP in/B-PP the/B-NP tree/I-NP ./O",
}

func parse(lines []string) []trellis.Sentence {
	var out []trellis.Sentence
	for _, l := range lines {
		var s trellis.Sentence
		for _, tok := range strings.Fields(l) {
			w, y, _ := strings.Cut(tok, "/")
			s.Tokens = append(s.Tokens, w)
			s.Labels = append(s.Labels, y)
		}
		out = append(out, s)
	}
	return out
}

// TestTrainEveryLearner trains each learner from memory, with and without
// dev sentences, and checks that it learns the training data, that an
// empty sentence tags as empty, and that a saved model loads and tags the
// same.
func TestTrainEveryLearner(t *testing.T) {
	sents := parse(chunks)
	for _, learner := range []string{"hmm", "perceptron", "crf"} {
		for _, withDev := range []bool{false, true} {
			name := learner
			o := trellis.Options{Learner: trellis.Learner{Type: learner}, Scheme: "iob2", Seed: 3}
			if withDev {
				name += "/dev"
				o.Dev = sents[:2]
			}
			t.Run(name, func(t *testing.T) {
				m, err := trellis.Train(context.Background(), sents, o)
				if err != nil {
					t.Fatal(err)
				}
				defer m.Close()
				if m.Learner() != learner {
					t.Errorf("Learner() = %q", m.Learner())
				}
				if got, want := m.Columns(), []string{"word", "label"}; !reflect.DeepEqual(got, want) {
					t.Errorf("Columns() = %q, want %q", got, want)
				}
				right, total := 0, 0
				for _, s := range sents {
					got, err := m.Tag(s.Tokens)
					if err != nil {
						t.Fatal(err)
					}
					if len(got) != len(s.Labels) {
						t.Fatalf("Tag(%q) = %q", s.Tokens, got)
					}
					for i := range got {
						if got[i] == s.Labels[i] {
							right++
						}
						total++
					}
				}
				// Regularized or dev-selected models need not fit every
				// training token, but a model that learned nothing does
				// not get near this.
				if acc := float64(right) / float64(total); acc < 0.85 {
					t.Errorf("training accuracy %.2f", acc)
				}
				rows, err := m.Rows(sents[0].Tokens)
				if err != nil {
					t.Fatal(err)
				}
				ex, err := m.Explain(rows, 2)
				if err != nil {
					t.Fatal(err)
				}
				tagged, _ := m.Tag(sents[0].Tokens)
				sum := 0.0
				for _, te := range ex.Tokens {
					sum += te.Score
				}
				if !reflect.DeepEqual(ex.Labels, tagged) || math.Abs(sum-ex.Score) > 1e-9 || (ex.Tokens[0].Marginal != nil) != (learner != "perceptron") {
					t.Errorf("Explain: labels %q (Tag: %q), tokens sum to %v, score %v, marginal %v", ex.Labels, tagged, sum, ex.Score, ex.Tokens[0].Marginal)
				}
				if ex, err := m.Explain(nil, 2); err != nil || len(ex.Tokens) != 0 {
					t.Errorf("Explain(nil) = %+v, %v", ex, err)
				}
				empty, err := m.Tag(nil)
				if err != nil || empty == nil || len(empty) != 0 {
					t.Errorf("Tag(nil) = %q, %v; want an empty slice", empty, err)
				}
				path := filepath.Join(t.TempDir(), "m.model")
				if err := m.Save(path); err != nil {
					t.Fatal(err)
				}
				loaded, err := trellis.Load(path)
				if err != nil {
					t.Fatal(err)
				}
				defer loaded.Close()
				probe := strings.Fields("The bird sees a dog in the tree .")
				a, errA := m.Tag(probe)
				b, errB := loaded.Tag(probe)
				if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
					t.Errorf("saved and loaded model disagree: %q (%v) vs %q (%v)", a, errA, b, errB)
				}
			})
		}
	}
}

// TestTagConcurrently: a Model serializes its tagger, so goroutines may
// share it (run with -race).
func TestTagConcurrently(t *testing.T) {
	sents := parse(chunks)
	m, err := trellis.Train(context.Background(), sents, trellis.Options{Learner: trellis.Learner{Type: "hmm"}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, s := range sents {
				if got, err := m.Tag(s.Tokens); err != nil || !reflect.DeepEqual(got, s.Labels) {
					t.Errorf("Tag(%q) = %q, %v", s.Tokens, got, err)
				}
			}
		}()
	}
	wg.Wait()
}

// TestClosedModel: a closed model refuses every tagging call with
// ErrClosed, also when Close races with calls in progress (run with
// -race), and a second Close does nothing.
func TestClosedModel(t *testing.T) {
	sents := parse(chunks)
	m, err := trellis.Train(context.Background(), sents, trellis.Options{Learner: trellis.Learner{Type: "hmm"}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, s := range sents {
				got, err := m.Tag(s.Tokens)
				if errors.Is(err, trellis.ErrClosed) {
					return
				}
				if err != nil || !reflect.DeepEqual(got, s.Labels) {
					t.Errorf("Tag(%q) = %q, %v", s.Tokens, got, err)
				}
			}
		}()
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	rows := [][]string{{sents[0].Tokens[0], ""}}
	if _, err := m.Tag(sents[0].Tokens); !errors.Is(err, trellis.ErrClosed) {
		t.Errorf("Tag after Close: %v, want ErrClosed", err)
	}
	if _, err := m.Marginals(rows); !errors.Is(err, trellis.ErrClosed) {
		t.Errorf("Marginals after Close: %v, want ErrClosed", err)
	}
	if _, err := m.Explain(rows, 1); !errors.Is(err, trellis.ErrClosed) {
		t.Errorf("Explain after Close: %v, want ErrClosed", err)
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestBadOptions: settings that do not decode or validate are a
// *SpecError naming what is wrong; bad data is a plain error.
func TestBadOptions(t *testing.T) {
	sents := parse(chunks)
	tests := []struct {
		name  string
		sents []trellis.Sentence
		o     trellis.Options
		spec  bool // a *SpecError
		want  string
	}{
		{"unknown template type", sents, trellis.Options{Templates: []trellis.Template{{Type: "emision", Config: map[string]any{"column": "word"}}}},
			true, `Unknown template type; Template "emision": There is no template type "emision". Did you mean "emission"?`},
		{"unknown template key", sents, trellis.Options{Templates: []trellis.Template{{Type: "emission", Config: map[string]any{"colum": "word"}}}},
			true, `Template "emission" (emission): json: unknown field "colum"`},
		{"duplicate template", sents, trellis.Options{Templates: []trellis.Template{{Type: "transition"}, {Type: "transition"}}},
			true, `Two templates are named "transition"`},
		{"unknown column", sents, trellis.Options{Templates: []trellis.Template{{Type: "emission", Config: map[string]any{"column": "pos"}}}},
			false, `template "emission": unknown column "pos" (the corpus has "word", "label")`},
		{"unknown learner", sents, trellis.Options{Learner: trellis.Learner{Type: "svm"}}, true, `Unknown learner type`},
		{"bad learner setting", sents, trellis.Options{Learner: trellis.Learner{Type: "crf", Config: map[string]any{"c2": -1}}}, true, `c2`},
		{"unknown scheme", sents, trellis.Options{Scheme: "iob3"}, true, `There is no scheme "iob3". Did you mean "iob1"?`},
		{"labels contradict the scheme", parse([]string{"the/I-NP dog/I-NP"}), trellis.Options{Scheme: "iob2"}, true, `<train>:1: `},
		{"no sentences", nil, trellis.Options{}, false, "no training sentences"},
		{"labels missing", []trellis.Sentence{{Tokens: []string{"a", "b"}, Labels: []string{"X"}}}, trellis.Options{}, false, "train sentence 1: 2 tokens, 1 labels"},
		{"empty sentence", []trellis.Sentence{{}}, trellis.Options{}, false, "train sentence 1: no tokens"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := trellis.Train(context.Background(), tc.sents, tc.o)
			if err == nil {
				m.Close()
				t.Fatal("no error")
			}
			var se *trellis.SpecError
			if errors.As(err, &se) != tc.spec {
				t.Errorf("error %T %q: SpecError %v, want %v", err, err, se != nil, tc.spec)
			}
			if se != nil && !se.Diagnostics.HasErrors() {
				t.Errorf("SpecError without error diagnostics: %v", se.Diagnostics)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q lacks %q", err, tc.want)
			}
			if strings.Contains(err.Error(), ":0,0-0") || strings.Contains(err.Error(), ":0:0") {
				t.Errorf("error %q points at a place in no file", err)
			}
		})
	}
}

// TestBadSpec: a spec with errors is a *SpecError whose diagnostics place
// every error in the source; a spec that cannot be read is a plain error.
func TestBadSpec(t *testing.T) {
	src := `experiment "bad" {}
corpus "train" {
  path   = "no-such-file.conllu"
  format = "conllu"
}
labels {
  column = "upos"
}
features {
  transition "t" {}
}
learner "crf" {
  type = "crf"
  c3   = 1
}
evaluation {
  train = "train"
  test  = "train"
}
`
	_, err := trellis.TrainSpec(context.Background(), "bad.hcl", []byte(src), trellis.SpecOptions{})
	var se *trellis.SpecError
	if !errors.As(err, &se) {
		t.Fatalf("error %T %v, want a *SpecError", err, err)
	}
	lines := map[int]bool{}
	for _, d := range se.Diagnostics {
		if d.Severity != hcl.DiagError || d.Subject == nil || d.Subject.Filename != "bad.hcl" {
			t.Errorf("diagnostic without a place in bad.hcl: %+v", d)
			continue
		}
		lines[d.Subject.Start.Line] = true
	}
	if !lines[3] || !lines[14] {
		t.Errorf("diagnostics on lines %v, want 3 (missing corpus) and 14 (c3)", lines)
	}
	for _, want := range []string{"bad.hcl:3:", "Corpus file not found", "bad.hcl:14:", `"c3"`, "   14 |   c3   = 1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%s", want, err)
		}
	}

	_, err = trellis.TrainSpecFile(context.Background(), filepath.Join(t.TempDir(), "missing.hcl"), trellis.SpecOptions{})
	if err == nil || errors.As(err, &se) || !strings.Contains(err.Error(), "missing.hcl") {
		t.Errorf("missing spec file: %v", err)
	}

	_, err = trellis.TrainSpecFile(context.Background(), "../../specs/quickstart.hcl", trellis.SpecOptions{Learner: "svm"})
	if err == nil || !strings.Contains(err.Error(), `--learner "svm": the spec has no such learner`) {
		t.Errorf("unknown learner: %v", err)
	}
}

// TestTagRows: a model of a spec with several columns takes rows in its
// column order, the label column optional.
func TestTagRows(t *testing.T) {
	m, err := trellis.TrainSpecFile(context.Background(), "../../cmd/trellis/testdata/chunk.hcl", trellis.SpecOptions{Learner: "hmm"})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if got, want := m.Columns(), []string{"word", "pos", "chunk"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Columns() = %q, want %q", got, want)
	}
	rows := [][]string{{"the", "DT"}, {"cat", "NN"}, {"sees", "VBZ"}, {"it", "PRP"}, {".", "."}}
	a, err := m.TagRows(rows)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"B-NP", "I-NP", "B-VP", "B-NP", "O"}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("TagRows = %q, want %q", a, want)
	}
	// A label column with a value is not read.
	var labelled [][]string
	for _, r := range rows {
		labelled = append(labelled, append(append([]string(nil), r...), "B-PP"))
	}
	if b, err := m.TagRows(labelled); err != nil || !reflect.DeepEqual(a, b) {
		t.Errorf("TagRows with labels = %q, %v; want %q", b, err, a)
	}
	if _, err := m.TagRows([][]string{{"the"}}); err == nil || !strings.Contains(err.Error(), "token 1: 1 columns, want 3") {
		t.Errorf("short row: %v", err)
	}
}

// TestTagNeedsColumns: Tag refuses a model whose templates read more than
// the word, naming the columns, rather than tag with them empty.
func TestTagNeedsColumns(t *testing.T) {
	m, err := trellis.TrainSpecFile(context.Background(), "../../cmd/trellis/testdata/chunk.hcl", trellis.SpecOptions{Learner: "hmm"})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	// chunk.hcl reads the word only: Tag works.
	if got, err := m.Tag(strings.Fields("the cat sees it .")); err != nil || len(got) != 5 {
		t.Fatalf("Tag = %q, %v", got, err)
	}
	src := string(readFile(t, "../../cmd/trellis/testdata/chunk.hcl"))
	src = strings.Replace(src, `transition "trans" {}`, `emission "p" {
    column = "pos"
  }
  transition "trans" {}`, 1)
	withPOS, err := trellis.TrainSpec(context.Background(), "../../cmd/trellis/testdata/chunk-pos.hcl", []byte(src), trellis.SpecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer withPOS.Close()
	_, err = withPOS.Tag(strings.Fields("the cat sees it ."))
	var ce *tagger.ColumnsError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), `the column "pos"`) {
		t.Errorf("Tag on a model that reads POS: %v", err)
	}
	if got, err := withPOS.TagRows([][]string{{"the", "DT"}, {"cat", "NN"}}); err != nil || len(got) != 2 {
		t.Errorf("TagRows = %q, %v", got, err)
	}
}

// TestTemplateFiles: templates that read a file of their own (a lexicon's
// word list, a cluster file) read it when trained through the API too: a
// missing file is a SpecError, the lexicon's model tags without the file,
// and the clusters model is pinned (a changed file is refused).
func TestTemplateFiles(t *testing.T) {
	sents := parse(chunks)
	dir := t.TempDir()
	words, clusters := filepath.Join(dir, "words.txt"), filepath.Join(dir, "c.clusters")
	if err := os.WriteFile(words, []byte("big dog\nthe tree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(clusters, []byte("0\tdog\t3\n10\tcat\t2\n11\tbird\t2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	train := func(typ, path string) (*trellis.Model, error) {
		return trellis.Train(context.Background(), sents, trellis.Options{Templates: []trellis.Template{
			{Type: "emission", Config: map[string]any{"column": "word"}},
			{Type: typ, Config: map[string]any{"column": "word", "path": path}},
			{Type: "transition"},
		}})
	}
	if _, err := train("lexicon", filepath.Join(dir, "nope.txt")); err == nil || !strings.Contains(err.Error(), "Cannot read the template's file") {
		t.Errorf("missing word list: %v", err)
	}
	for _, typ := range []string{"lexicon", "clusters"} {
		t.Run(typ, func(t *testing.T) {
			path := map[string]string{"lexicon": words, "clusters": clusters}[typ]
			m, err := train(typ, path)
			if err != nil {
				t.Fatal(err)
			}
			saved := filepath.Join(dir, typ+".model")
			if err := m.Save(saved); err != nil {
				t.Fatal(err)
			}
			m.Close()
			if err := os.WriteFile(path, []byte("0\tbig\t1\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			loaded, err := trellis.Load(saved)
			if typ == "clusters" {
				if err == nil {
					loaded.Close()
					t.Fatal("a model tags with a cluster file other than the one it was trained with")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer loaded.Close()
			if _, err := loaded.Tag([]string{"the", "big", "dog"}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
