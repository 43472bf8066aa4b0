package main

// This file holds what a tagged sentence becomes in the shards: the
// lines trellis tag prints for it, in the job's output mode.

import (
	"bytes"
	"encoding/json"

	"github.com/trellis-nlp/trellis/framework/annotate"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/tokenize"
)

// item is a sentence queued for tagging.
type item struct {
	file string
	// s is the sentence as read (corpus input) or as one model reads it;
	// nil for raw text given to a pipeline, which tags words.
	s     *corpus.Sentence
	words []string
	// text is raw text's tokenization, with offsets into the file.
	text *tokenize.Sentence
}

// fileSentence is a JSON line of the output: trellis tag's object, and
// the file whose characters its offsets count.
type fileSentence struct {
	File string `json:"file"`
	annotate.Sentence
}

// writer renders tagged sentences. It is not safe for concurrent use.
type writer struct {
	mode outputMode
	buf  bytes.Buffer
	// w is the model's own writer (formatOutput), into buf.
	w   corpus.Writer
	enc *json.Encoder
	// cols are a pipeline's label columns, the keys of every token's
	// "tags"; nil for one model, whose JSON has none (as trellis tag's).
	cols []string
	kind annotate.Kind
	sch  scheme.Scheme
}

func newWriter(mode outputMode, c *chain) *writer {
	w := &writer{mode: mode, kind: annotate.KindOf(c.last()), sch: c.last().Scheme()}
	w.w = c.last().Format.NewWriter(&w.buf)
	w.enc = json.NewEncoder(&w.buf)
	w.enc.SetEscapeHTML(false)
	if c.p != nil {
		w.cols = c.p.Columns()
	}
	return w
}

// write returns what trellis tag prints for it, labelled labels[k] by
// model k.
func (w *writer) write(it item, labels [][]string) (string, error) {
	w.buf.Reset()
	last := labels[len(labels)-1]
	switch w.mode {
	case formatOutput:
		if err := w.w.Write(it.s, last); err != nil {
			return "", err
		}
		if err := w.w.Flush(); err != nil {
			return "", err
		}
	case tsvOutput:
		writeTSV(&w.buf, it.words, labels)
	case jsonOutput:
		js := annotate.New(it.words, last, w.kind, w.sch, it.text)
		if w.cols != nil {
			js.AddTags(w.cols, labels)
		}
		if err := w.enc.Encode(fileSentence{File: it.file, Sentence: js}); err != nil {
			return "", err
		}
	}
	return w.buf.String(), nil
}

// writeTSV writes token<TAB>label per token, a label per model, and a
// blank line after the sentence.
func writeTSV(b *bytes.Buffer, words []string, labels [][]string) {
	for i, word := range words {
		b.WriteString(word)
		for k := range labels {
			b.WriteByte('\t')
			b.WriteString(labels[k][i])
		}
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
}

// wordsOf returns the words of s, in column col (nil when col < 0).
func wordsOf(s *corpus.Sentence, col int) []string {
	if col < 0 {
		return nil
	}
	words := make([]string, s.Len())
	for i, row := range s.Tokens {
		words[i] = row[col]
	}
	return words
}
