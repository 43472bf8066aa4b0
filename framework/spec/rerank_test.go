package spec_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/rerank"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// TestRerankDecodes checks a rerank block's mapping onto rerank.Settings:
// the defaults (seed = the spec's) and explicit settings, and by.
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
		// by = "document" is the default, recorded as it ("").
		{`rerank {
    trainer = "perceptron"
    by = "document"
  }`, spec.Rerank{K: 20, Folds: 10, Settings: rerank.Settings{Trainer: "perceptron", Epochs: 10, C2: 1, ScoreInit: 1, Seed: 7}}},
		// Folds of sentences: every group but doc by default.
		{`rerank {
    trainer = "perceptron"
    by = "sentence"
  }`, spec.Rerank{K: 20, Folds: 10, By: "sentence",
			Settings: rerank.Settings{Trainer: "perceptron", Epochs: 10, C2: 1, Features: []string{"ngram", "types", "span", "words", "rank"}, ScoreInit: 1, Seed: 7}}},
		{`rerank {
    trainer = "maxent"
    by = "sentence"
    features = ["span", "rank"]
  }`, spec.Rerank{K: 20, Folds: 10, By: "sentence",
			Settings: rerank.Settings{Trainer: "maxent", Epochs: 10, C2: 1, Features: []string{"span", "rank"}, ScoreInit: 1, Seed: 7}}},
	} {
		good := strings.Replace(string(src), "rerank {}", c.block, 1)
		s, diags := spec.Decode("testdata/bad/rerank_good.hcl", []byte(good), nil, registries())
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		got := s.Learner("crf").Rerank
		if got == nil || got.K != c.want.K || got.Folds != c.want.Folds || got.By != c.want.By || !sameSettings(got.Settings, c.want.Settings) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", c.block, got, c.want)
		}
	}
}

func sameSettings(a, b rerank.Settings) bool {
	return slices.Equal(a.Features, b.Features) && (a.Features == nil) == (b.Features == nil) && a.Trainer == b.Trainer &&
		a.Epochs == b.Epochs && a.C2 == b.C2 && a.MaxIterations == b.MaxIterations && a.ScoreInit == b.ScoreInit && a.Seed == b.Seed
}

// TestRerankJSON: a rerank block without by has the JSON it had before
// by existed (the manifest and the model carry the spec's JSON), and one
// with by = "sentence" records it.
func TestRerankJSON(t *testing.T) {
	r := spec.Rerank{K: 20, Folds: 10, Settings: rerank.Settings{Trainer: "perceptron", Epochs: 20, C2: 1, ScoreInit: 1, Seed: 1}}
	b, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	// The Rerank of before by, field for field.
	old := struct {
		K        int             `json:"k"`
		Folds    int             `json:"folds"`
		Settings rerank.Settings `json:"settings"`
	}{r.K, r.Folds, r.Settings}
	want, err := json.Marshal(&old)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string(want) {
		t.Errorf("JSON without by:\n%s\nwant\n%s", b, want)
	}
	r.By = spec.StageBySentence
	if b, err = json.Marshal(&r); err != nil || !strings.Contains(string(b), `"by":"sentence"`) {
		t.Errorf("JSON with by = sentence: %s (%v)", b, err)
	}
	if got := (&spec.Rerank{}).FoldUnit(); got != spec.StageByDocument {
		t.Errorf("FoldUnit without by = %q", got)
	}
}
