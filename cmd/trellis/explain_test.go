package main

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/corpus"
)

// explainJSON is what `trellis explain --json` prints per sentence.
type explainJSON struct {
	Words  []string `json:"words"`
	Labels []string `json:"labels"`
	Score  float64  `json:"score"`
	Tokens []struct {
		Label    string  `json:"label"`
		Score    float64 `json:"score"`
		State    float64 `json:"state"`
		Features []struct {
			Attr         string  `json:"attribute"`
			Value        float64 `json:"value"`
			Weight       float64 `json:"weight"`
			Contribution float64 `json:"contribution"`
		} `json:"features"`
		Rest      float64  `json:"rest"`
		RestCount int      `json:"rest_count"`
		Trans     *float64 `json:"transition"`
		Start     *float64 `json:"start"`
		Stop      *float64 `json:"stop"`
		RunnerUp  string   `json:"runner_up"`
		Margin    *float64 `json:"margin"`
		Marginal  *float64 `json:"marginal"`
	} `json:"tokens"`
}

// explainModels trains the HMM, the perceptron and the CRF on the chunking
// test corpus with `trellis run` and returns the models folder.
func explainModels(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := string(readFile(t, chunkSpec))
	src = strings.Replace(src, `"chunk-train.txt"`, `"`+filepath.ToSlash(mustAbs(t, "testdata/chunk-train.txt"))+`"`, 1)
	src = strings.Replace(src, `"chunk-test.txt"`, `"`+filepath.ToSlash(mustAbs(t, chunkTest))+`"`, 1)
	src = strings.Replace(src, `  transition "trans" {}`, `  suffix "suf" {
    column  = "word"
    lengths = [1, 2]
  }
  emission "p" {
    column  = "pos"
    offsets = [-1, 0, 1]
  }
  transition "trans" {}`, 1)
	src += `
learner "perceptron" {
  type   = "perceptron"
  epochs = 3
}
learner "crf" {
  type           = "crf"
  max_iterations = 30
}
`
	spec := filepath.Join(dir, "spec.hcl")
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	mustRun(t, "", "run", spec, "--out", out, "--log-level", "warn")
	return filepath.Join(out, "models")
}

// TestExplainJSON runs explain end to end on a model of every learner: the
// labels are `trellis tag`'s, the parts of every token add up to its score
// and the token scores to the sentence's, --top bounds the features shown,
// margins are never negative (the labels are Viterbi's), and marginals come
// with the probabilistic models only.
func TestExplainJSON(t *testing.T) {
	models := explainModels(t)
	for _, learner := range []string{"hmm", "perceptron", "crf"} {
		t.Run(learner, func(t *testing.T) {
			model := filepath.Join(models, learner+".model")
			tagged, _ := mustRun(t, "", "tag", "--model", model, chunkTest)
			var want [][]string
			var cur []string
			for _, l := range strings.Split(tagged, "\n") {
				if l == "" {
					if cur != nil {
						want = append(want, cur)
					}
					cur = nil
					continue
				}
				f := strings.Fields(l)
				cur = append(cur, f[len(f)-1])
			}
			// The models read the POS column: plain text is refused,
			// naming it.
			code, stdout, stderr := trellis(t, "the cat\n", "explain", "--model", model, "--input", "text")
			if code != exitUsage || stdout != "" || !strings.Contains(stderr, `the column "pos"`) {
				t.Errorf("--input text on a model that reads POS: exit %d, stderr %q", code, stderr)
			}
			for _, top := range []string{"0", "2"} {
				out, _ := mustRun(t, "", "explain", "--model", model, chunkTest, "--json", "--top", top)
				sc := bufio.NewScanner(strings.NewReader(out))
				sc.Buffer(nil, 1<<24)
				k := 0
				for ; sc.Scan(); k++ {
					var ex explainJSON
					if err := json.Unmarshal(sc.Bytes(), &ex); err != nil {
						t.Fatalf("sentence %d: %v", k, err)
					}
					if k >= len(want) || !reflect.DeepEqual(ex.Labels, want[k]) {
						t.Fatalf("sentence %d: explain labels %q differ from tag's", k, ex.Labels)
					}
					checkExplained(t, k, ex, top == "2", learner != "perceptron")
				}
				if k != len(want) {
					t.Errorf("--top %s: %d sentences explained, %d tagged", top, k, len(want))
				}
			}
		})
	}
}

func checkExplained(t *testing.T, k int, ex explainJSON, top2, probabilistic bool) {
	t.Helper()
	const tol = 1e-9
	sum := 0.0
	for i, te := range ex.Tokens {
		features := te.Rest
		for _, c := range te.Features {
			features += c.Contribution
		}
		if top2 && len(te.Features) > 2 || !top2 && te.RestCount != 0 {
			t.Errorf("sentence %d token %d: %d features shown, %d more", k, i, len(te.Features), te.RestCount)
		}
		parts := features
		for _, p := range []*float64{te.Trans, te.Start, te.Stop} {
			if p != nil {
				parts += *p
			}
		}
		if math.Abs(features-te.State) > tol || math.Abs(parts-te.Score) > tol {
			t.Errorf("sentence %d token %d: features %v (state %v), parts %v (score %v)", k, i, features, te.State, parts, te.Score)
		}
		if (te.Start != nil) != (i == 0) || (te.Stop != nil) != (i == len(ex.Tokens)-1) || (te.Trans != nil) != (i > 0) {
			t.Errorf("sentence %d token %d: start %v, stop %v, transition %v", k, i, te.Start, te.Stop, te.Trans)
		}
		if te.Margin != nil && *te.Margin < -tol {
			t.Errorf("sentence %d token %d: negative margin %v", k, i, *te.Margin)
		}
		if (te.Marginal != nil) != probabilistic || te.Marginal != nil && !(*te.Marginal > 0 && *te.Marginal <= 1+tol) {
			t.Errorf("sentence %d token %d: marginal %v", k, i, te.Marginal)
		}
		sum += te.Score
	}
	if math.Abs(sum-ex.Score) > tol {
		t.Errorf("sentence %d: tokens sum to %v, sentence score %v", k, sum, ex.Score)
	}
}

// TestExplainText checks the human-readable form against a golden file.
func TestExplainText(t *testing.T) {
	model := filepath.Join(sharedRun(t, chunkSpec), "models", "hmm.model")
	in := "the DT\nbig JJ\ndog NN\nsees VBZ\nit PRP\n. .\n\n"
	a, _ := mustRun(t, in, "explain", "--model", model, "--top", "2")
	b, _ := mustRun(t, in, "explain", "--top=2", "-", "--model="+model)
	if a != b {
		t.Errorf("stdin and - differ:\n%s\n%s", a, b)
	}
	golden(t, "testdata/explain-chunk.golden", a)
	// Plain text, as trellis tag --input text reads it: the same tokens,
	// the same explanation.
	c, _ := mustRun(t, "the big dog sees it .\n", "explain", "--model", model, "--top", "2", "--input", "text")
	if c != a {
		t.Errorf("--input text differs from the corpus input:\n%s\n%s", c, a)
	}
}

// TestExplainBadInput: usage mistakes exit 2, failures 1, with a message
// and nothing on stdout.
func TestExplainBadInput(t *testing.T) {
	model := filepath.Join(sharedRun(t, chunkSpec), "models", "hmm.model")
	missing := filepath.Join(t.TempDir(), "missing.model")
	bad := filepath.Join(t.TempDir(), "bad.txt")
	if err := os.WriteFile(bad, []byte("the DT\ndog\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no model", []string{"explain", chunkTest}, exitUsage, "--model is required"},
		{"missing model", []string{"explain", "--model", missing, chunkTest}, exitFailure, "missing.model"},
		{"model is not a model", []string{"explain", "--model", chunkTest, chunkTest}, exitFailure, "trellis: error:"},
		{"negative top", []string{"explain", "--model", model, "--top", "-1", chunkTest}, exitUsage, "--top must be 0 (all) or more"},
		{"top not a number", []string{"explain", "--model", model, "--top", "many", chunkTest}, exitUsage, "invalid value \"many\""},
		{"two files", []string{"explain", "--model", model, chunkTest, chunkTest}, exitUsage, "at most one input file"},
		{"bad --constrained", []string{"explain", "--model", model, "--constrained", "maybe", chunkTest}, exitUsage, "--constrained must be"},
		{"bad --input", []string{"explain", "--model", model, "--input", "html", chunkTest}, exitUsage, `unknown input "html"`},
		{"unknown flag", []string{"explain", "--model", model, "--nope"}, exitUsage, "nope"},
		{"missing input", []string{"explain", "--model", model, bad + ".none"}, exitFailure, "bad.txt.none"},
		{"bad line", []string{"explain", "--model", model, bad}, exitUsage, bad + ":2: expected 3 columns"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := trellis(t, "", tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstderr:\n%s", code, tc.code, stderr)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr)
			}
			if stdout != "" {
				t.Errorf("failing command wrote to stdout:\n%s", stdout)
			}
		})
	}
}

// TestExplainChars: explain works on a segmentation model (chars format,
// BMES, constrained), one character per token.
func TestExplainChars(t *testing.T) {
	dir := t.TempDir()
	train := filepath.ToSlash(mustAbs(t, "../../framework/corpus/testdata/roundtrip/seg.chars"))
	src := `experiment "seg" {
  seed = 1
}
corpus "train" {
  path   = "` + train + `"
  format = "chars"
}
labels {
  column = "label"
  scheme = "bmes"
}
features {
  emission "c" {
    column  = "char"
    offsets = [-1, 0, 1]
  }
  transition "t" {}
}
learner "crf" {
  type = "crf"
}
evaluation {
  train = "train"
  test  = "train"
}
`
	spec := filepath.Join(dir, "seg.hcl")
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "", "run", spec, "--out", filepath.Join(dir, "run"), "--log-level", "warn")
	model := filepath.Join(dir, "run", "models", "crf.model")
	out, _ := mustRun(t, "中国经济\n希腊的经济\n", "explain", "--model", model, "--json")
	tagged, _ := mustRun(t, "中国经济\n希腊的经济\n", "tag", "--model", model)
	taggedLines := lines([]byte(strings.TrimSpace(tagged)))
	var words [][]string
	sc := bufio.NewScanner(strings.NewReader(out))
	for k := 0; sc.Scan(); k++ {
		var ex explainJSON
		if err := json.Unmarshal(sc.Bytes(), &ex); err != nil {
			t.Fatal(err)
		}
		checkExplained(t, k, ex, false, true)
		words = append(words, ex.Words)
		// The labels segment the line as trellis tag does.
		if k >= len(taggedLines) {
			t.Fatalf("%d sentences explained, %d tagged", k+1, len(taggedLines))
		}
		if got, want := corpus.WordsFromLabels(ex.Words, ex.Labels), strings.Fields(taggedLines[k]); !reflect.DeepEqual(got, want) {
			t.Errorf("sentence %d: explain's labels make %q, trellis tag wrote %q", k, got, want)
		}
	}
	if want := [][]string{{"中", "国", "经", "济"}, {"希", "腊", "的", "经", "济"}}; !reflect.DeepEqual(words, want) {
		t.Errorf("words %q, want %q", words, want)
	}
}

// TestExplainUnconstrained: with --constrained off every other label is
// allowed, so every token has a runner-up and a margin, and the labels
// are those of tag --constrained off.
func TestExplainUnconstrained(t *testing.T) {
	model := filepath.Join(sharedRun(t, chunkSpec), "models", "hmm.model")
	tagged, _ := mustRun(t, "", "tag", "--model", model, "--constrained", "off", chunkTest)
	out, _ := mustRun(t, "", "explain", "--model", model, "--constrained", "off", "--json", chunkTest)
	taggedLines := lines([]byte(strings.TrimSpace(tagged)))
	sc := bufio.NewScanner(strings.NewReader(out))
	line := 0
	for k := 0; sc.Scan(); k++ {
		var ex explainJSON
		if err := json.Unmarshal(sc.Bytes(), &ex); err != nil {
			t.Fatal(err)
		}
		checkExplained(t, k, ex, false, true)
		for i, te := range ex.Tokens {
			if te.Margin == nil || te.RunnerUp == "" {
				t.Errorf("sentence %d token %d: no runner-up without constraints", k, i)
			}
			f := strings.Fields(taggedLines[line])
			if f[len(f)-1] != te.Label {
				t.Errorf("sentence %d token %d: explain %s, tag %s", k, i, te.Label, f[len(f)-1])
			}
			line++
		}
		line++ // the blank line after a sentence
	}
}
