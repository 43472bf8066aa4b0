package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const rawEnglish = "The quick brown fox jumped over the lazy dog. Stocks fell 3% in New York on Monday.\n\nMr. Smith didn't go."

// TestTokenizeCommand: each output of `trellis tokenize`, with the shipped
// tokenizer and the rule-based ones.
func TestTokenizeCommand(t *testing.T) {
	tsv, _ := mustRun(t, rawEnglish, "tokenize")
	blocks := strings.Split(strings.TrimSuffix(tsv, "\n\n"), "\n\n")
	if len(blocks) != 3 || !strings.HasPrefix(blocks[2], "Mr.\t85\t88\nSmith\t89\t94\ndid\t95\t98\nn't\t98\t101\n") {
		t.Errorf("tsv:\n%s", tsv)
	}
	js, _ := mustRun(t, rawEnglish, "tokenize", "--output", "json")
	rs := []rune(rawEnglish)
	for _, line := range strings.Split(strings.TrimSpace(js), "\n") {
		var s struct {
			Start, End int
			Text       string
			Tokens     []struct {
				Start, End int
				Text       string
			}
		}
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatal(err)
		}
		if string(rs[s.Start:s.End]) != s.Text {
			t.Errorf("sentence %q at [%d,%d)", s.Text, s.Start, s.End)
		}
		for _, tok := range s.Tokens {
			if string(rs[tok.Start:tok.End]) != tok.Text {
				t.Errorf("token %q at [%d,%d)", tok.Text, tok.Start, tok.End)
			}
		}
	}
	conllu, _ := mustRun(t, "Hello, world!", "tokenize", "--output", "conllu")
	want := "# text = Hello, world!\n1\tHello\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n2\t,\t_\t_\t_\t_\t_\t_\t_\t_\n" +
		"3\tworld\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n4\t!\t_\t_\t_\t_\t_\t_\t_\t_\n\n"
	if conllu != want {
		t.Errorf("conllu:\n%s\nwant\n%s", conllu, want)
	}
	lines, _ := mustRun(t, "a b.\nc\n", "tokenize", "--tokenizer", "lines")
	if lines != "a\t0\t1\nb.\t2\t4\n\nc\t5\t6\n\n" {
		t.Errorf("lines: %q", lines)
	}
}

func TestTokenizeScore(t *testing.T) {
	gold := filepath.Join(t.TempDir(), "gold.conllu")
	writeFiles(t, filepath.Dir(gold), map[string]string{"gold.conllu": "# text = A b.\n1\tA\t_\t_\t_\t_\t_\t_\t_\t_\n2\tb\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n3\t.\t_\t_\t_\t_\t_\t_\t_\t_\n\n" +
		"# text = C d\n1\tC\t_\t_\t_\t_\t_\t_\t_\t_\n2\td\t_\t_\t_\t_\t_\t_\t_\t_\n\n"})
	out, _ := mustRun(t, "", "tokenize", "--tokenizer", "lines", "--score", gold, "--json")
	var sc struct {
		Documents int
		Tokens    struct{ Gold, Predicted, Correct int }
	}
	if err := json.Unmarshal([]byte(out), &sc); err != nil || sc.Documents != 1 || sc.Tokens.Gold != 5 || sc.Tokens.Predicted != 4 || sc.Tokens.Correct != 3 {
		t.Errorf("--score --json: %s (%v)", out, err)
	}
	table, _ := mustRun(t, "", "tokenize", "--tokenizer", "rules", "--score", gold)
	if !strings.Contains(table, "tokens                    5         5         5    100.00    100.00    100.00") {
		t.Errorf("--score table:\n%s", table)
	}
}

func TestTokenizeErrors(t *testing.T) {
	notTokenizer := filepath.Join(sharedRun(t, chunkSpec), "models", "hmm.model")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"notext.conllu": "# sent_id = 1\n1\tHi\t_\t_\t_\t_\t_\t_\t_\t_\n\n"})
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
		msg   string
	}{
		{"bad output", "", []string{"tokenize", "--output", "xml"}, 2, "--output must be tsv, json or conllu"},
		{"not a tokenizer", "", []string{"tokenize", "--tokenizer", notTokenizer}, 2, "not a tokenizer model: the model reads the conll format"},
		{"no such model", "", []string{"tokenize", "--tokenizer", "nope"}, 1, `nor is "nope" the name of a shipped model`},
		{"input and score", "", []string{"tokenize", "x", "--score", "y"}, 2, "none with --score"},
		{"not UTF-8", "ok\n\xff\n", []string{"tokenize", "--tokenizer", "lines"}, 2, "<stdin>:2: the line is not UTF-8 text"},
		{"tokenizer without text input", "", []string{"tag", "--model", notTokenizer, "--tokenizer", "rules"}, 2, "--tokenizer splits raw text: it takes --input text"},
		{"gold without text", "", []string{"tokenize", "--score", filepath.Join(dir, "notext.conllu")}, 2, `notext.conllu:1: the sentence has no "# text = ..." comment`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := trellis(t, tc.stdin, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.msg)
			}
		})
	}
}

func TestModelsCommand(t *testing.T) {
	out, _ := mustRun(t, "", "models")
	if !strings.Contains(out, "en-tokenizer\n") {
		t.Errorf("models: %q", out)
	}
	if ins, _ := mustRun(t, "", "inspect", "en-tokenizer", "--top", "1"); !strings.Contains(ins, "experiment:   ud-ewt-tokenizer") || !strings.Contains(ins, "pruned (trellis prune)") {
		t.Errorf("inspect by name:\n%s", ins)
	}
	long, _ := mustRun(t, "", "models", "--long")
	if !strings.Contains(long, "licence: CC BY-SA 4.0") || !strings.Contains(long, "specs/ud-ewt-tokenizer.hcl") || !strings.Contains(long, "pruned by trellis prune") {
		t.Errorf("models --long:\n%s", long)
	}
}

// TestTagRawTextSpans: raw text through the shipped tokenizer into a
// chunker: every token, sentence and span has the offsets of its text in
// the input, spans are the chunks of the labels, and --threads does not
// change the bytes.
func TestTagRawTextSpans(t *testing.T) {
	model := filepath.Join(sharedRunAll(t, "testdata/tag-learners.hcl"), "models", "crf.model")
	text := "He reckons the current account deficit will narrow to only 1.8 billion in September. " +
		"But the pound fell sharply.\n\nConfidence in the pound is widely expected to take another sharp dive."
	out, _ := mustRun(t, text, "tag", "--model", model, "--input", "text", "--output", "json")
	two, _ := mustRun(t, text, "tag", "--model", model, "--input", "text", "--output", "json", "--threads", "2")
	if two != out {
		t.Errorf("--threads 2 changed the output")
	}
	rs := []rune(text)
	got := parseJSONLines(t, out)
	if len(got) != 3 {
		t.Fatalf("%d sentences, want 3:\n%s", len(got), out)
	}
	spans := 0
	for k, s := range got {
		if s.Start == nil || string(rs[*s.Start:*s.End]) != s.Text {
			t.Fatalf("sentence %d: offsets do not give its text %q", k, s.Text)
		}
		for i, tok := range s.Tokens {
			if tok.Start == nil || string(rs[*tok.Start:*tok.End]) != tok.Text || tok.Label != s.Labels[i] {
				t.Errorf("sentence %d token %d: %+v", k, i, tok)
			}
		}
		for _, sp := range s.Spans {
			spans++
			if *sp.Start != *s.Tokens[sp.First].Start || *sp.End != *s.Tokens[sp.Last].End || string(rs[*sp.Start:*sp.End]) != sp.Text {
				t.Errorf("sentence %d: span %+v does not match its tokens", k, sp)
			}
			if !strings.HasSuffix(s.Labels[sp.First], "-"+sp.Label) {
				t.Errorf("sentence %d: span %+v starts at label %s", k, sp, s.Labels[sp.First])
			}
		}
	}
	if spans < 10 {
		t.Errorf("only %d spans", spans)
	}
	// tsv: the same tokens and labels, a blank line after each sentence.
	tsv, _ := mustRun(t, text, "tag", "--model", model, "--input", "text")
	tokens, labels := parseTSV(t, tsv)
	for k, s := range got {
		if !reflect.DeepEqual(tokens[k], texts(s.Tokens)) || !reflect.DeepEqual(labels[k], s.Labels) {
			t.Errorf("sentence %d: tsv and json differ", k)
		}
	}
}

// TestReadmeTagYourText runs the first command of README.md's "Tag your
// text" and checks what the README says of it: the tokens it names and
// a label per token from the shipped tagger.
func TestReadmeTagYourText(t *testing.T) {
	readme := string(readFile(t, readme))
	const cmd = `echo "Stocks fell 3% in New York on Monday. Mr. Smith didn't sell." |
  go run ./cmd/trellis tag --model en-upos --input text`
	if !strings.Contains(readme, cmd) {
		t.Fatalf("README.md no longer has the command this test runs:\n%s", cmd)
	}
	out, _ := mustRun(t, "Stocks fell 3% in New York on Monday. Mr. Smith didn't sell.\n", "tag", "--model", "en-upos", "--input", "text")
	tokens, labels := parseTSV(t, out)
	want := [][]string{strings.Fields("Stocks fell 3 % in New York on Monday ."), strings.Fields("Mr. Smith did n't sell .")}
	if !reflect.DeepEqual(tokens, want) {
		t.Errorf("tokens %q, want %q", tokens, want)
	}
	if labels[1][0] != "PROPN" || labels[0][1] != "VERB" {
		t.Errorf("labels %q", labels)
	}
}
