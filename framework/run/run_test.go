package run

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/rundir"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// Two tiny chunking corpora in IOB2, and their IOB1 spelling.
const (
	iob2Train = "The DT B-NP\ndog NN I-NP\nbarks VBZ B-VP\n. . O\n\nA DT B-NP\ncat NN I-NP\nsleeps VBZ B-VP\n\nDogs NNS B-NP\nbark VBP B-VP\n"
	iob2Test  = "The DT B-NP\ncat NN I-NP\nbarks VBZ B-VP\n\nA DT B-NP\ndog NN I-NP\n"
	iob1Train = "The DT I-NP\ndog NN I-NP\nbarks VBZ I-VP\n. . O\n\nA DT I-NP\ncat NN I-NP\nsleeps VBZ I-VP\n\nDogs NNS I-NP\nbark VBP I-VP\n"
	iob1Test  = "The DT I-NP\ncat NN I-NP\nbarks VBZ I-VP\n\nA DT I-NP\ndog NN I-NP\n"
)

// chunkSpec writes a spec and its corpora into a new folder and decodes
// it. labels is the body of the labels block after the column.
func chunkSpec(t *testing.T, labels, train, test string) *spec.Spec {
	t.Helper()
	src := fmt.Sprintf(`experiment "chunk" {
  seed = 1
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
  %s
}
features {
  emission "w" {
    column = "word"
  }
  transition "trans" {}
}
learner "hmm" {
  type = "hmm"
}
learner "perceptron" {
  type   = "perceptron"
  epochs = 3
}
evaluation {
  train = "train"
  test  = "test"
}
`, labels)
	return specBeside(t, src, train, test)
}

func TestCheckData(t *testing.T) {
	tests := []struct {
		name        string
		labels      string
		train, test string
		err         string // substring of the data error
		// diags are "severity: summary: detail substring" per diagnostic.
		diags []string
	}{
		{name: "iob2 data under iob2", labels: `scheme = "iob2"`, train: iob2Train, test: iob2Test},
		{name: "iob1 data under iob2", labels: `scheme = "iob2"`, train: iob1Train, test: iob2Test,
			diags: []string{`error: Labels contradict the scheme: train.txt:1: "I-NP" begins the sentence, which iob2 does not allow; 3 of 3 sentences of corpus "train" contradict iob2, and constrained decoding`}},
		{name: "iob1 data, constrained = false", labels: "scheme = \"iob2\"\n  constrained = false", train: iob1Train, test: iob2Test,
			diags: []string{`warning: Labels contradict the scheme: train.txt:1: "I-NP" begins the sentence`}},
		{name: "iob1 test data under iob2", labels: `scheme = "iob2"`, train: iob2Train, test: iob1Test,
			diags: []string{`warning: Labels contradict the scheme: test.txt:1: "I-NP" begins the sentence, which iob2 does not allow; 2 of 2 sentences of corpus "test"`}},
		{name: "iob2 data under iob1", labels: `scheme = "iob1"`, train: iob2Train, test: iob1Test,
			diags: []string{`warning: Labels look like another scheme: Every chunk in corpus "train"`}},
		{name: "no scheme, no check", labels: "", train: iob1Train, test: iob2Test},
		{name: "a bad line in each corpus", labels: `scheme = "iob2"`, train: iob2Train + "\nx y\n", test: "\xff DT B-NP\n",
			err: "train.txt:13: expected 3 columns (word pos chunk), found 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := chunkSpec(t, tc.labels, tc.train, tc.test)
			stats, diags, err := CheckData(s, nil)
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "test.txt:1: invalid UTF-8")):
				t.Fatalf("error %v, want %q and the test file's", err, tc.err)
			case tc.err == "" && err != nil:
				t.Fatal(err)
			}
			if len(diags) != len(tc.diags) {
				t.Fatalf("%d diagnostics, want %d: %v", len(diags), len(tc.diags), diags)
			}
			for i, d := range diags {
				sev := "error"
				if d.Severity == hcl.DiagWarning {
					sev = "warning"
				}
				got := sev + ": " + d.Summary + ": " + d.Detail
				if !strings.Contains(strings.ReplaceAll(got, filepath.Dir(s.File)+"/", ""), tc.diags[i]) {
					t.Errorf("diagnostic %q\nwant it to contain %q", got, tc.diags[i])
				}
				if d.Subject == nil || d.Subject.Filename != s.File || d.Subject.Start.Line != 16 || d.Subject.Start.Column != 12 {
					t.Errorf("diagnostic at %v, want the scheme (16:12) of %s", d.Subject, s.File)
				}
			}
			if tc.err == "" && (len(stats) != 2 || stats[0].Sentences != 3 || stats[0].Tokens != 9 || stats[1].Sentences != 2) {
				t.Errorf("stats %+v", stats)
			}
		})
	}
}

// TestRunWritesTypedFiles runs two learners into a folder and reads the
// run directory back with rundir's types: what a rerun must reproduce,
// what compare reads, and that the test sentences back the comparison.
func TestRunWritesTypedFiles(t *testing.T) {
	s := chunkSpec(t, `scheme = "iob2"`, iob2Train, iob2Test)
	templates, _ := builtin.Registries()
	run := func(dir string) *Result {
		var table bytes.Buffer
		res, err := Run(context.Background(), Options{Spec: s, Templates: templates, OutDir: dir, Threads: 2, Log: zerolog.Nop(), Stdout: &table, Command: []string{"trellis", "run", s.File}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(table.String(), "hmm vs perceptron") {
			t.Errorf("table without the comparison:\n%s", table.String())
		}
		return res
	}
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	res := run(a)
	run(b)

	m, err := rundir.ReadMetrics(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"hmm", "perceptron"} {
		if m[name] == nil || m[name].MainValue != res.Metrics[name].MainValue || m[name].MainMetric != "f1" {
			t.Errorf("%s: metrics.json says %+v, the run %+v", name, m[name], res.Metrics[name])
		}
	}
	man, err := rundir.ReadManifest(a)
	if err != nil {
		t.Fatal(err)
	}
	if man.Scheme.String() != "iob2" || man.TrainCorpus != "train" || man.TestCorpus != "test" || man.LabelColumn != "chunk" ||
		man.Learners["perceptron"].Type != "perceptron" || len(man.DataSHA256) != 2 || man.Seed != 1 {
		t.Errorf("manifest %+v", man)
	}
	cmp, err := rundir.ReadComparisons(a)
	if err != nil || len(cmp) != 1 || cmp[0].A != "hmm" || cmp[0].B != "perceptron" || cmp[0].Samples != BootstrapSamples {
		t.Errorf("comparisons %+v, %v", cmp, err)
	}

	checks, err := CheckRerun(a, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if !c.Identical {
			t.Errorf("%s differs between two runs: %s", c.File, c.Detail)
		}
	}
	if len(checks) != 7 { // 2 models, 2 predictions, 2 eval files, metrics
		t.Errorf("%d files checked: %+v", len(checks), checks)
	}

	var out bytes.Buffer
	both, err := CompareDirs([]string{a, b}, 1, &out)
	if err != nil {
		t.Fatal(err)
	}
	if got := both.Metrics[a+":hmm"].MainValue; got != res.Metrics["hmm"].MainValue {
		t.Errorf("compare read hmm's F1 as %v", got)
	}
	for _, c := range both.Comparisons {
		if c.A == a+":hmm" && c.B == b+":hmm" && (c.Diff != 0 || c.PValue != 1) {
			t.Errorf("a run against its identical rerun: %+v", c.Comparison)
		}
	}
}

func TestMeanStd(t *testing.T) {
	for _, tc := range []struct {
		x         []float64
		mean, std float64
	}{
		{[]float64{1}, 1, 0},
		{[]float64{1, 3}, 2, math.Sqrt2},
		{[]float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, math.Sqrt(32.0 / 7)},
	} {
		mean, std := meanStd(tc.x)
		if math.Abs(mean-tc.mean) > 1e-12 || math.Abs(std-tc.std) > 1e-12 {
			t.Errorf("meanStd(%v) = %v, %v, want %v, %v", tc.x, mean, std, tc.mean, tc.std)
		}
	}
}

func TestResumable(t *testing.T) {
	dir := t.TempDir()
	if Resumable(dir) {
		t.Error("an empty folder is resumable")
	}
	os.MkdirAll(filepath.Join(dir, CheckpointDir), 0o755)
	os.WriteFile(filepath.Join(dir, CheckpointDir, "run.json"), []byte("{}"), 0o644)
	if Resumable(dir) {
		t.Error("a run record alone is resumable")
	}
	os.WriteFile(filepath.Join(dir, CheckpointDir, "crf.ckpt"), []byte("x"), 0o644)
	if !Resumable(dir) {
		t.Error("a checkpoint is not resumable")
	}
}
