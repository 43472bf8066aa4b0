package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/scheme"
)

// schemeCopy writes the chunk sample's file src, its labels re-encoded from
// IOB2 into sch, to dir and returns the new path.
func schemeCopy(t *testing.T, dir, src string, sch scheme.Scheme) string {
	t.Helper()
	var out strings.Builder
	var words, labels []string
	flush := func() {
		if len(words) == 0 {
			return
		}
		for i, l := range scheme.Convert(nil, labels, scheme.IOB2, sch) {
			out.WriteString(words[i] + " " + l + "\n")
		}
		out.WriteString("\n")
		words, labels = words[:0], labels[:0]
	}
	for _, line := range lines(readFile(t, src)) {
		if line == "" {
			flush()
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		words, labels = append(words, line[:i]), append(labels, line[i+1:])
	}
	flush()
	path := filepath.Join(dir, sch.String()+"-"+filepath.Base(src))
	if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// encodeSpec is testdata/chunk.hcl on the given files, with a perceptron and
// the labels block's scheme and encode (none when encode is "").
func encodeSpec(t *testing.T, dir, train, test, sch, encode string) string {
	t.Helper()
	src := string(readFile(t, chunkSpec))
	src = strings.Replace(src, `"chunk-train.txt"`, `"`+train+`"`, 1)
	src = strings.Replace(src, `"chunk-test.txt"`, `"`+test+`"`, 1)
	labels := `scheme = "` + sch + `"`
	if encode != "" {
		labels += "\n  encode = \"" + encode + "\""
	}
	src = strings.Replace(src, `scheme = "iob2"`, labels, 1)
	src += "\nlearner \"perceptron\" {\n  type   = \"perceptron\"\n  epochs = 3\n}\n"
	path := filepath.Join(dir, sch+"-"+encode+".hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// labelsOf returns the last field of every token line of CoNLL text, one
// slice per sentence.
func labelsOf(text string) [][]string {
	var out [][]string
	var cur []string
	for _, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			if len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		f := strings.Fields(line)
		cur = append(cur, f[len(f)-1])
	}
	return out
}

// TestRunEncoding trains, end to end through the command, on the chunk
// sample in every span scheme with every encoding: the model decodes in
// the encoding and records the corpus's scheme, a version 2 model file
// exactly when there is an encoding; the run's predictions, `trellis tag`
// (plain and n-best) and `trellis eval` all speak the corpus's scheme and
// agree with the run's metrics.
func TestRunEncoding(t *testing.T) {
	dir := t.TempDir()
	for _, corpusScheme := range []scheme.Scheme{scheme.IOB1, scheme.IOB2, scheme.BIOES} {
		train := schemeCopy(t, dir, "testdata/chunk-train.txt", corpusScheme)
		test := schemeCopy(t, dir, chunkTest, corpusScheme)
		for _, encode := range []string{"", "iob1", "iob2", "bioes", "bilou"} {
			t.Run(corpusScheme.String()+"-"+encode, func(t *testing.T) {
				specPath := encodeSpec(t, dir, train, test, corpusScheme.String(), encode)
				out := filepath.Join(dir, "run-"+corpusScheme.String()+"-"+encode)
				mustRun(t, "", "run", specPath, "--out", out, "--learner", "perceptron")
				modelPath := filepath.Join(out, "models", "perceptron.model")
				m, err := model.Load(modelPath)
				if err != nil {
					t.Fatal(err)
				}
				training := corpusScheme
				if encode != "" {
					training, _ = scheme.Parse(strings.Replace(encode, "bilou", "bioes", 1))
				}
				encoded := training != corpusScheme
				if m.Scheme != training.String() || m.Output() != corpusScheme.String() {
					t.Errorf("model scheme %q output %q, want %v and %v", m.Scheme, m.Output(), training, corpusScheme)
				}
				if want := map[bool]int{false: model.PlainVersion, true: model.Version}[encoded]; m.Version != want {
					t.Errorf("model format version %d, want %d", m.Version, want)
				}
				// The model's labels are in the encoding: BIOES has S- and E-.
				hasS := strings.Contains(strings.Join(m.Labels, " "), "S-")
				if hasS != (training == scheme.BIOES) {
					t.Errorf("model labels %v in %v", m.Labels, training)
				}
				checkOutputScheme(t, out, modelPath, test, corpusScheme)
			})
		}
	}
}

// checkOutputScheme checks that the run's predictions are in sch, that
// tag and tag --nbest reproduce them, and that eval agrees with metrics.json.
func checkOutputScheme(t *testing.T, out, modelPath, test string, sch scheme.Scheme) {
	t.Helper()
	preds := string(readFile(t, filepath.Join(out, "predictions", "perceptron.txt")))
	gold := labelsOf(string(readFile(t, test)))
	got := labelsOf(preds)
	if len(got) != len(gold) {
		t.Fatalf("%d predicted sentences, %d gold", len(got), len(gold))
	}
	for k, labels := range got {
		if c, bad := scheme.Check(labels, sch); bad {
			t.Fatalf("sentence %d: predictions %v not in %v: %s", k, labels, sch, c.Reason)
		}
	}
	tagged, _ := mustRun(t, "", "tag", "--model", modelPath, test)
	if tagged != preds {
		t.Errorf("trellis tag differs from the run's predictions")
	}
	nbest, _ := mustRun(t, "", "tag", "--model", modelPath, "--nbest", "2", "--marginals", "--output", "json", test)
	var best [][]string
	dec := json.NewDecoder(strings.NewReader(nbest))
	for dec.More() {
		var line struct {
			Labels []string `json:"labels"`
			NBest  []struct {
				Labels []string `json:"labels"`
			} `json:"nbest"`
		}
		if err := dec.Decode(&line); err != nil {
			t.Fatalf("tag --output json: %v", err)
		}
		if len(line.NBest) == 0 || !slices.Equal(line.NBest[0].Labels, line.Labels) {
			t.Fatalf("tag --nbest's best path %v is not its labels %v", line.NBest, line.Labels)
		}
		best = append(best, line.Labels)
	}
	if strings.Join(flatten(best), " ") != strings.Join(flatten(got), " ") {
		t.Errorf("tag --nbest's best paths differ from tag's")
	}
	stdout, _ := mustRun(t, "", "eval", "--model", modelPath, test, "--json")
	var res struct {
		F1 *float64 `json:"f1"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.F1 == nil {
		t.Fatalf("eval --json: %v\n%s", err, stdout)
	}
	var metrics map[string]struct {
		F1 *float64 `json:"f1"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(out, "metrics.json")), &metrics); err != nil {
		t.Fatal(err)
	}
	if f := metrics["perceptron"].F1; f == nil || *f != *res.F1 || *f < 0.5 {
		t.Errorf("metrics.json F1 %v, eval F1 %v (want equal, above 0.5)", f, *res.F1)
	}
}

func flatten(x [][]string) []string {
	var out []string
	for _, s := range x {
		out = append(out, s...)
	}
	return out
}
