package main

// This file holds `trellis tag --model A --model B`: a pipeline of models,
// each reading the labels of the ones before it (framework/pipeline).

import (
	"bufio"
	"context"
	"io"

	"github.com/trellis-nlp/trellis/framework/annotate"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/pipeline"
	"github.com/trellis-nlp/trellis/framework/tagger"
	"github.com/trellis-nlp/trellis/framework/tokenize"
)

// pipelineBatch is the sentences tagged at once.
const pipelineBatch = 256

// pipelineRun is one `tag` with several models: the pipeline, the
// input's reader of sentences (with their offsets for raw text), and the
// writer of the output.
type pipelineRun struct {
	p     *pipeline.Pipeline
	last  *tagger.Tagger
	read  func() (words []string, text *tokenize.Sentence, err error)
	w     *bufio.Writer
	json  bool
	batch [][]string
	texts []*tokenize.Sentence
}

// tagPipeline tags the input with the models of paths in order, each
// reading the labels of the earlier ones; o says the input and output.
func (a *app) tagPipeline(ctx context.Context, paths []string, opt tagger.Options, o tagOptions, tokName string, pos []string) error {
	if o.detailed() || len(o.replicas) > 0 || o.input == tagger.Corpus {
		return usagef("several --model (a pipeline) tag --input text or tokens, without --marginals, --nbest or --threads")
	}
	var stages []pipeline.Stage
	for _, path := range paths {
		tg, err := a.loadTagger(ctx, path, opt)
		if err != nil {
			return err
		}
		defer tg.Close()
		stages = append(stages, pipeline.Stage{Name: path, Tagger: tg})
	}
	p, err := pipeline.New(stages)
	if err != nil {
		return usagef("%v", err)
	}
	in, name, done, err := a.openInput(pos, "tagging")
	if err != nil {
		return err
	}
	defer done()
	run := &pipelineRun{p: p, last: stages[len(stages)-1].Tagger, w: bufio.NewWriterSize(a.stdout, 1<<16)}
	switch o.output {
	case "auto", "tsv":
	case "json":
		run.json = true
	default:
		return usagef("--output must be auto, tsv or json, got %q", o.output)
	}
	read, closeTok, err := a.pipelineReader(ctx, stages[0].Tagger, in, name, tokName, o.input)
	if err != nil {
		return err
	}
	defer closeTok()
	run.read = read
	err = run.all(ctx)
	if ferr := run.w.Flush(); err == nil {
		err = ferr
	}
	return err
}

// pipelineReader returns what reads the input's sentences as words
// (through the tokenizer tokName for raw text, else a token per line),
// and what closes the tokenizer.
func (a *app) pipelineReader(ctx context.Context, first *tagger.Tagger, in io.Reader, file, tokName string, input tagger.Input) (func() ([]string, *tokenize.Sentence, error), func(), error) {
	if input == tagger.Tokens {
		r := corpus.NewTokensReader(in, file, 1, 0)
		return func() ([]string, *tokenize.Sentence, error) {
			s, err := r.Read()
			if err != nil {
				return nil, nil, err
			}
			words := make([]string, s.Len())
			for i, row := range s.Tokens {
				words[i] = row[0]
			}
			return words, nil, nil
		}, func() {}, nil
	}
	tok, closeTok, err := a.textTokenizer(ctx, first, tokName)
	if err != nil {
		return nil, nil, err
	}
	r := tokenize.NewReader(in, file, tok)
	return func() ([]string, *tokenize.Sentence, error) {
		s, _, err := r.Read()
		if err != nil {
			return nil, nil, err
		}
		return s.Words(), &s, nil
	}, closeTok, nil
}

// all reads, tags and writes every sentence, a batch at a time.
func (r *pipelineRun) all(ctx context.Context) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		words, text, err := r.read()
		if err != nil && err != io.EOF {
			return err
		}
		if words != nil {
			r.batch, r.texts = append(r.batch, words), append(r.texts, text)
		}
		if len(r.batch) == pipelineBatch || err == io.EOF && len(r.batch) > 0 {
			if err := r.flush(); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// flush tags the batch and writes it: token<TAB>label per stage in tsv,
// or an annotate.Sentence of the last stage's labels whose tokens carry
// every stage's in "tags".
func (r *pipelineRun) flush() error {
	labels, err := r.p.Tag(r.batch)
	if err != nil {
		return err
	}
	cols := r.p.Columns()
	kind, sch := annotate.KindOf(r.last), r.last.Scheme()
	for s, words := range r.batch {
		if !r.json {
			for i, w := range words {
				r.w.WriteString(w)
				for k := range labels {
					r.w.WriteByte('\t')
					r.w.WriteString(labels[k][s][i])
				}
				r.w.WriteByte('\n')
			}
			r.w.WriteByte('\n')
			continue
		}
		js := annotate.New(words, labels[len(labels)-1][s], kind, sch, r.texts[s])
		js.AddTags(cols, pipeline.Of(labels, s))
		if err := writeJSONLine(r.w, js); err != nil {
			return err
		}
	}
	r.batch, r.texts = r.batch[:0], r.texts[:0]
	return nil
}
