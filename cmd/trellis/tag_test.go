package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// sharedRunAll runs `trellis run SPEC` with all its learners once per spec
// and returns the run directory.
func sharedRunAll(t *testing.T, specPath string) string {
	t.Helper()
	runs.Lock()
	defer runs.Unlock()
	key := specPath + "#all"
	if dir, ok := runs.dirs[key]; ok {
		return dir
	}
	dir := filepath.Join(runs.root, fmt.Sprintf("run%d", len(runs.dirs)))
	mustRun(t, "", "run", specPath, "--out", dir)
	runs.dirs[key] = dir
	return dir
}

// taggedColumns reads `trellis tag` output of a column file: per
// sentence, the tokens (column word) and the labels appended as the last
// column. CoNLL-U comments, multiword-token ranges and empty nodes, and
// -DOCSTART- lines, are skipped.
func taggedColumns(out string, word int) (tokens, labels [][]string) {
	var ts, ls []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
			if len(ts) > 0 {
				tokens, labels = append(tokens, ts), append(labels, ls)
				ts, ls = nil, nil
			}
			continue
		case strings.HasPrefix(line, "#"), f[0] == "-DOCSTART-",
			word == 1 && strings.ContainsAny(f[0], "-."):
			continue
		}
		ts, ls = append(ts, f[word]), append(ls, f[len(f)-1])
	}
	if len(ts) > 0 {
		tokens, labels = append(tokens, ts), append(labels, ls)
	}
	return tokens, labels
}

// asText renders sentences as --input text, asTokens as --input tokens.
func asText(sents [][]string) string {
	var b strings.Builder
	for _, s := range sents {
		b.WriteString(strings.Join(s, " ") + "\n")
	}
	return b.String()
}

func asTokens(sents [][]string) string {
	var b strings.Builder
	for _, s := range sents {
		b.WriteString(strings.Join(s, "\n") + "\n\n")
	}
	return b.String()
}

// parseTSV reads token<TAB>label output.
func parseTSV(t *testing.T, out string) (tokens, labels [][]string) {
	t.Helper()
	if out != "" && !strings.HasSuffix(out, "\n\n") {
		t.Errorf("tsv output does not end with a blank line: %q", out[max(0, len(out)-40):])
	}
	for _, block := range strings.Split(strings.TrimSuffix(out, "\n\n"), "\n\n") {
		var ts, ls []string
		for _, line := range strings.Split(block, "\n") {
			f := strings.Split(line, "\t")
			if len(f) != 2 {
				t.Fatalf("tsv line %q: want token<TAB>label", line)
			}
			ts, ls = append(ts, f[0]), append(ls, f[1])
		}
		tokens, labels = append(tokens, ts), append(labels, ls)
	}
	return tokens, labels
}

type jsonLine struct {
	Start  *int        `json:"start"`
	End    *int        `json:"end"`
	Text   string      `json:"text"`
	Tokens []jsonPiece `json:"tokens"`
	Labels []string    `json:"labels"`
	Words  []jsonPiece `json:"words"`
	Spans  []struct {
		jsonPiece
		First, Last int
	} `json:"spans"`
	Marginals []float64 `json:"marginals"`
	NBest     []struct {
		Labels      []string `json:"labels"`
		Score       *float64 `json:"score"`
		Probability *float64 `json:"probability"`
	} `json:"nbest"`
}

// jsonPiece is a token, word or span of --output json.
type jsonPiece struct {
	Start *int   `json:"start"`
	End   *int   `json:"end"`
	Text  string `json:"text"`
	Label string `json:"label"`
}

// texts returns the pieces' texts.
func texts(ps []jsonPiece) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Text
	}
	return out
}

func parseJSONLines(t *testing.T, out string) []jsonLine {
	t.Helper()
	var got []jsonLine
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var j jsonLine
		if err := json.Unmarshal([]byte(line), &j); err != nil {
			t.Fatalf("not a JSON line: %q: %v", line, err)
		}
		got = append(got, j)
	}
	return got
}

// TestTagPlainText: for every learner, tagging the words of the test file
// as --input text and as --input tokens (from a file, from stdin, and
// with "-") gives the labels that tagging the file in its own format
// gives, in tsv and in JSON.
func TestTagPlainText(t *testing.T) {
	dir := sharedRunAll(t, "testdata/tag-learners.hcl")
	for _, learner := range []string{"hmm", "perceptron", "crf"} {
		t.Run(learner, func(t *testing.T) {
			model := filepath.Join(dir, "models", learner+".model")
			ref, _ := mustRun(t, "", "tag", "--model", model, chunkTest)
			words, want := taggedColumns(ref, 0)
			if len(words) != 25 {
				t.Fatalf("reference tagging has %d sentences, want 25", len(words))
			}
			textFile := filepath.Join(t.TempDir(), "in.txt")
			writeFiles(t, filepath.Dir(textFile), map[string]string{"in.txt": asText(words)})
			cases := []struct {
				name, stdin string
				args        []string
			}{
				{"text file", "", []string{"--input", "text", "--tokenizer", "lines", textFile}},
				{"text stdin", asText(words), []string{"--input", "text", "--tokenizer", "lines"}},
				{"text -", asText(words), []string{"--input", "text", "--tokenizer", "lines", "-"}},
				{"tokens stdin", asTokens(words), []string{"--input", "tokens", "--output", "tsv"}},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					out, _ := mustRun(t, tc.stdin, append([]string{"tag", "--model", model}, tc.args...)...)
					tokens, labels := parseTSV(t, out)
					if !reflect.DeepEqual(tokens, words) || !reflect.DeepEqual(labels, want) {
						t.Errorf("plain-text tagging differs from tagging the CoNLL file:\n%s", out)
					}
				})
			}
			for _, input := range []string{"text", "tokens", "corpus"} {
				t.Run("json "+input, func(t *testing.T) {
					stdin := map[string]string{"text": asText(words), "tokens": asTokens(words), "corpus": string(readFile(t, chunkTest))}[input]
					args := []string{"tag", "--model", model, "--input", input, "--output", "json"}
					if input == "text" {
						args = append(args, "--tokenizer", "lines")
					}
					out, _ := mustRun(t, stdin, args...)
					got := parseJSONLines(t, out)
					if len(got) != len(words) {
						t.Fatalf("%d JSON lines for %d sentences", len(got), len(words))
					}
					for k, j := range got {
						if !reflect.DeepEqual(texts(j.Tokens), words[k]) || !reflect.DeepEqual(j.Labels, want[k]) || j.Marginals != nil || j.NBest != nil {
							t.Errorf("sentence %d: %+v, want tokens %q labels %q", k, j, words[k], want[k])
						}
					}
				})
			}
		})
	}
}

// TestTagJSONDetailed: --marginals and --nbest in JSON agree with the
// detailed CoNLL output (same best path, marginals in (0,1], n-best
// probabilities descending and summing to at most 1).
func TestTagJSONDetailed(t *testing.T) {
	dir := sharedRunAll(t, "testdata/tag-learners.hcl")
	model := filepath.Join(dir, "models", "crf.model")
	ref, _ := mustRun(t, "", "tag", "--model", model, chunkTest)
	words, want := taggedColumns(ref, 0)
	out, _ := mustRun(t, asText(words), "tag", "--model", model, "--input", "text", "--tokenizer", "lines", "--output", "json", "--marginals", "--nbest", "3")
	for k, j := range parseJSONLines(t, out) {
		if !reflect.DeepEqual(j.Labels, want[k]) {
			t.Errorf("sentence %d: labels %q, want %q", k, j.Labels, want[k])
		}
		if len(j.Marginals) != len(j.Tokens) || len(j.NBest) == 0 || len(j.NBest) > 3 {
			t.Fatalf("sentence %d: %d marginals for %d tokens, %d best", k, len(j.Marginals), len(j.Tokens), len(j.NBest))
		}
		for _, m := range j.Marginals {
			if !(m > 0 && m <= 1+1e-9) {
				t.Errorf("sentence %d: marginal %v", k, m)
			}
		}
		if !reflect.DeepEqual(j.NBest[0].Labels, j.Labels) {
			t.Errorf("sentence %d: best of n-best %q is not the labels %q", k, j.NBest[0].Labels, j.Labels)
		}
		sum := 0.0
		for r, b := range j.NBest {
			if b.Score == nil || b.Probability == nil {
				t.Fatalf("sentence %d rank %d: null score or probability", k, r)
			}
			if r > 0 && *b.Probability > *j.NBest[r-1].Probability+1e-12 {
				t.Errorf("sentence %d: n-best probabilities not descending", k)
			}
			sum += *b.Probability
		}
		if sum > 1+1e-9 {
			t.Errorf("sentence %d: n-best probabilities sum to %v", k, sum)
		}
	}
	// tsv: token, label, marginal, then the 2nd and 3rd best labels.
	out, _ = mustRun(t, asText(words[:1]), "tag", "--model", model, "--input", "text", "--tokenizer", "lines", "--marginals", "--nbest", "3")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Split(line, "\t"); len(f) != 5 {
			t.Errorf("tsv line %q: want token, label, marginal, 2nd and 3rd label", line)
		}
	}
}

// TestTagPlainCoNLLU tags the forms of the UD sample as plain text with
// the quickstart's model (whose templates read only "form").
func TestTagPlainCoNLLU(t *testing.T) {
	dir := sharedRun(t, quickstart)
	model := filepath.Join(dir, "models", "hmm.model")
	ref, _ := mustRun(t, "", "tag", "--model", model, ewtTest)
	words, want := taggedColumns(ref, 1)
	if len(words) < 100 {
		t.Fatalf("only %d sentences read from the reference tagging", len(words))
	}
	out, _ := mustRun(t, asText(words), "tag", "--model", model, "--input", "text", "--tokenizer", "lines")
	tokens, labels := parseTSV(t, out)
	if !reflect.DeepEqual(tokens, words) || !reflect.DeepEqual(labels, want) {
		t.Errorf("plain-text tagging of the UD forms differs from tagging the CoNLL-U file")
	}
}

// TestTagRawTextSegmentation: a chars (segmentation) model reads raw
// text and prints the segmented words, for every learner; the same as
// tagging the unsegmented text in the chars format; JSON carries the words.
func TestTagRawTextSegmentation(t *testing.T) {
	dir := sharedRunAll(t, "testdata/cws.hcl")
	gold := strings.Split(strings.TrimSpace(string(readFile(t, "testdata/cws-test.txt"))), "\n")
	raw := strings.ReplaceAll(strings.Join(gold, "\n"), " ", "") + "\n"
	for _, learner := range []string{"hmm", "perceptron", "crf"} {
		t.Run(learner, func(t *testing.T) {
			model := filepath.Join(dir, "models", learner+".model")
			out, _ := mustRun(t, raw, "tag", "--model", model, "--input", "text")
			got := strings.Split(strings.TrimSpace(out), "\n")
			if len(got) != len(gold) {
				t.Fatalf("%d lines for %d sentences:\n%s", len(got), len(gold), out)
			}
			same, _ := mustRun(t, raw, "tag", "--model", model)
			if same != out {
				t.Errorf("--input text differs from the chars format's own reading of raw text")
			}
			// The test set's words are all known: every learner segments
			// most lines exactly as the gold file does.
			right := 0
			for k := range got {
				if strings.Join(strings.Fields(got[k]), " ") == strings.Join(strings.Fields(gold[k]), " ") {
					right++
				}
				if strings.ReplaceAll(got[k], " ", "") != strings.ReplaceAll(gold[k], " ", "") {
					t.Errorf("line %d: characters changed: %q", k+1, got[k])
				}
			}
			if right < len(gold)*2/3 {
				t.Errorf("only %d of %d lines segmented as in the gold file:\n%s", right, len(gold), out)
			}
			js, _ := mustRun(t, raw, "tag", "--model", model, "--input", "text", "--output", "json")
			for k, j := range parseJSONLines(t, js) {
				if w := strings.Fields(got[k]); !reflect.DeepEqual(texts(j.Words), w) {
					t.Errorf("line %d: JSON words %q, output %q", k+1, texts(j.Words), w)
				}
				if strings.Join(texts(j.Tokens), "") != strings.ReplaceAll(got[k], " ", "") {
					t.Errorf("line %d: JSON tokens %q are not the characters", k+1, texts(j.Tokens))
				}
			}
			// Marginals: per character, label and marginal.
			tsv, _ := mustRun(t, raw, "tag", "--model", model, "--input", "text", "--marginals")
			first := strings.SplitN(tsv, "\n", 2)[0]
			if f := strings.Split(first, "\t"); len(f) != 3 || len([]rune(f[0])) != 1 {
				t.Errorf("--marginals on raw text: line %q, want char<TAB>label<TAB>marginal", first)
			}
			// --input tokens: one character per line.
			chars := [][]string{strings.Split(strings.ReplaceAll(gold[0], " ", ""), "")}
			tok, _ := mustRun(t, asTokens(chars), "tag", "--model", model, "--input", "tokens")
			if strings.TrimSpace(tok) != strings.TrimSpace(got[0]) {
				t.Errorf("--input tokens: %q, want %q", tok, got[0])
			}
		})
	}
}

// TestTagPlainRefused: a model that reads more than the word column, and
// input that does not fit, are refused with exit 2 and a message naming
// what is wrong.
func TestTagPlainRefused(t *testing.T) {
	pos := filepath.Join(sharedRun(t, "testdata/tag-pos.hcl"), "models", "hmm.model")
	cws := filepath.Join(sharedRunAll(t, "testdata/cws.hcl"), "models", "hmm.model")
	words := filepath.Join(sharedRun(t, chunkSpec), "models", "hmm.model")
	tests := []struct {
		name, stdin string
		args        []string
		code        int
		stderr      string
	}{
		{"text, model reads pos", "The cat sat .\n", []string{"--model", pos, "--input", "text"}, 2,
			`--input text: the model's templates read the column "pos" besides the word column "word", which plain text does not have; tag a file in the model's format (conll: word pos chunk) instead`},
		{"tokens, model reads pos", "The\n", []string{"--model", pos, "--input", "tokens"}, 2, `the column "pos"`},
		{"json, model reads pos", "The\n", []string{"--model", pos, "--input", "tokens", "--output", "json"}, 2, `the column "pos"`},
		{"bad input kind", "", []string{"--model", words, "--input", "words"}, 2, `unknown input "words" (want corpus, text or tokens)`},
		{"bad output", "", []string{"--model", words, "--output", "xml"}, 2, "--output must be auto, tsv or json"},
		{"tab in a tokens line", "The\tDT\n", []string{"--model", words, "--input", "tokens"}, 2, "<stdin>:1: a token line holds a tab"},
		{"chars model, tokens of two characters", "我们\n", []string{"--model", cws, "--input", "tokens"}, 2, `<stdin>:1: "我们" is 2 characters`},
		{"two files", "", []string{"--model", words, "a", "b"}, 2, "at most one input file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := trellis(t, tc.stdin, append([]string{"tag"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d, want %d; stderr lacks %q:\n%s", code, tc.code, tc.stderr, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout: %q", stdout)
			}
		})
	}
}
