package run

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// closingTemplate compiles to an extractor that emits nothing and counts
// its Close calls, as a plugin's extractor holds a process to release.
type closingTemplate struct {
	closed *int
}

func (t *closingTemplate) Config() any               { return &struct{}{} }
func (t *closingTemplate) Validate() hcl.Diagnostics { return nil }
func (t *closingTemplate) Compile(string, feature.Columns) (feature.Extractor, error) {
	return closingExtractor{t.closed}, nil
}

var _ feature.Template = (*closingTemplate)(nil)

type closingExtractor struct{ closed *int }

func (closingExtractor) Extract(*corpus.Sentence, feature.Sink) error { return nil }
func (x closingExtractor) Close() error                               { *x.closed++; return nil }

var _ feature.Closer = closingExtractor{}

// TestEncodeTrainingClosesOnError: when the training or dev corpus cannot
// be read, the compiled extractors are closed (a plugin's process is not
// left running).
func TestEncodeTrainingClosesOnError(t *testing.T) {
	good := "the DT B-NP\ncat NN I-NP\n\n"
	for _, tc := range []struct{ name, train, dev string }{
		{"bad training corpus", "the DT\n", good},
		{"bad dev corpus", good, "the DT\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			src := `experiment "x" {}
corpus "train" {
  path    = "train.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}
corpus "dev" {
  path    = "dev.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}
labels {
  column = "chunk"
}
features {
  closing "c" {}
  transition "trans" {}
}
learner "hmm" {
  type = "hmm"
}
evaluation {
  train = "train"
  dev   = "dev"
  test  = "dev"
}
`
			for name, data := range map[string]string{"spec.hcl": src, "train.txt": tc.train, "dev.txt": tc.dev} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			closed := 0
			templates, learners := builtin.Registries()
			templates.RegisterTemplate("closing", func() feature.Template { return &closingTemplate{&closed} })
			s, diags := spec.LoadFile(filepath.Join(dir, "spec.hcl"), nil, spec.Registries{Templates: templates, Learners: learners})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if _, err := encodeTraining(context.Background(), newSession(&Options{Spec: s})); err == nil {
				t.Fatal("encodeTraining succeeded on a corpus of two columns")
			}
			if closed != 1 {
				t.Errorf("the extractor was closed %d times, want 1", closed)
			}
		})
	}
}
