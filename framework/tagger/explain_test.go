package tagger_test

import (
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/run"
	"github.com/trellis-nlp/trellis/framework/rundir"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/spec"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// explainSpecWith trains every learner on the synthetic chunking corpus of
// the command's tests, with several templates per token so that the
// explanations have many features to rank. transitions adds the transition
// template (without it the model is a per-token classifier); bigram, a
// template whose attributes score label bigrams (labels = "bigram"), which
// the HMM cannot train: its learner block is then left out.
func explainSpecWith(transitions, bigram bool) string {
	trans := ""
	if transitions {
		trans = `transition "trans" {}`
	}
	hmm := `learner "hmm" {
  type = "hmm"
}`
	if bigram {
		trans += `
  emission "pb" {
    column  = "pos"
    offsets = [-1, 0]
    labels  = "bigram"
  }`
		hmm = ""
	}
	return `experiment "explain" {
  seed = 5
}
corpus "train" {
  path    = "` + filepath.ToSlash(mustAbs("../../cmd/trellis/testdata/chunk-train.txt")) + `"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}
corpus "test" {
  path    = "` + filepath.ToSlash(mustAbs("../../cmd/trellis/testdata/chunk-test.txt")) + `"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}
labels {
  column = "chunk"
  scheme = "iob2"
}
features {
  emission "w" {
    column    = "word"
    lowercase = true
    offsets   = [-1, 0, 1]
  }
  emission "p" {
    column  = "pos"
    offsets = [-1, 0, 1]
  }
  suffix "suf" {
    column  = "word"
    lengths = [1, 2]
  }
  ` + trans + `
}
` + hmm + `
learner "perceptron" {
  type   = "perceptron"
  epochs = 4
}
learner "crf" {
  type           = "crf"
  c2             = 0.5
  max_iterations = 40
}
evaluation {
  train = "train"
  test  = "test"
}
`
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		panic(err)
	}
	return a
}

// trainAll runs the spec into a temporary folder and returns the models
// by learner name.
func trainAll(t *testing.T, src string) map[string]*model.Model {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "spec.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	templates, learners := builtin.Registries()
	s, diags := spec.LoadFile(path, nil, spec.Registries{Templates: templates, Learners: learners})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	out := filepath.Join(dir, "run")
	if _, err := run.Run(context.Background(), run.Options{Spec: s, Templates: templates, OutDir: out, Threads: 1, Log: zerolog.Nop()}); err != nil {
		t.Fatal(err)
	}
	models := map[string]*model.Model{}
	for _, li := range s.Learners {
		m, err := model.Load(rundir.ModelPath(out, li.Name))
		if err != nil {
			t.Fatal(err)
		}
		models[li.Name] = m
	}
	return models
}

func readSentences(t *testing.T, f corpus.Format, path string) []*corpus.Sentence {
	t.Helper()
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r := f.NewReader(in, path, corpus.ReadOptions{LabelOptional: true})
	var sents []*corpus.Sentence
	for {
		s, err := r.Read()
		if err == io.EOF {
			return sents
		}
		if err != nil {
			t.Fatal(err)
		}
		sents = append(sents, s)
	}
}

// referenceLattice scores sentence k of sents independently of the
// tagger: the model's mapper encodes it, linear.Model.Lattice scores it
// with the model's weights, and the scheme's constraints are applied to
// copies of the transitions when the model decodes constrained.
func referenceLattice(t *testing.T, m *model.Model, f corpus.Format, sents []*corpus.Sentence) []lattice.Scores {
	t.Helper()
	templates, _ := builtin.Registries()
	mp, err := m.Mapper(templates, featureColumns(f))
	if err != nil {
		t.Fatal(err)
	}
	defer mp.Close()
	data, _, err := mp.Encode(sents)
	if err != nil {
		t.Fatal(err)
	}
	lm := m.Linear
	out := make([]lattice.Scores, len(sents))
	for k := range sents {
		s := &out[k]
		s.State = make([]float64, 0, 1)
		lm.Lattice(s, lm.W, data, k)
		s.Trans = append([]float64(nil), s.Trans...)
		s.Start = append([]float64(nil), s.Start...)
		s.Stop = append([]float64(nil), s.Stop...)
		if m.Constrained {
			sc, err := scheme.Parse(m.Scheme)
			if err != nil {
				t.Fatal(err)
			}
			scheme.Constraints(m.Labels, sc).Apply(s)
		}
	}
	return out
}

// TestExplainAddsUp: on models of every learner, with and without
// transitions, the parts of each token's explanation add up to the
// sequence score of the predicted path on an independently built lattice,
// the labels are Tag's, the margin is the brute-force best over the
// token's other labels with its neighbours fixed, and the marginals are
// TagDetailed's (CRF and HMM only).
func TestExplainAddsUp(t *testing.T) {
	const tol = 1e-9
	for _, kind := range []string{"chain", "classifier", "bigram"} {
		models := trainAll(t, explainSpecWith(kind != "classifier", kind == "bigram"))
		for _, name := range []string{"hmm", "perceptron", "crf"} {
			m := models[name]
			if m == nil {
				continue // the HMM of the bigram spec
			}
			t.Run(kind+"/"+name, func(t *testing.T) {
				templates, learners := builtin.Registries()
				tg, err := tagger.New(m, templates, tagger.Options{Learners: learners})
				if err != nil {
					t.Fatal(err)
				}
				defer tg.Close()
				if tg.Probabilistic() != (name != "perceptron") {
					t.Fatalf("%s: Probabilistic() = %v", name, tg.Probabilistic())
				}
				sents := readSentences(t, tg.Format, "../../cmd/trellis/testdata/chunk-test.txt")
				if len(sents) < 20 {
					t.Fatalf("only %d test sentences", len(sents))
				}
				ref := referenceLattice(t, m, tg.Format, sents)
				exps, err := tg.Explain(sents, 3)
				if err != nil {
					t.Fatal(err)
				}
				pred, err := tg.Tag(sents)
				if err != nil {
					t.Fatal(err)
				}
				detailed, err := tg.TagDetailed(sents, 1)
				if err != nil {
					t.Fatal(err)
				}
				labelID := map[string]int32{}
				for y, l := range m.Labels {
					labelID[l] = int32(y)
				}
				pairs := 0 // input-conditioned transitions explained
				defer func() {
					if (kind == "bigram") != (pairs > 0) {
						t.Errorf("%d pair features explained in a %s model", pairs, kind)
					}
				}()
				for k, ex := range exps {
					if !reflect.DeepEqual(ex.Labels, pred[k]) {
						t.Fatalf("sentence %d: Explain labels %q, Tag %q", k, ex.Labels, pred[k])
					}
					path := make([]int32, len(ex.Labels))
					for i, l := range ex.Labels {
						path[i] = labelID[l]
					}
					checkSentence(t, explained{k: k, ex: ex, ref: &ref[k], path: path, labels: m.Labels}, 3, tol)
					for _, te := range ex.Tokens {
						pairs += len(te.TransFeatures)
					}
					for i, te := range ex.Tokens {
						if tg.Probabilistic() != (te.Marginal != nil) {
							t.Fatalf("sentence %d token %d: marginal %v for learner %s", k, i, te.Marginal, name)
						}
						if te.Marginal != nil && math.Abs(*te.Marginal-detailed[k].Marginals[i]) > tol {
							t.Errorf("sentence %d token %d: marginal %v, TagDetailed %v", k, i, *te.Marginal, detailed[k].Marginals[i])
						}
					}
				}
			})
		}
	}
}

// explained is one sentence's explanation and what it is checked against.
type explained struct {
	k      int // the sentence's index, for messages
	ex     tagger.Explanation
	ref    *lattice.Scores // the sentence's reference lattice
	path   []int32         // ex's labels, by ID
	labels []string        // every label, by ID
}

// checkSentence checks one explanation (of at most top features per
// token, all when top <= 0) against the reference lattice.
func checkSentence(t *testing.T, e explained, top int, tol float64) {
	t.Helper()
	k, ex, ref, path := e.k, e.ex, e.ref, e.path
	want := lattice.SequenceScore(ref, path)
	sum := 0.0
	for i, te := range ex.Tokens {
		parts := te.State
		for _, p := range []*float64{te.Trans, te.Start, te.Stop} {
			if p != nil {
				parts += *p
			}
		}
		if math.Abs(parts-te.Score) > tol {
			t.Errorf("sentence %d token %d: parts sum to %v, token score %v", k, i, parts, te.Score)
		}
		features := te.Rest
		for j, c := range te.Features {
			features += c.Score
			if c.Score != c.Value*c.Weight {
				t.Errorf("sentence %d token %d: %s contributes %v, not %v × %v", k, i, c.Attr, c.Score, c.Value, c.Weight)
			}
			if j > 0 && math.Abs(c.Score) > math.Abs(te.Features[j-1].Score) {
				t.Errorf("sentence %d token %d: features not ranked by |contribution|", k, i)
			}
		}
		if top > 0 && len(te.Features) > top || top <= 0 && te.RestCount > 0 {
			t.Errorf("sentence %d token %d: %d features and %d more for top %d", k, i, len(te.Features), te.RestCount, top)
		}
		if math.Abs(features-te.State) > tol || math.Abs(te.State-ref.State[i*ref.L+int(path[i])]) > tol {
			t.Errorf("sentence %d token %d: features sum to %v, state %v, lattice %v", k, i, features, te.State, ref.State[i*ref.L+int(path[i])])
		}
		if te.Trans != nil {
			// The transition weight plus the input-conditioned ones.
			shared := *te.Trans
			for _, c := range te.TransFeatures {
				shared -= c.Score
			}
			if w := ref.Trans[int(path[i-1])*ref.L+int(path[i])]; math.Abs(shared-w) > tol {
				t.Errorf("sentence %d token %d: transition %v less its pair features is %v, the weight is %v", k, i, *te.Trans, shared, w)
			}
		}
		sum += te.Score
		checkMargin(t, e, i, want, tol)
	}
	if math.Abs(sum-want) > tol || math.Abs(ex.Score-want) > tol {
		t.Errorf("sentence %d: tokens sum to %v, explanation says %v, lattice.SequenceScore %v", k, sum, ex.Score, want)
	}
}

// checkMargin finds the runner-up at position i by scoring every other
// label's whole sequence, score being the explained path's.
func checkMargin(t *testing.T, e explained, i int, score, tol float64) {
	t.Helper()
	k, te, ref, path, labels := e.k, e.ex.Tokens[i], e.ref, e.path, e.labels
	alt := append([]int32(nil), path...)
	best, bestLabel := math.Inf(-1), ""
	for y := range labels {
		if int32(y) == path[i] {
			continue
		}
		alt[i] = int32(y)
		if v := lattice.SequenceScore(ref, alt); v > best {
			best, bestLabel = v, labels[y]
		}
	}
	if math.IsInf(best, -1) {
		if te.Margin != nil || te.RunnerUp != "" {
			t.Errorf("sentence %d token %d: margin %v over %q where every other label is forbidden", k, i, *te.Margin, te.RunnerUp)
		}
		return
	}
	if te.Margin == nil {
		t.Fatalf("sentence %d token %d: no margin; brute force finds %q at %v", k, i, bestLabel, score-best)
	}
	if math.Abs(*te.Margin-(score-best)) > tol {
		t.Errorf("sentence %d token %d: margin %v over %q, brute force %v over %q", k, i, *te.Margin, te.RunnerUp, score-best, bestLabel)
	}
	if *te.Margin < -tol {
		t.Errorf("sentence %d token %d: negative margin %v: Viterbi's path is not the best", k, i, *te.Margin)
	}
}

func featureColumns(f corpus.Format) feature.Columns {
	return feature.Columns{Names: f.Columns(), Label: f.LabelColumn()}
}

// TestExplainFallback: when the constraints forbid every path (a BIOES
// model whose labels have no E- or S-), Tag decodes unconstrained, and so
// does Explain: same labels, and the parts add up to the unconstrained
// lattice's score.
func TestExplainFallback(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "train.txt")
	if err := os.WriteFile(data, []byte("the DT B-NP\ncat NN I-NP\n\na DT B-NP\nbig JJ I-NP\ndog NN I-NP\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `experiment "fallback" {}
corpus "train" {
  path    = "` + filepath.ToSlash(data) + `"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}
labels {
  column = "chunk"
}
features {
  emission "w" {
    column = "word"
  }
  transition "t" {}
}
learner "crf" {
  type = "crf"
}
evaluation {
  train = "train"
  test  = "train"
}
`
	m := trainAll(t, src)["crf"]
	m.Scheme, m.Constrained = "bioes", true
	templates, _ := builtin.Registries()
	tg, err := tagger.New(m, templates, tagger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	sents := readSentences(t, tg.Format, data)
	pred, err := tg.Tag(sents)
	if err != nil {
		t.Fatal(err)
	}
	exps, err := tg.Explain(sents, 0)
	if err != nil {
		t.Fatal(err)
	}
	m.Constrained = false // the reference lattice without constraints
	ref := referenceLattice(t, m, tg.Format, sents)
	for k, ex := range exps {
		if !reflect.DeepEqual(ex.Labels, pred[k]) {
			t.Fatalf("sentence %d: Explain labels %q, Tag %q", k, ex.Labels, pred[k])
		}
		if math.IsInf(ex.Score, 0) {
			t.Fatalf("sentence %d: score %v", k, ex.Score)
		}
		path := make([]int32, len(ex.Labels))
		for i, l := range ex.Labels {
			path[i] = int32(slices.Index(m.Labels, l))
		}
		checkSentence(t, explained{k: k, ex: ex, ref: &ref[k], path: path, labels: m.Labels}, 0, 1e-9)
	}
}
