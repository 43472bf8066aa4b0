package main

// This file holds the tests of pipelines (several --model), raw text and
// tokens input, and their JSON output, each against trellis tag.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// chainModels trains the POS tagger (label column "pos") and the chunker
// that reads its "pos" of cmd/trellis's pipeline tests.
func chainModels(t *testing.T) (pos, chunk string) {
	t.Helper()
	return train(t, "../trellis/testdata/tag-postagger.hcl", "perceptron"), train(t, "../trellis/testdata/tag-pos.hcl", "hmm")
}

// writeTemp writes content to the file name in dir.
func writeTemp(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// chunkWords is the words of the chunk sample's test file: as tokens (a
// token per line, a blank line between sentences) and as raw text (a
// sentence per line, a blank line between paragraphs of three).
func chunkWords(t *testing.T) (tokens, text string) {
	t.Helper()
	raw, err := os.ReadFile("../trellis/testdata/chunk-test.txt")
	if err != nil {
		t.Fatal(err)
	}
	var tok, txt strings.Builder
	for k, block := range strings.Split(strings.TrimSpace(string(raw)), "\n\n") {
		var words []string
		for l := range strings.SplitSeq(block, "\n") {
			words = append(words, strings.Fields(l)[0])
		}
		tok.WriteString(strings.Join(words, "\n") + "\n\n")
		txt.WriteString(strings.Join(words, " ") + "\n")
		if k%3 == 2 {
			txt.WriteString("\n")
		}
	}
	return tok.String(), txt.String()
}

// jsonObjects returns the JSON lines of text, each re-encoded with its
// keys sorted, and with "file" set to file unless it is "" (trellis tag's
// objects have none), sorted: the multiset.
func jsonObjects(t *testing.T, text, file string) []string {
	t.Helper()
	var out []string
	for line := range strings.SplitSeq(strings.TrimSpace(text), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if file != "" {
			m["file"] = file
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	slices.Sort(out)
	return out
}

// TestPipelineMatchesTrellisTag runs a POS tagger then a chunker reading
// its labels on tokens (tsv) and on raw text spread over two files (JSON,
// offsets into each file), and one shipped model and a segmenter on raw
// text, against trellis tag with the same models.
func TestPipelineMatchesTrellisTag(t *testing.T) {
	pos, chunk := chainModels(t)
	tokens, text := chunkWords(t)
	dir := t.TempDir()
	tokFile := writeTemp(t, dir, "words.tok", tokens)
	half := strings.Index(text[len(text)/2:], "\n\n") + len(text)/2 + 2
	a, b := writeTemp(t, dir, "a.txt", text[:half]), writeTemp(t, dir, "b.txt", "  "+text[half:])

	t.Run("tokens", func(t *testing.T) {
		prefix := filepath.Join(t.TempDir(), "out")
		mustRun(t, bin.beam, "--model", pos, "--model", chunk, "--input", tokFile, "--input-format", "tokens", "--output", prefix, "--shards", "3")
		want := mustRun(t, bin.trellis, "tag", "--model", pos, "--model", chunk, "--input", "tokens", tokFile)
		sameSentences(t, shards(t, prefix, 3), want)
	})
	t.Run("text-json", func(t *testing.T) {
		prefix := filepath.Join(t.TempDir(), "out")
		mustRun(t, bin.beam, "--model", pos, "--model", chunk, "--input", filepath.Join(dir, "*.txt"), "--input-format", "text",
			"--output-format", "json", "--output", prefix, "--shards", "2")
		var want []string
		for _, f := range []string{a, b} {
			want = append(want, jsonObjects(t, mustRun(t, bin.trellis, "tag", "--model", pos, "--model", chunk, "--input", "text", "--output", "json", f), f)...)
		}
		slices.Sort(want)
		got := jsonObjects(t, shards(t, prefix, 2), "")
		if !slices.Equal(got, want) {
			t.Fatalf("trellis-beam wrote %d objects, trellis tag %d:\n%s\n---\n%s", len(got), len(want), at(got, 0), at(want, 0))
		}
		if !strings.Contains(strings.Join(got, ""), `"tags":{"chunk":`) {
			t.Errorf("no tags in the objects: %s", at(got, 0))
		}
	})
	t.Run("shipped-text", func(t *testing.T) {
		prefix := filepath.Join(t.TempDir(), "out")
		mustRun(t, bin.beam, "--model", "en-upos", "--input", a, "--input-format", "text", "--tokenizer", "rules", "--output", prefix, "--shards", "2")
		sameSentences(t, shards(t, prefix, 2), mustRun(t, bin.trellis, "tag", "--model", "en-upos", "--input", "text", "--tokenizer", "rules", a))
	})
	t.Run("segmenter-text", func(t *testing.T) {
		m := train(t, "../trellis/testdata/cws.hcl", "hmm")
		raw, err := os.ReadFile("../trellis/testdata/cws-test.txt")
		if err != nil {
			t.Fatal(err)
		}
		plain := writeTemp(t, t.TempDir(), "plain.txt", strings.ReplaceAll(string(raw), " ", ""))
		prefix := filepath.Join(t.TempDir(), "out")
		mustRun(t, bin.beam, "--model", m, "--input", plain, "--input-format", "text", "--output", prefix, "--shards", "2")
		sameUnits(t, shards(t, prefix, 2), mustRun(t, bin.trellis, "tag", "--model", m, "--input", "text", plain), "\n")
	})
}

// TestPipelineEval scores the chunker of a pipeline on the chunk sample
// with the POS tagger's labels in place of the file's: the report is
// trellis eval's on the file whose POS column the tagger rewrote, and the
// shards are the pipeline's tsv on the file's words.
func TestPipelineEval(t *testing.T) {
	pos, chunk := chainModels(t)
	input := "../trellis/testdata/chunk-test.txt"
	prefix := filepath.Join(t.TempDir(), "out")
	mustRun(t, bin.beam, "--model", pos, "--model", chunk, "--input", input, "--output", prefix, "--shards", "2", "--eval")

	// The reference: the POS column replaced by the tagger's labels
	// (trellis tag appends them to each line), then trellis eval.
	var rewritten strings.Builder
	for line := range strings.SplitSeq(mustRun(t, bin.trellis, "tag", "--model", pos, input), "\n") {
		if f := strings.Fields(line); len(f) == 4 {
			line = f[0] + " " + f[3] + " " + f[2]
		}
		rewritten.WriteString(line + "\n")
	}
	predicted := writeTemp(t, t.TempDir(), "predicted.txt", strings.TrimSuffix(rewritten.String(), "\n"))
	got, err := os.ReadFile(prefix + evalTextSuffix)
	if err != nil {
		t.Fatal(err)
	}
	if want := mustRun(t, bin.trellis, "eval", "--model", chunk, predicted); string(got) != want {
		t.Errorf("%s differs from trellis eval on the predicted POS\n--- beam ---\n%s--- trellis ---\n%s", evalTextSuffix, got, want)
	}
	tokens, _ := chunkWords(t)
	tokFile := writeTemp(t, t.TempDir(), "words.tok", tokens)
	sameSentences(t, shards(t, prefix, 2), mustRun(t, bin.trellis, "tag", "--model", pos, "--model", chunk, "--input", "tokens", tokFile))
}

// TestPipelineErrors: a missing producer, and flags that do not fit the
// input, are usage errors (exit 2) with trellis tag's message.
func TestPipelineErrors(t *testing.T) {
	pos, chunk := chainModels(t)
	tokens, text := chunkWords(t)
	dir := t.TempDir()
	tokFile, textFile := writeTemp(t, dir, "words.tok", tokens), writeTemp(t, dir, "text.txt", text)
	out := filepath.Join(dir, "out")
	cases := []struct {
		name string
		args []string
		msg  string
	}{
		{"missing producer", []string{"--model", chunk, "--model", pos, "--input", tokFile, "--input-format", "tokens"},
			chunk + ` reads the column "pos": no earlier model produces the column (it is the first model); put a model that labels "pos" before it`},
		{"text for a model reading pos", []string{"--model", chunk, "--input", textFile, "--input-format", "text"},
			`--input-format text: the model's templates read the column "pos" besides the word column "word"`},
		{"bad input format", []string{"--model", pos, "--input", textFile, "--input-format", "raw"}, `--input-format: unknown input "raw"`},
		{"bad output format", []string{"--model", pos, "--input", textFile, "--output-format", "xml"}, `--output-format must be auto, tsv or json, got "xml"`},
		{"tokenizer without text", []string{"--model", pos, "--input", tokFile, "--input-format", "tokens", "--tokenizer", "rules"}, "--tokenizer splits raw text"},
		{"eval without gold", []string{"--model", pos, "--model", chunk, "--input", textFile, "--input-format", "text", "--eval"}, "--eval scores gold labels"},
		{"not a tokenizer", []string{"--model", pos, "--input", textFile, "--input-format", "text", "--tokenizer", pos}, "not a tokenizer model"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := command(t, bin.beam, append(c.args, "--output", out)...)
			if code != exitUsage || !strings.Contains(stderr, c.msg) {
				t.Errorf("exit %d, want 2, and stderr should say %q:\n%s", code, c.msg, lastLines(stderr, 15))
			}
		})
	}
	if found, _ := filepath.Glob(out + "*"); len(found) > 0 {
		t.Errorf("files written: %v", found)
	}
	// A data error in raw text names its file and line (exit 1).
	bad := writeTemp(t, dir, "bad.txt", "Fine text.\n\nBad \xff text.\n")
	code, _, stderr := command(t, bin.beam, "--model", pos, "--input", bad, "--input-format", "text", "--tokenizer", "rules", "--output", out)
	if code != exitFailure || !strings.Contains(stderr, bad+":3") {
		t.Errorf("exit %d, want 1, and stderr should say %s:3:\n%s", code, bad, lastLines(stderr, 15))
	}
}
