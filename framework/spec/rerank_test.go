package spec_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/rerank"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// TestRerankDecodes checks a rerank block's mapping onto rerank.Settings:
// the defaults (seed = the spec's) and explicit settings.
func TestRerankDecodes(t *testing.T) {
	src, err := os.ReadFile("testdata/bad/rerank_empty.hcl")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		block string
		want  spec.Rerank
	}{
		{`rerank { trainer = "perceptron" }`, spec.Rerank{K: 20, Folds: 10,
			Settings: rerank.Settings{Trainer: "perceptron", Epochs: 10, C2: 1, ScoreInit: 1, Seed: 7}}},
		{`rerank {
    k = 5
    folds = 3
    trainer = "maxent"
    c2 = 0.1
    max_iterations = 50
    features = ["doc", "rank"]
  }`, spec.Rerank{K: 5, Folds: 3,
			Settings: rerank.Settings{Trainer: "maxent", Epochs: 10, C2: 0.1, MaxIterations: 50, Features: []string{"doc", "rank"}, ScoreInit: 1, Seed: 7}}},
		{`rerank {
    trainer = "perceptron"
    features = []
  }`, spec.Rerank{K: 20, Folds: 10, Settings: rerank.Settings{Trainer: "perceptron", Epochs: 10, C2: 1, Features: []string{}, ScoreInit: 1, Seed: 7}}},
	} {
		good := strings.Replace(string(src), "rerank {}", c.block, 1)
		s, diags := spec.Decode("testdata/bad/rerank_good.hcl", []byte(good), nil, registries())
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		got := s.Learner("crf").Rerank
		if got == nil || got.K != c.want.K || got.Folds != c.want.Folds || !sameSettings(got.Settings, c.want.Settings) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", c.block, got, c.want)
		}
	}
}

func sameSettings(a, b rerank.Settings) bool {
	return slices.Equal(a.Features, b.Features) && (a.Features == nil) == (b.Features == nil) && a.Trainer == b.Trainer &&
		a.Epochs == b.Epochs && a.C2 == b.C2 && a.MaxIterations == b.MaxIterations && a.ScoreInit == b.ScoreInit && a.Seed == b.Seed
}
