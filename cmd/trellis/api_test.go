package main

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	trellisapi "github.com/trellis-nlp/trellis/framework/trellis"
)

// TestAPIModelsAreRunModels: the Go API and the command line share one
// model file. A model trained from a spec through the API is the run's
// model byte for byte; a model trained from memory is tagged by
// `trellis tag` as the API tags it; a run's model loads in the API and
// tags as `trellis tag` does.
func TestAPIModelsAreRunModels(t *testing.T) {
	dir := sharedRun(t, chunkSpec)
	runModel := filepath.Join(dir, "models", "hmm.model")

	t.Run("spec through the API = run", func(t *testing.T) {
		m, err := trellisapi.TrainSpecFile(context.Background(), chunkSpec, trellisapi.SpecOptions{Learner: "hmm"})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		path := filepath.Join(t.TempDir(), "api.model")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(readFile(t, path), readFile(t, runModel)) {
			t.Errorf("the API's model of %s differs from trellis run's", chunkSpec)
		}
	})

	t.Run("run model in the API", func(t *testing.T) {
		m, err := trellisapi.Load(runModel)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		tagged, _ := mustRun(t, "", "tag", "--model", runModel, chunkTest)
		var rows [][]string
		var want []string
		check := func() {
			got, err := m.TagRows(rows)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("API tags %q, trellis tag %q", got, want)
			}
			rows, want = nil, nil
		}
		for _, l := range strings.Split(tagged, "\n") {
			f := strings.Fields(l)
			if len(f) == 0 {
				if rows != nil {
					check()
				}
				continue
			}
			// word pos gold predicted
			rows = append(rows, f[:2])
			want = append(want, f[len(f)-1])
		}
	})

	t.Run("API model in trellis tag", func(t *testing.T) {
		sents := []trellisapi.Sentence{
			{Tokens: strings.Fields("The dog barks ."), Labels: strings.Fields("DET NOUN VERB PUNCT")},
			{Tokens: strings.Fields("A cat sleeps ."), Labels: strings.Fields("DET NOUN VERB PUNCT")},
			{Tokens: strings.Fields("Dogs bark loudly ."), Labels: strings.Fields("NOUN VERB ADV PUNCT")},
		}
		m, err := trellisapi.Train(context.Background(), sents, trellisapi.Options{Learner: trellisapi.Learner{Type: "crf"}, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		path := filepath.Join(t.TempDir(), "api.model")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		probe := strings.Fields("A dog barks loudly .")
		want, err := m.Tag(probe)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := mustRun(t, strings.Join(probe, "\n")+"\n\n", "tag", "--model", path)
		var got []string
		for _, l := range lines([]byte(strings.TrimSpace(out))) {
			f := strings.Fields(l)
			got = append(got, f[len(f)-1])
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("trellis tag: %q, the API: %q", got, want)
		}
		explained, _ := mustRun(t, strings.Join(probe, "\n")+"\n\n", "explain", "--model", path, "--top", "1")
		if !strings.Contains(explained, "# sentence 1") {
			t.Errorf("trellis explain on the API's model:\n%s", explained)
		}
	})
}
