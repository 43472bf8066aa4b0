package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestTagPipeline: a POS tagger then a chunker that reads its "pos"
// column give, in one command, the labels that tagging in two steps gives
// (the POS tagger's output written as the chunker's corpus); raw text
// keeps its offsets and the chunks come as spans.
func TestTagPipeline(t *testing.T) {
	posModel := filepath.Join(sharedRunAll(t, "testdata/tag-postagger.hcl"), "models", "perceptron.model")
	chunkModel := filepath.Join(sharedRun(t, "testdata/tag-pos.hcl"), "models", "hmm.model")
	ref, _ := mustRun(t, "", "tag", "--model", posModel, chunkTest)
	// Two steps: the predicted POS replaces the gold one, then the chunker.
	var b strings.Builder
	var sents [][]string
	var cur []string
	for _, line := range strings.Split(ref, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			if cur != nil {
				sents, cur = append(sents, cur), nil
				b.WriteString("\n")
			}
			continue
		}
		cur = append(cur, f[0])
		b.WriteString(f[0] + " " + f[len(f)-1] + " O\n")
	}
	stepTwo, _ := mustRun(t, b.String(), "tag", "--model", chunkModel)
	_, wantChunks := taggedColumns(stepTwo, 0)
	_, wantPOS := taggedColumns(ref, 0)

	out, _ := mustRun(t, asTokens(sents), "tag", "--model", posModel, "--model", chunkModel, "--input", "tokens")
	k := 0
	for _, block := range strings.Split(strings.TrimSuffix(out, "\n\n"), "\n\n") {
		var pos, chunks []string
		for _, line := range strings.Split(block, "\n") {
			f := strings.Split(line, "\t")
			if len(f) != 3 {
				t.Fatalf("line %q: want token, pos, chunk", line)
			}
			pos, chunks = append(pos, f[1]), append(chunks, f[2])
		}
		if !reflect.DeepEqual(pos, wantPOS[k]) || !reflect.DeepEqual(chunks, wantChunks[k]) {
			t.Errorf("sentence %d: pipeline %q %q, two steps %q %q", k, pos, chunks, wantPOS[k], wantChunks[k])
		}
		k++
	}
	if k != len(sents) {
		t.Fatalf("%d sentences out, %d in", k, len(sents))
	}

	text := "The dog barks loudly. A big cat sleeps."
	js, _ := mustRun(t, text, "tag", "--model", posModel, "--model", chunkModel, "--input", "text", "--tokenizer", "rules", "--output", "json")
	rs := []rune(text)
	lines := strings.Split(strings.TrimSpace(js), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d sentences:\n%s", len(lines), js)
	}
	for _, line := range lines {
		var s struct {
			Tokens []struct {
				Start, End int
				Text       string
				Label      string
				Tags       map[string]string
			}
			Spans []struct {
				Start, End int
				Text       string
			}
		}
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatal(err)
		}
		for _, tok := range s.Tokens {
			if string(rs[tok.Start:tok.End]) != tok.Text || tok.Tags["chunk"] != tok.Label || tok.Tags["pos"] == "" {
				t.Errorf("token %+v", tok)
			}
		}
		for _, sp := range s.Spans {
			if string(rs[sp.Start:sp.End]) != sp.Text {
				t.Errorf("span %+v", sp)
			}
		}
		if len(s.Spans) == 0 {
			t.Errorf("no spans in %s", line)
		}
	}

	// A pipeline and a single model print <, > and & alike: as they are.
	for _, models := range [][]string{{"--model", posModel}, {"--model", posModel, "--model", chunkModel}} {
		args := append(append([]string{"tag"}, models...), "--input", "text", "--tokenizer", "rules", "--output", "json")
		js, _ := mustRun(t, "Tom & Jerry <b> sleep.", args...)
		if !strings.Contains(js, `"text":"&"`) || !strings.Contains(js, `"text":"<"`) || strings.Contains(js, `\u00`) {
			t.Errorf("%d models: want & and < unescaped:\n%s", len(models)/2, js)
		}
	}
}

// TestTagPipelineRefused: a model reading a column no earlier model
// labels, and settings a pipeline does not take, are usage errors.
func TestTagPipelineRefused(t *testing.T) {
	posModel := filepath.Join(sharedRunAll(t, "testdata/tag-postagger.hcl"), "models", "perceptron.model")
	chunkModel := filepath.Join(sharedRun(t, "testdata/tag-pos.hcl"), "models", "hmm.model")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", chunkModel, "--model", posModel, "--input", "tokens"}, `reads the column "pos": no earlier model produces the column (it is the first model)`},
		{[]string{"--model", posModel, "--model", chunkModel, chunkTest}, "tag --input text or tokens"},
		{[]string{"--model", posModel, "--model", chunkModel, "--input", "text", "--nbest", "2"}, "without --marginals, --nbest or --threads"},
		{[]string{"--model", posModel, "--model", chunkModel, "--input", "text", "--threads", "2"}, "on one thread"},
	} {
		code, _, stderr := trellis(t, "a b\n", append([]string{"tag"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
