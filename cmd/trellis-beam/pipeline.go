package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// Sentence is one sentence of the input as it travels between workers:
// its lines as read (the CoNLL -DOCSTART- line before it, if any, first),
// parsed again by the worker that tags it. File and Line (the 1-based
// line of its first token line) keep error messages pointing into the
// input.
type Sentence struct {
	File string
	Line int
	Text string
}

// Scored is a tagged sentence's gold and predicted labels, for --eval;
// OOV (the word is not in the model's vocabulary) only when the model
// tells its vocabulary, Chars (the tokens) only for segmentation schemes,
// as `trellis eval` collects them.
type Scored struct {
	Gold, Pred, Chars []string
	OOV               []bool
}

// modelInfo is what the launcher reads from the model to build the
// pipeline: the format (as JSON, to travel inside the DoFns) and scheme.
type modelInfo struct {
	format string
	scheme string
}

func init() {
	beam.RegisterType(reflect.TypeOf((*Sentence)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*Scored)(nil)).Elem())
	beam.RegisterCoder(reflect.TypeOf((*eval.Partial)(nil)), encodePartial, decodePartial)
	register.DoFn3x1[context.Context, fileio.ReadableFile, func(Sentence), error](&readFn{})
	register.Emitter1[Sentence]()
	register.DoFn4x1[context.Context, Sentence, func(string), func(Scored), error](&tagFn{})
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
//	match files → read each into sentences → reshuffle → tag (model loaded
//	once per worker) → key by shard → group → write PREFIX-SSSSS-of-NNNNN
//	                                 ↘ (--eval) combine counts → PREFIX.eval.txt/.json
//
// The reshuffle spreads the sentences of a file over all workers: reading
// is one worker per file, tagging is spread by sentence.
func build(o options, info *modelInfo) *beam.Pipeline {
	p, s := beam.NewPipelineWithRoot()
	files := fileio.MatchFiles(s.Scope("match"), o.input, fileio.MatchEmptyDisallow())
	readable := fileio.ReadMatches(s.Scope("open"), files, fileio.ReadDirectorySkip())
	sents := beam.ParDo(s.Scope("read"), &readFn{Format: info.format, Labelled: o.eval}, readable)
	sents = beam.Reshuffle(s.Scope("spread"), sents)
	text, scored := beam.ParDo2(s.Scope("tag"), &tagFn{Model: o.model, Labelled: o.eval}, sents)
	keyed := beam.ParDo(s.Scope("shard"), &shardFn{Shards: o.shards}, text)
	// Every shard gets a file, an empty one if no sentence hashes to it.
	every := beam.ParDo(s.Scope("shards"), &allShardsFn{Shards: o.shards}, beam.Impulse(s))
	groups := beam.GroupByKey(s.Scope("group"), beam.Flatten(s, keyed, every))
	beam.ParDo0(s.Scope("write"), &writeShardFn{Prefix: o.output, Shards: o.shards}, groups)
	if o.eval {
		counts := beam.Combine(s.Scope("score"), &evalFn{Scheme: info.scheme}, scored)
		beam.ParDo0(s.Scope("report"), &writeEvalFn{Prefix: o.output, Model: o.model}, counts)
	}
	return p
}

// loadModel reads a model file through Beam's filesystems (a local path,
// gs://…, or any other one registered).
func loadModel(ctx context.Context, path string) (*model.Model, error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m, err := model.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// loadInfo loads the model once in the launcher, so that a wrong path, a
// model that cannot score (--eval without a label column) or one this
// pipeline cannot tag fails before any worker starts.
func loadInfo(ctx context.Context, path string, labelled bool) (*modelInfo, error) {
	tg, err := newTagger(ctx, path)
	if err != nil {
		return nil, err
	}
	defer tg.Close()
	if err := checkTagger(tg, path); err != nil {
		return nil, err
	}
	if labelled && tg.Format.LabelColumn() < 0 {
		return nil, fmt.Errorf("%s: the model's format has no label column to evaluate against", path)
	}
	m := tg.Model
	if _, err := scheme.Parse(m.Scheme); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	cfg, err := json.Marshal(m.Format)
	if err != nil {
		return nil, err
	}
	return &modelInfo{format: string(cfg), scheme: m.Scheme}, nil
}

// checkTagger refuses models whose labels depend on more than the
// sentence: document features read the other sentences of a document,
// which the pipeline spreads over workers.
func checkTagger(tg *tagger.Tagger, path string) error {
	if tg.ReadsDocuments() {
		return fmt.Errorf("%s: the model has document features, whose values depend on the other sentences of a document; trellis-beam tags sentences apart, so it would not give trellis tag's labels: use trellis tag", path)
	}
	return nil
}
