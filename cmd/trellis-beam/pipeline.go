package main

// This file holds the Beam pipeline: the elements that travel between
// workers, and the graph of transforms that build makes.

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/trellis-nlp/trellis/framework/eval"
)

// Unit is a piece of the input as it travels between workers: the lines
// of a sentence (corpus and tokens input; a CoNLL -DOCSTART- line before
// it first), parsed again by the worker that tags it, or a paragraph of
// raw text (a tokenize.Paragraph), tokenized by that worker. File and
// Line (the 1-based line of its first token line, or of the paragraph's
// first line) keep error messages pointing into the input; Base is the
// characters of the file before a paragraph, from which its offsets
// count.
type Unit struct {
	File       string
	Text       string
	Base, Line int
}

// Scored is a tagged sentence's gold and predicted labels, for --eval;
// OOV (the word is not in the model's vocabulary) only when the model
// tells its vocabulary, Chars (the tokens) only for segmentation schemes,
// as trellis eval collects them.
type Scored struct {
	Gold, Pred, Chars []string
	OOV               []bool
}

func init() {
	beam.RegisterType(reflect.TypeOf((*Unit)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*Scored)(nil)).Elem())
	beam.RegisterCoder(reflect.TypeOf((*eval.Partial)(nil)), encodePartial, decodePartial)
	register.DoFn3x1[context.Context, fileio.ReadableFile, func(Unit), error](&readFn{})
	register.Emitter1[Unit]()
	register.DoFn4x1[context.Context, Unit, func(string), func(Scored), error](&tagFn{})
	register.Emitter1[string]()
	register.Emitter1[Scored]()
	register.DoFn2x0[string, func(int, string)](&shardFn{})
	register.Emitter2[int, string]()
	register.DoFn2x0[[]byte, func(int, string)](&allShardsFn{})
	register.DoFn3x1[context.Context, int, func(*string) bool, error](&writeShardFn{})
	register.Iter1[string]()
	register.Combiner3[*eval.Partial, Scored, *eval.Partial](&evalFn{})
	register.DoFn2x1[context.Context, *eval.Partial, error](&writeEvalFn{})
}

func encodePartial(p *eval.Partial) ([]byte, error) { return json.Marshal(p) }

func decodePartial(b []byte) (*eval.Partial, error) {
	var p eval.Partial
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// build makes the pipeline:
//
//	match files → read each into units → reshuffle → tag (models loaded
//	once per worker) → key by shard → group → write PREFIX-SSSSS-of-NNNNN
//	                                 ↘ (--eval) combine counts → PREFIX.eval.txt/.json
//
// The reshuffle spreads the units of a file (its sentences, or its
// paragraphs of raw text) over all workers: reading is one worker per
// file, tokenizing and tagging are spread by unit.
func build(o options, j job) *beam.Pipeline {
	p, s := beam.NewPipelineWithRoot()
	files := fileio.MatchFiles(s.Scope("match"), o.input, fileio.MatchEmptyDisallow())
	readable := fileio.ReadMatches(s.Scope("open"), files, fileio.ReadDirectorySkip())
	units := beam.ParDo(s.Scope("read"), &readFn{Job: j}, readable)
	units = beam.Reshuffle(s.Scope("spread"), units)
	text, scored := beam.ParDo2(s.Scope("tag"), &tagFn{Job: j}, units)
	keyed := beam.ParDo(s.Scope("shard"), &shardFn{Shards: o.shards}, text)
	// Every shard gets a file, an empty one if no sentence hashes to it.
	every := beam.ParDo(s.Scope("shards"), &allShardsFn{Shards: o.shards}, beam.Impulse(s))
	groups := beam.GroupByKey(s.Scope("group"), beam.Flatten(s, keyed, every))
	beam.ParDo0(s.Scope("write"), &writeShardFn{Prefix: o.output, Shards: o.shards}, groups)
	if j.Gold == scoreGold {
		counts := beam.Combine(s.Scope("score"), &evalFn{Scheme: j.Scheme}, scored)
		beam.ParDo0(s.Scope("report"), &writeEvalFn{Prefix: o.output, Model: j.last()}, counts)
	}
	return p
}
