package run

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/rundir"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// TestTrainMatchesRun: Train is the training half of Run, so the model it
// returns encodes to the bytes Run saves, for every learner, with and
// without a dev corpus; TrainSentences on the corpus's own sentences
// gives the same weights.
func TestTrainMatchesRun(t *testing.T) {
	specs := map[string]*spec.Spec{
		"chunk": chunkSpec(t, `scheme = "iob2"`, iob2Train, iob2Test),
		"quickstart": func() *spec.Spec {
			templates, learners := builtin.Registries()
			s, diags := spec.LoadFile("../../specs/quickstart.hcl", nil, spec.Registries{Templates: templates, Learners: learners})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			return s
		}(),
	}
	cases := []struct{ spec, learner string }{
		{"chunk", "hmm"}, {"chunk", "perceptron"}, {"quickstart", "perceptron"},
	}
	for _, tc := range cases {
		t.Run(tc.spec+"/"+tc.learner, func(t *testing.T) {
			s := specs[tc.spec]
			templates, _ := builtin.Registries()
			o := Options{Spec: s, Templates: templates, OutDir: filepath.Join(t.TempDir(), "run"), Learners: []string{tc.learner}, Threads: 1, Log: zerolog.Nop()}
			if _, err := Run(context.Background(), o); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(rundir.ModelPath(o.OutDir, tc.learner))
			if err != nil {
				t.Fatal(err)
			}
			o.OutDir = ""
			m, err := Train(context.Background(), o, tc.learner)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := m.Encode(&got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("Train's model (%d bytes) differs from Run's (%d bytes)", got.Len(), len(want))
			}

			train, err := readCorpus(s.Corpus(s.Evaluation.Train))
			if err != nil {
				t.Fatal(err)
			}
			var dev []*corpus.Sentence
			if s.Evaluation.Dev != "" {
				if dev, err = readCorpus(s.Corpus(s.Evaluation.Dev)); err != nil {
					t.Fatal(err)
				}
			}
			mem, err := TrainSentences(context.Background(), o, tc.learner, train, dev)
			if err != nil {
				t.Fatal(err)
			}
			if len(mem.Linear.W) != len(m.Linear.W) {
				t.Fatalf("TrainSentences: %d weights, Train %d", len(mem.Linear.W), len(m.Linear.W))
			}
			for f := range m.Linear.W {
				if mem.Linear.W[f] != m.Linear.W[f] {
					t.Fatalf("TrainSentences: weight %d is %v, Train's %v", f, mem.Linear.W[f], m.Linear.W[f])
				}
			}
			// Only the data hashes differ: sentences in memory have no file.
			if len(mem.Provenance.DataHashes) != 0 || len(m.Provenance.DataHashes) == 0 {
				t.Errorf("data hashes: TrainSentences %v, Train %v", mem.Provenance.DataHashes, m.Provenance.DataHashes)
			}
		})
	}
}
