package main

// This file holds a worker's models: the chain of taggers (one model, or
// a pipeline whose models read the labels of the ones before them) and
// the tokenizer of raw text, loaded once per DoFn instance.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/pipeline"
	"github.com/trellis-nlp/trellis/framework/plugin"
	"github.com/trellis-nlp/trellis/framework/pretrained"
	"github.com/trellis-nlp/trellis/framework/tagger"
	"github.com/trellis-nlp/trellis/framework/tokenize"
)

// chain is the models of a job, loaded. It is not safe for concurrent
// use (nor are its taggers).
type chain struct {
	stages []*tagger.Tagger
	// p chains several models; nil for one.
	p *pipeline.Pipeline
	// tok splits raw text (text input only); tokTagger is its model's
	// tagger, when it is one.
	tok       tokenize.Tokenizer
	tokTagger *tagger.Tagger
}

// openChain loads the job's models (and its tokenizer for raw text) and
// checks that they can tag its input: every column a pipeline's model
// reads comes from an earlier one (pipeline.New, trellis tag's check),
// and one model given text or tokens reads the words only. Those
// mistakes are usage errors.
func openChain(ctx context.Context, j job) (_ *chain, err error) {
	c := &chain{}
	defer func() {
		if err != nil {
			c.close()
		}
	}()
	var stages []pipeline.Stage
	for _, path := range j.Models {
		tg, err := newTagger(ctx, path)
		if err != nil {
			return nil, err
		}
		c.stages = append(c.stages, tg)
		if err := checkTagger(tg, path); err != nil {
			return nil, err
		}
		stages = append(stages, pipeline.Stage{Name: path, Tagger: tg})
	}
	switch {
	case len(stages) > 1:
		if c.p, err = pipeline.New(stages); err != nil {
			return nil, usagef("%v", err)
		}
	case j.Input != tagger.Corpus:
		if err := c.stages[0].CheckPlain(); err != nil {
			return nil, usagef("--input-format %s: %v", j.Input, err)
		}
	}
	if j.Input == tagger.Text {
		if err := c.openTokenizer(ctx, j.Tokenizer); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// openTokenizer sets the tokenizer of raw text: the one the first model
// fixes (characters for a segmenter), else the one called name.
func (c *chain) openTokenizer(ctx context.Context, name string) error {
	if c.tok = tokenize.Fixed(c.stages[0]); c.tok != nil {
		return nil
	}
	if tok, ok := tokenize.Builtin(name); ok {
		c.tok = tok
		return nil
	}
	tg, err := newTagger(ctx, name)
	if err != nil {
		return err
	}
	c.tokTagger = tg
	if c.tok, err = tokenize.NewModel(tg); err != nil {
		return usagef("--tokenizer %s: %v", name, err)
	}
	return nil
}

// close stops every model's plugins.
func (c *chain) close() error {
	var errs []error
	for _, tg := range append(c.stages, c.tokTagger) {
		if tg != nil {
			errs = append(errs, tg.Close())
		}
	}
	return errors.Join(errs...)
}

// last is the model whose labels are the output's.
func (c *chain) last() *tagger.Tagger { return c.stages[len(c.stages)-1] }

// sentenceReader reads a sentence of corpus or tokens input: corpus input
// in the last model's format, tokens in one model's column layout (as
// trellis tag reads them), or as words for a pipeline.
func (c *chain) sentenceReader(r io.Reader, file string, j job) (corpus.Reader, error) {
	switch {
	case j.Input == tagger.Corpus:
		return c.last().Format.NewReader(r, file, readOptions(j.Gold)), nil
	case c.p == nil:
		return c.stages[0].NewReader(r, file, tagger.Tokens)
	}
	return corpus.NewTokensReader(r, file, 1, 0), nil
}

// wordColumn is the column of the words in sentenceReader's sentences,
// -1 for a format without words.
func (c *chain) wordColumn(in tagger.Input) int {
	switch {
	case in == tagger.Corpus:
		return c.last().WordColumn()
	case c.p == nil:
		return c.stages[0].WordColumn()
	}
	return 0
}

// tag tags a batch: labels[k][s] is model k's labels of sentence s. One
// model tags the sentences as read; a pipeline tags their words.
func (c *chain) tag(items []item) ([][][]string, error) {
	if c.p != nil {
		words := make([][]string, len(items))
		for s, it := range items {
			words[s] = it.words
		}
		return c.p.Tag(words)
	}
	batch := make([]*corpus.Sentence, len(items))
	for s, it := range items {
		batch[s] = it.s
	}
	preds, err := c.stages[0].Tag(batch)
	if err != nil {
		return nil, err
	}
	return [][][]string{preds}, nil
}

// newTagger loads the model at path and builds its tagger, with the
// plugins it was trained with started (the tagger's Close stops them).
func newTagger(ctx context.Context, path string) (*tagger.Tagger, error) {
	m, err := loadModel(ctx, path)
	if err != nil {
		return nil, err
	}
	templates, _ := builtin.Registries()
	host := plugin.NewHost(plugin.Options{
		Log:                zerolog.New(os.Stderr).With().Timestamp().Logger(),
		Path:               filepath.SplitList(os.Getenv("TRELLIS_PLUGIN_PATH")),
		AllowVersionChange: os.Getenv("TRELLIS_ALLOW_PLUGIN_VERSION_CHANGE") == "1",
	})
	host.Register(templates)
	tg, err := tagger.New(m, templates, tagger.Options{})
	if err != nil {
		host.Close()
		return nil, err
	}
	tg.OnClose(host.Close)
	return tg, nil
}

// loadModel reads a model: a local file or, when there is none of that
// name, a shipped model (pretrained.Open, trellis tag's rule), or a file
// on any other Beam filesystem (gs://…).
func loadModel(ctx context.Context, path string) (*model.Model, error) {
	if isLocal(path) {
		return pretrained.Open(path)
	}
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

// checkTagger refuses models whose labels depend on more than the
// sentence: document features read the other sentences of a document,
// which the pipeline spreads over workers.
func checkTagger(tg *tagger.Tagger, path string) error {
	if tg.ReadsDocuments() {
		return fmt.Errorf("%s: the model has document features, whose values depend on the other sentences of a document; trellis-beam tags sentences apart, so it would not give trellis tag's labels: use trellis tag", path)
	}
	return nil
}
