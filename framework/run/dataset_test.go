package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/builtin"
)

// manySentences is a chunking corpus of n sentences over a small
// vocabulary (more than one encoding batch when n > tagger.BatchSize),
// with words seen once for min_count to prune.
func manySentences(n int) string {
	chunks := []string{"the DT B-NP\ndog NN I-NP\n", "barks VBZ B-VP\n", "a DT B-NP\ncat NN I-NP\n", "sleeps VBZ B-VP\n", "fast RB B-ADVP\n"}
	var b strings.Builder
	for i := range n {
		for k := range 2 + i%4 {
			b.WriteString(chunks[(i*3+k*2)%len(chunks)])
		}
		fmt.Fprintf(&b, "w%d NN B-NP\n\n", i)
	}
	return b.String()
}

const datasetSpec = `experiment "ds" {
  seed = 3
}
corpus "train" {
  path    = "train.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}
corpus "test" {
  path    = "test.txt"
  format  = "conll"
  columns = ["word", "pos", "chunk"]
}
labels {
  column = "chunk"
  scheme = "iob2"
}
features {
  min_count = %d
  emission "w" {
    column  = "word"
    offsets = [-1, 0, 1]
  }
  emission "p" {
    column = "pos"
  }
  transition "trans" {}
}
learner "perceptron" {
  type   = "perceptron"
  epochs = 2
}
learner "crf" {
  type           = "crf"
  max_iterations = 5
}
learner "sgd" {
  type      = "crf"
  algorithm      = "sgd"
  max_iterations = 2
}
evaluation {
  train = "train"
  test  = "test"
}
`

// TestDatasetOnDiskSameBytes: the training set on disk, spilled to disk
// part way (a budget smaller than the first batch's encoding, then one
// past it) and kept in memory train the same models, to the byte, with
// min_count pruning (the on-disk rewrite) and without; the run removes
// the folders it wrote.
func TestDatasetOnDiskSameBytes(t *testing.T) {
	templates, _ := builtin.Registries()
	for _, minCount := range []int{1, 2} {
		s := specBeside(t, fmt.Sprintf(datasetSpec, minCount), manySentences(700), manySentences(20))
		scratchDir := t.TempDir()
		var log bytes.Buffer
		run := func(name, dataset string, budget int64) string {
			log.Reset()
			dir := filepath.Join(t.TempDir(), name)
			_, err := Run(context.Background(), Options{Spec: s, Templates: templates, OutDir: dir, Threads: 2, Log: zerolog.New(&log),
				Stdout: io.Discard, Dataset: dataset, MemoryBudget: budget, DatasetDir: scratchDir})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if left, _ := os.ReadDir(scratchDir); len(left) != 0 {
				t.Errorf("%s: the run left %v in the dataset folder", name, left)
			}
			return dir
		}
		mem := run("memory", "", 0)
		for _, tc := range []struct {
			name, dataset string
			budget        int64
			// spilt: after how many sentences the set moved to disk (0:
			// never; -1 written there from the start).
			spilt int
		}{{"disk", "disk", 0, -1}, {"spill-at-once", "auto", 1, 256}, {"spill-later", "auto", 60 << 10, 512}, {"auto-in-memory", "auto", 1 << 40, 0}} {
			checks, err := CheckRerun(mem, run(tc.name, tc.dataset, tc.budget))
			onDisk := strings.Contains(log.String(), "training on the encoded training set on disk")
			spill := fmt.Sprintf(`"sentences":%d,"message":"the encoded training set passed the memory budget`, tc.spilt)
			if onDisk != (tc.spilt != 0) || (tc.spilt > 0) != strings.Contains(log.String(), spill) {
				t.Errorf("%s: on disk %v, want %v after %d sentences; log:\n%s", tc.name, onDisk, tc.spilt != 0, tc.spilt, log.String())
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range checks {
				if !c.Identical {
					t.Errorf("min_count %d, %s: %s differs from the in-memory run's: %s", minCount, tc.name, c.File, c.Detail)
				}
			}
			if len(checks) != 10 { // 3 models, 3 predictions, 3 eval files, metrics
				t.Errorf("%s: %d files checked", tc.name, len(checks))
			}
		}
	}
}

// TestDatasetOnDiskRefused: a spec whose encoding reads the sentences in
// memory (a neural encoder's inputs) cannot put its training set on disk:
// a spec error at the setting, and nothing written; "auto" keeps it in
// memory.
func TestDatasetOnDiskRefused(t *testing.T) {
	src := strings.Replace(fmt.Sprintf(datasetSpec, 1), "features {", "features {\n  dataset = \"disk\"", 1)
	src = strings.Replace(src, `learner "perceptron" {`, `encoder "e" {
  word_dim = 4
  hidden   = 4
  epochs   = 1
}
learner "neural" {
  type    = "crf"
  encoder = "e"
}
learner "perceptron" {`, 1)
	s := specBeside(t, src, manySentences(10), manySentences(3))
	templates, _ := builtin.Registries()
	out := filepath.Join(t.TempDir(), "out")
	_, err := Run(context.Background(), Options{Spec: s, Templates: templates, OutDir: out, Log: zerolog.Nop(), Stdout: io.Discard, Learners: []string{"perceptron"}})
	var de *DiagnosticsError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "neural encoder") || !strings.Contains(err.Error(), "spec.hcl:") {
		t.Fatalf("error %v, want a spec error at the dataset setting naming the neural encoder", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the refused run wrote %s", out)
	}
	if _, err := Run(context.Background(), Options{Spec: s, Templates: templates, OutDir: out, Log: zerolog.Nop(), Stdout: io.Discard,
		Learners: []string{"perceptron"}, Dataset: "auto"}); err != nil {
		t.Errorf("dataset auto: %v", err)
	}
}

// TestDatasetOnDiskCorruptReencoded: a training set whose file changed
// between writing and opening fails its checksum and is encoded again;
// the run trains the same model as in memory, from the second writing.
func TestDatasetOnDiskCorruptReencoded(t *testing.T) {
	templates, _ := builtin.Registries()
	s := specBeside(t, fmt.Sprintf(datasetSpec, 1), manySentences(300), manySentences(10))
	writes := 0
	afterDatasetWrite = func(dir string) {
		writes++
		if writes == 1 {
			p := filepath.Join(dir, "attrs.bin")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 0x40
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	defer func() { afterDatasetWrite = nil }()
	var log bytes.Buffer
	run := func(name, dataset string) string {
		dir := filepath.Join(t.TempDir(), name)
		if _, err := Run(context.Background(), Options{Spec: s, Templates: templates, OutDir: dir, Log: zerolog.New(&log), Stdout: io.Discard,
			Learners: []string{"perceptron"}, Dataset: dataset}); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	disk := run("disk", "disk")
	if writes != 2 || !strings.Contains(log.String(), "failed its check: encoding it again") || !strings.Contains(log.String(), "CRC-32C") {
		t.Errorf("%d writes, want 2 (the corrupt one re-encoded); log:\n%s", writes, log.String())
	}
	checks, err := CheckRerun(run("memory", ""), disk)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if !c.Identical {
			t.Errorf("%s differs from the in-memory run's: %s", c.File, c.Detail)
		}
	}
}
