package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/spec"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// ambiguousDocs writes documents in which a name is a person after "Mr"
// and a place after "in", once, and then appears in sentences ("X said")
// that do not tell which; its type is the document's.
func ambiguousDocs(docs, seed int) string {
	var b strings.Builder
	for d := range docs {
		b.WriteString("-DOCSTART- O\n\n")
		name, cue, typ := fmt.Sprintf("Zed%d", d*13+seed), "Mr", "PER"
		if (d+seed)%2 == 1 {
			cue, typ = "in", "LOC"
		}
		fmt.Fprintf(&b, "%s O\n%s B-%s\n\n", cue, name, typ)
		for k := range 2 {
			fmt.Fprintf(&b, "%s B-%s\nsaid O\nday%d O\n\n", name, typ, k)
		}
	}
	return b.String()
}

const jointSpecSrc = `experiment "joint" {
  seed = 3
}
corpus "train" {
  path    = "train.txt"
  format  = "conll"
  columns = ["word", "ner"]
}
corpus "dev" {
  path    = "dev.txt"
  format  = "conll"
  columns = ["word", "ner"]
}
labels {
  column = "ner"
  scheme = "iob2"
}
features {
  emission "w" {
    column  = "word"
    offsets = [-1, 0, 1]
  }
  transition "trans" {}
}
learner "plain" {
  type   = "perceptron"
  epochs = 3
}
learner "joint" {
  type   = "perceptron"
  epochs = 3
  consistency {
    match = "token"
  }
}
learner "limited" {
  type   = "perceptron"
  epochs = 3
  constraint "LOC" {
    max = 0
  }
}
evaluation {
  train = "train"
  dev   = "dev"
  test  = "dev"
}
`

// TestDevDecodesJointlyAsTagging: dev scoring with a consistency or a
// constraint block labels every dev sentence as the tagger does with the
// same model and blocks, and the blocks change labels (so the test can
// tell joint from plain decoding).
func TestDevDecodesJointlyAsTagging(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"train.txt": ambiguousDocs(40, 0), "dev.txt": ambiguousDocs(20, 1)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "spec.hcl"), []byte(jointSpecSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	templates, learners := builtin.Registries()
	s, diags := spec.LoadFile(filepath.Join(dir, "spec.hcl"), nil, spec.Registries{Templates: templates, Learners: learners})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	o := Options{Spec: s, Templates: templates, Log: zerolog.Nop(), Threads: 2}
	enc, err := encodeTraining(context.Background(), newSession(&o))
	if err != nil {
		t.Fatal(err)
	}
	constraints := scheme.Constraints(enc.mapper.Labels().Names(), s.Labels.Training())
	m, err := Train(context.Background(), o, "plain")
	if err != nil {
		t.Fatal(err)
	}
	plain := newDevDecoder(enc, s.Labels.Training(), constraints, s.Learner("plain"), 2).decode(m.Linear)
	plainLabels := make([][]string, len(plain))
	for k := range plain {
		plainLabels[k] = slices.Clone(plain[k].Pred)
	}
	for _, name := range []string{"joint", "limited"} {
		li := s.Learner(name)
		dev := newDevDecoder(enc, s.Labels.Training(), constraints, li, 2).decode(m.Linear)
		tg, err := tagger.New(m, templates, tagger.Options{Joint: li.Joint})
		if err != nil {
			t.Fatal(err)
		}
		tagged, err := tg.Tag(enc.devSents)
		tg.Close()
		if err != nil {
			t.Fatal(err)
		}
		changed := false
		for k := range dev {
			if !slices.Equal(dev[k].Pred, tagged[k]) {
				t.Fatalf("%s: dev sentence %d: dev scoring gives %v, tagging %v", name, k, dev[k].Pred, tagged[k])
			}
			changed = changed || !slices.Equal(dev[k].Pred, plainLabels[k])
		}
		if !changed {
			t.Fatalf("%s: joint decoding changed no dev label: the test cannot tell it from plain decoding", name)
		}
	}
}
