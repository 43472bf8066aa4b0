package run

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/linear"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// devChunkSpec is a chunking spec on the command-line tests' chunk sample
// whose dev corpus is the sample's test file; train is the training file,
// transition the transition template's block, learners the learner blocks.
func devChunkSpec(train, transition, learners string) string {
	return `experiment "dev" {
  seed = 3
}
corpus "train" {
  path    = "` + train + `"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}
corpus "dev" {
  path    = "` + chunkDir + `/chunk-test.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}
labels {
  column = "chunk"
  scheme = "iob2"
}
features {
  emission "w" {
    column  = "word"
    offsets = [-1, 0, 1]
  }
  emission "p" {
    column  = "pos"
    offsets = [-1, 0, 1]
  }
  ` + transition + `
}
` + learners + `
evaluation {
  train = "train"
  dev   = "dev"
  test  = "dev"
}
`
}

const devLearners = `learner "viterbi" {
  type   = "perceptron"
  epochs = 3
}
learner "greedy" {
  type   = "perceptron"
  epochs = 3
  decode = "greedy"
}
learner "beam" {
  type   = "perceptron"
  epochs = 3
  decode = "beam"
  beam   = 2
}
learner "posterior" {
  type           = "crf"
  max_iterations = 15
  decode         = "posterior"
}
learner "labelpath" {
  type              = "crf"
  max_iterations    = 10
  hidden_states     = 2
  hidden_iterations = 10
  decode            = "labelpath"
}
`

// transitionLearners are transition learners of every training mode; dev
// scoring must decode their models by the same search as the tagger.
const transitionLearners = `learner "greedy" {
  type   = "transition"
  epochs = 3
  beta   = 0.5
}
learner "beam" {
  type   = "transition"
  epochs = 3
  beam   = 3
}
learner "max_violation" {
  type   = "transition"
  epochs = 3
  beam   = 2
  update = "max_violation"
}
`

// TestDevDecodesAsTagging trains a model with every decode setting, and
// second-order models on sentences cut to two tokens (so no dev sentence
// longer than two has a path through their seen trigrams), and checks
// that dev scoring labels every dev sentence as the tagger labels it with
// the same model. It fails with the Viterbi-only, never-relaxed dev
// scorer: the test checks that the settings change labels and that the
// second-order lattices do have sentences without a path.
func TestDevDecodesAsTagging(t *testing.T) {
	train := filepath.Join(chunkDir, "chunk-train.txt")
	short := filepath.Join(t.TempDir(), "chunk-train-short.txt")
	if err := os.WriteFile(short, []byte(firstTokens(t, train, 2)), 0o644); err != nil {
		t.Fatal(err)
	}
	order2 := "transition \"trans\" {\n    order = 2\n  }"
	specs := []struct {
		name, src string
		learners  []string
	}{
		{"first order", devChunkSpec(train, `transition "trans" {}`, devLearners),
			[]string{"viterbi", "greedy", "beam", "posterior", "labelpath"}},
		{"second order", devChunkSpec(short, order2, `learner "perceptron" {
  type   = "perceptron"
  epochs = 3
}
learner "crf" {
  type           = "crf"
  max_iterations = 15
  decode         = "posterior"
}
`), []string{"perceptron", "crf"}},
		{"transition", devChunkSpec(train, `transition "trans" {}
  decisions "hist" {
    previous = 3
    span     = true
    document = true
  }`, transitionLearners), []string{"greedy", "beam", "max_violation"}},
	}
	changed := 0
	for _, c := range specs {
		s := loadSpec(t, c.src)
		templates, _ := builtin.Registries()
		o := Options{Spec: s, Templates: templates, Log: zerolog.Nop(), Threads: 2}
		enc, err := encodeTraining(context.Background(), newSession(&o))
		if err != nil {
			t.Fatal(err)
		}
		constraints := scheme.Constraints(enc.mapper.Labels().Names(), s.Labels.Training())
		for _, name := range c.learners {
			m, err := Train(context.Background(), o, name)
			if err != nil {
				t.Fatal(err)
			}
			li := s.Learner(name)
			dev := newDevDecoder(enc, s.Labels.Training(), constraints, li, 2).decode(m.Linear)
			tg, err := tagger.New(m, templates, tagger.Options{Decode: li.Decode, Beam: li.Beam})
			if err != nil {
				t.Fatal(err)
			}
			tagged, err := tg.Tag(enc.devSents)
			tg.Close()
			if err != nil {
				t.Fatal(err)
			}
			for k := range dev {
				if !slices.Equal(dev[k].Pred, tagged[k]) {
					t.Fatalf("%s/%s: dev sentence %d: dev scoring gives %v, tagging %v", c.name, name, k, dev[k].Pred, tagged[k])
				}
			}
			viterbi := *li
			viterbi.Decode = lattice.DecodeViterbi
			plain := newDevDecoder(enc, s.Labels.Training(), constraints, &viterbi, 1).decode(m.Linear)
			for k := range dev {
				if !slices.Equal(plain[k].Pred, tagged[k]) {
					changed++
					break
				}
			}
			if c.name == "second order" && !hasNoPath(enc, m.Linear.Chain(m.Linear.W, constraints), m.Linear) {
				t.Fatalf("%s: every dev sentence has a path through the second-order lattice: the test tests nothing", name)
			}
		}
	}
	if changed == 0 {
		t.Fatal("no decode setting changed a dev sentence's labels against Viterbi: the test cannot tell them apart")
	}
}

// firstTokens is the CoNLL file at path with every sentence cut to its
// first n tokens.
func firstTokens(t *testing.T, path string, n int) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, sent := range strings.Split(strings.TrimSpace(string(data)), "\n\n") {
		lines := strings.Split(sent, "\n")
		b.WriteString(strings.Join(lines[:min(n, len(lines))], "\n") + "\n\n")
	}
	return b.String()
}

// hasNoPath reports whether some dev sentence has no allowed path through
// chain, m's lattice.
func hasNoPath(enc *encoded, chain *lattice.Chain, m *linear.Model) bool {
	scorer := m.NewScorer(m.W)
	ws := lattice.NewWorkspace(m.NumLabels)
	var sc lattice.Scores
	chain.Attach(&sc)
	for k := range enc.dev.NumSentences() {
		scorer.Lattice(&sc, enc.dev, k)
		if sc.N > 0 && math.IsInf(ws.Viterbi(make([]int32, sc.N), &sc), -1) {
			return true
		}
	}
	return false
}
