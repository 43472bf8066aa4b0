package main

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/annotate"
	"github.com/trellis-nlp/trellis/framework/pipeline"
	"github.com/trellis-nlp/trellis/framework/trellis"
)

// xposChunkSpec is a chunker reading the POS column under en-xpos's
// label column name, "xpos".
const xposChunkSpec = `
experiment "xpos-chunk" {
  seed = 1
}
corpus "train" {
  path    = "chunk-train.txt"
  format  = "conll"
  columns = ["word", "xpos", "chunk"]
}
labels {
  column = "chunk"
  scheme = "iob2"
}
features {
  emission "w" {
    column = "word"
  }
  emission "p" {
    column  = "xpos"
    offsets = [-1, 0, 1]
  }
  transition "t" {}
}
learner "crf" {
  type = "crf"
  c2   = 0.1
}
evaluation {
  train = "train"
  test  = "train"
}
`

// addModel puts m in the model table and returns its handle.
func addModel(t *testing.T, m *trellis.Model) int64 {
	t.Helper()
	h := models.add(m, nil)
	t.Cleanup(func() { models.remove(h) })
	return h
}

// trainSpec trains the spec src as a file of cmd/trellis/testdata.
func trainSpec(t *testing.T, name string, src []byte) *trellis.Model {
	t.Helper()
	m, err := trellis.TrainSpec(context.Background(), "../trellis/testdata/"+name, src, trellis.SpecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// shippedXposPipeline is en-xpos, loaded by name as trellis_load loads
// it, then a chunker reading its "xpos"; it returns the pipeline's handle
// and the two models' handles.
func shippedXposPipeline(t *testing.T) (int64, *trellis.Model, *trellis.Model) {
	t.Helper()
	xpos, err := trellis.Load("en-xpos")
	if err != nil {
		t.Fatal(err)
	}
	chunk := trainSpec(t, "xpos-chunk.hcl", []byte(xposChunkSpec))
	ph, err := newPipeline([]int64{addModel(t, xpos), addModel(t, chunk)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pipelines.remove(ph) })
	return ph, xpos, chunk
}

// chunksOf is what chunk gives words with pos's labels as its xpos column.
func chunksOf(t *testing.T, pos, chunk *trellis.Model, words []string) (tags, chunks []string) {
	t.Helper()
	tags, err := pos.Tag(words)
	if err != nil {
		t.Fatal(err)
	}
	rows := make([][]string, len(words))
	for i, w := range words {
		rows[i] = []string{w, tags[i], ""}
	}
	chunks, err = chunk.TagRows(rows)
	if err != nil {
		t.Fatal(err)
	}
	return tags, chunks
}

// TestPipelineTagText: raw text through en-xpos then a chunker gives each
// token both labels, the chunker's those it gives en-xpos's tags by hand,
// with spans and offsets into the text.
func TestPipelineTagText(t *testing.T) {
	ph, xpos, chunk := shippedXposPipeline(t)
	p, err := pipelines.get(ph)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"xpos", "chunk"}; !reflect.DeepEqual(p.p.Columns(), want) {
		t.Errorf("columns %v, want %v", p.p.Columns(), want)
	}
	const text = "The big dog sees a café near the river. Ünïcode moves quickly!"
	out, err := pipelineTagText(p, []byte(text), "")
	if err != nil {
		t.Fatal(err)
	}
	var sents []annotate.Sentence
	if err := json.Unmarshal(out, &sents); err != nil {
		t.Fatal(err)
	}
	if len(sents) != 2 {
		t.Fatalf("%d sentences, want 2: %s", len(sents), out)
	}
	checkOffsets(t, text, sents)
	spans := 0
	for _, s := range sents {
		words := make([]string, len(s.Tokens))
		for i, tok := range s.Tokens {
			words[i] = tok.Text
		}
		tags, chunks := chunksOf(t, xpos, chunk, words)
		for i, tok := range s.Tokens {
			want := map[string]string{"xpos": tags[i], "chunk": chunks[i]}
			if tok.Label != chunks[i] || !reflect.DeepEqual(tok.Tags, want) {
				t.Errorf("token %q: label %q tags %v, want %q %v", tok.Text, tok.Label, tok.Tags, chunks[i], want)
			}
		}
		spans += len(s.Spans)
	}
	if spans == 0 {
		t.Errorf("no chunk spans in %s", out)
	}
	if out, err := pipelineTagText(p, nil, "rules"); err != nil || string(out) != "[]" {
		t.Errorf("no text: %s %v, want []", out, err)
	}
}

// TestPipelineTag: sentences given as words (a space or non-ASCII in one,
// an empty one) get every column's labels, the same as by hand.
func TestPipelineTag(t *testing.T) {
	ph, xpos, chunk := shippedXposPipeline(t)
	p, _ := pipelines.get(ph)
	words := [][]string{{"The", "big", "dog", "sees", "a", "café", "."}, {}, {"New York", "moves", "Ünïcode"}}
	req, _ := json.Marshal(words)
	out, err := pipelineTag(p, req)
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string][]string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(words) {
		t.Fatalf("%d sentences, want %d", len(got), len(words))
	}
	for k, w := range words {
		want := map[string][]string{"xpos": {}, "chunk": {}}
		if len(w) > 0 {
			want["xpos"], want["chunk"] = chunksOf(t, xpos, chunk, w)
		}
		if !reflect.DeepEqual(got[k], want) {
			t.Errorf("sentence %d: %v, want %v", k+1, got[k], want)
		}
	}
	if _, err := pipelineTag(p, []byte(`[["a", 1]]`)); err == nil || !strings.Contains(err.Error(), "bad request") {
		t.Errorf("a number for a word: %v", err)
	}
}

// TestPipelineErrors: a model reading a column no earlier one labels, a
// model twice, a model that reads attributes, unknown and freed handles.
func TestPipelineErrors(t *testing.T) {
	chunk := trainSpec(t, "xpos-chunk.hcl", []byte(xposChunkSpec))
	ch := addModel(t, chunk)
	words := chunkModel(t)
	wh := models.add(words, nil)
	_, err := newPipeline([]int64{wh, ch})
	if !errors.Is(err, pipeline.ErrNoProducer) || !strings.Contains(err.Error(), `reads the column "xpos"`) {
		t.Errorf("chunker after a words model: %v, want ErrNoProducer naming xpos", err)
	}
	if _, err := newPipeline([]int64{wh, wh}); err == nil || !strings.Contains(err.Error(), "model 2 is model 1 again") {
		t.Errorf("a model twice: %v", err)
	}
	if _, err := newPipeline(nil); err == nil || !strings.Contains(err.Error(), "at least one model") {
		t.Errorf("no model: %v", err)
	}
	if _, err := newPipeline([]int64{wh, 1 << 40}); err == nil || !strings.Contains(err.Error(), "model 2: no model with handle") {
		t.Errorf("unknown handle: %v", err)
	}
	attrs, _, err := train([]byte(settings), encodeSentences(chunkSentences()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newPipeline([]int64{addModel(t, attrs)}); err == nil || !strings.Contains(err.Error(), "no word column") {
		t.Errorf("a model that reads attributes: %v", err)
	}
	// A model freed under a pipeline: its calls say so.
	ph, err := newPipeline([]int64{wh})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := pipelines.get(ph)
	models.remove(wh)
	if _, err := pipelineTag(p, []byte(`[["a"]]`)); !errors.Is(err, errPipelineClosed) || !errors.Is(err, trellis.ErrClosed) {
		t.Errorf("tag after the model was freed: %v", err)
	}
	if _, err := pipelineTagText(p, []byte("a dog"), "rules"); !errors.Is(err, errPipelineClosed) {
		t.Errorf("tag_text after the model was freed: %v", err)
	}
	pipelines.remove(ph)
	if _, err := pipelines.get(ph); err == nil || !strings.Contains(err.Error(), "no pipeline with handle") {
		t.Errorf("freed pipeline: %v", err)
	}
}
