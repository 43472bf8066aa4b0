package serve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/annotate"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/pipeline"
	"github.com/trellis-nlp/trellis/framework/plugin"
	"github.com/trellis-nlp/trellis/framework/pretrained"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/tagger"
	"github.com/trellis-nlp/trellis/framework/tokenize"
)

// servedModel is one model, or a pipeline of models: their files, read
// once, what a request fills and gets, and the current generation of its
// chains of taggers.
type servedModel struct {
	name  string
	files []modelFile // one, or a pipeline's models in order
	// input is what a request fills: the first model's columns.
	input tagger.TokenInput
	// fixed is the tokenizer the first model fixes (tokenize.Fixed:
	// characters for a segmenter), nil when text goes through
	// Options.Tokenizer.
	fixed tokenize.Tokenizer
	// kind and scheme shape the answer to a text request (annotate): the
	// last model's, whose labels the answer gives.
	kind   annotate.Kind
	scheme scheme.Scheme
	// columns are a pipeline's label columns, one per model, the keys of
	// the answer's "tags"; nil for one model.
	columns []string
	opts    *Options
	log     zerolog.Logger
	met     *metrics

	mu     sync.Mutex
	gen    *generation // nil after a failed rebuild: the next request retries
	closed bool
}

// modelFile is one model file as served.
type modelFile struct {
	path   string // as given: a file or a shipped model's name
	model  *model.Model
	sha256 string // of the bytes read
	input  tagger.TokenInput
}

// pipeline says whether sm is a pipeline of several models.
func (sm *servedModel) pipeline() bool { return len(sm.files) > 1 }

// generation is a pool of chains sharing one plugin host. When a plugin
// of the host dies the generation is retired and a new one built.
type generation struct {
	host *plugin.Host
	pool chan *chain

	mu      sync.Mutex
	retired bool
	out     int // chains taken and not given back
}

// chain is what a request takes from the pool: one tagger per model. For
// a pipeline the models before the last tag as a pipeline.Pipeline, and
// the last is fed their labels here, so that it alone can decode in
// detail (marginals, n-best).
type chain struct {
	taggers []*tagger.Tagger
	// The rest is for a pipeline only. word is the first model's word
	// column (a request's words are read back from its sentences);
	// whole is the pipeline, prefix the models before the last, which
	// it tags, the last being tagged by tag itself (in detail when
	// asked) on whole's sentences for it.
	word     int
	whole    *pipeline.Pipeline
	prefix   *pipeline.Pipeline
	lastName string
	// columns are the models' label columns.
	columns []string
}

func loadModel(mf ModelFile, opts *Options, met *metrics) (*servedModel, error) {
	sm := &servedModel{name: mf.Name, opts: opts, met: met, log: opts.Log.With().Str("model", mf.Name).Logger()}
	for _, path := range mf.paths() {
		if path == "" {
			return nil, errors.New("a model's path is empty")
		}
		f, err := readModelFile(path)
		if err != nil && len(mf.Then) > 0 {
			err = fmt.Errorf("%s: %w", path, err) // which of the pipeline's models
		}
		if err != nil {
			return nil, err
		}
		sm.files = append(sm.files, f)
	}
	// The taggers first: what cannot be tagged with (a pipeline whose
	// model reads a column no earlier one labels) fails here, with the
	// tagger's or the pipeline's own error, before the columns are asked
	// for.
	g, err := sm.build()
	if err != nil {
		return nil, err
	}
	sm.gen = g
	first := <-g.pool
	for k, t := range first.taggers {
		if sm.files[k].input, err = t.TokenInput(); err != nil {
			break
		}
	}
	head, tail := first.taggers[0], first.taggers[len(first.taggers)-1]
	sm.input, sm.fixed, sm.columns = sm.files[0].input, tokenize.Fixed(head), first.columns
	sm.kind, sm.scheme = annotate.KindOf(tail), tail.Scheme()
	g.pool <- first
	if err != nil {
		sm.close()
		return nil, err
	}
	sm.logLoaded()
	return sm, nil
}

// readModelFile reads and decodes the model at path: a file, or a
// shipped model by name (pretrained's rule, as --model everywhere); read
// once, so the checksum is of what is served.
func readModelFile(path string) (modelFile, error) {
	data, err := pretrained.ReadFile(path)
	if err != nil {
		return modelFile{}, err
	}
	m, err := model.Decode(data)
	if err != nil {
		return modelFile{}, err
	}
	digest := sha256.Sum256(data)
	return modelFile{path: path, model: m, sha256: hex.EncodeToString(digest[:])}, nil
}

func (sm *servedModel) logLoaded() {
	if !sm.pipeline() {
		f := sm.files[0]
		sm.log.Info().Str("path", f.path).Str("sha256", f.sha256).Strs("extra_columns", sm.input.ExtraNames).
			Int("taggers", sm.opts.Concurrency).Msg("model loaded")
		return
	}
	var paths, sums []string
	for _, f := range sm.files {
		paths, sums = append(paths, f.path), append(sums, f.sha256)
	}
	sm.log.Info().Strs("paths", paths).Strs("sha256", sums).Strs("columns", sm.columns).
		Int("taggers", sm.opts.Concurrency).Msg("pipeline loaded")
}

// build makes a generation: a plugin host (plugins start as the taggers
// compile their templates, once per binary) and Concurrency chains, one
// loaded from the models and its replicas.
func (sm *servedModel) build() (*generation, error) {
	host := sm.opts.PluginHost()
	reg := sm.opts.Templates(host)
	g := &generation{host: host, pool: make(chan *chain, sm.opts.Concurrency)}
	first, err := sm.newChain(func(k int) (*tagger.Tagger, error) {
		return tagger.New(sm.files[k].model, reg, tagger.Options{})
	})
	if err != nil {
		g.retire()
		return nil, err
	}
	g.pool <- first
	// The others share the first's dictionaries and weights.
	for range sm.opts.Concurrency - 1 {
		c, err := sm.newChain(func(k int) (*tagger.Tagger, error) { return first.taggers[k].Replica(reg) })
		if err != nil {
			g.retire()
			return nil, err
		}
		g.pool <- c
	}
	return g, nil
}

// newChain makes a chain of the taggers newTagger(k) gives for model k.
// For a pipeline it checks that every column a model reads besides the
// words is labelled by an earlier model (pipeline.New, whose error names
// the model and the column).
func (sm *servedModel) newChain(newTagger func(k int) (*tagger.Tagger, error)) (*chain, error) {
	c := &chain{}
	for k := range sm.files {
		t, err := newTagger(k)
		if err != nil {
			c.close()
			return nil, err
		}
		c.taggers = append(c.taggers, t)
	}
	if !sm.pipeline() {
		return c, nil
	}
	err := c.link(sm.files)
	if err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// link makes c's taggers, the models of files, a pipeline.
func (c *chain) link(files []modelFile) error {
	stages := make([]pipeline.Stage, len(c.taggers))
	for k, t := range c.taggers {
		stages[k] = pipeline.Stage{Name: files[k].path, Tagger: t}
	}
	var err error
	if c.whole, err = pipeline.New(stages); err != nil {
		return err
	}
	n := len(stages)
	// A prefix of a valid pipeline is valid.
	if c.prefix, err = pipeline.New(stages[:n-1]); err != nil {
		return err
	}
	first, err := c.taggers[0].TokenInput()
	if err != nil {
		return err
	}
	c.word, c.lastName, c.columns = first.Word, stages[n-1].Name, c.whole.Columns()
	return nil
}

// close closes c's taggers.
func (c *chain) close() {
	for _, t := range c.taggers {
		t.Close()
	}
}

// tag tags sents (built with the first model's columns) with c: labels of
// the last model, in detail when asked, and for a pipeline the labels of
// the models before it.
func (c *chain) tag(sents []*corpus.Sentence, nbest int, detailed bool) (tagged, error) {
	var out tagged
	if c.prefix != nil {
		words := make([][]string, len(sents))
		for s, sent := range sents {
			words[s] = make([]string, sent.Len())
			for i, row := range sent.Tokens {
				words[s][i] = row[c.word]
			}
		}
		var err error
		if out.earlier, err = c.prefix.Tag(words); err != nil {
			return tagged{}, err
		}
		// The last model is tagged here, in detail when asked: its
		// sentences are the pipeline's for it.
		sents = c.whole.Sentences(len(c.taggers)-1, words, out.earlier)
	}
	last := c.taggers[len(c.taggers)-1]
	var err error
	if detailed {
		out.detailed, err = last.TagDetailed(sents, nbest)
	} else {
		out.labels, err = last.Tag(sents)
	}
	if err != nil && c.prefix != nil {
		err = fmt.Errorf("%s: %w", c.lastName, err) // as pipeline's errors name their model
	}
	return out, err
}

// current returns the generation to tag with, building one if the last
// rebuild failed.
func (sm *servedModel) current() (*generation, error) {
	sm.mu.Lock()
	defer sm.mu.Unlock()
	if sm.closed {
		return nil, errClosed
	}
	if sm.gen == nil {
		g, err := sm.build()
		if err != nil {
			return nil, err
		}
		sm.gen = g
	}
	return sm.gen, nil
}

var (
	errClosed  = errors.New("the service is stopping")
	errRetired = errors.New("generation retired")
)

// replace retires g after a plugin of it died, and builds the next
// generation (unless another request did already).
func (sm *servedModel) replace(g *generation, cause error) {
	sm.mu.Lock()
	defer sm.mu.Unlock()
	if sm.gen != g || sm.closed {
		return
	}
	sm.gen = nil
	g.retire()
	sm.met.restarts.WithLabelValues(sm.name).Inc()
	sm.log.Warn().Err(cause).Msg("a plugin died: restarting the model's plugins")
	next, err := sm.build()
	if err != nil {
		sm.log.Error().Err(err).Msg("restarting the model's plugins failed; the next request tries again")
		return
	}
	sm.gen = next
}

func (sm *servedModel) close() error {
	sm.mu.Lock()
	defer sm.mu.Unlock()
	sm.closed = true
	if sm.gen != nil {
		sm.gen.retire()
		sm.gen = nil
	}
	return nil
}

// acquire takes a chain, waiting while all are busy.
func (g *generation) acquire(ctx context.Context) (*chain, error) {
	select {
	case c := <-g.pool:
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.retired {
			// Retired between the take and now: this chain is closed
			// and the caller moves to the next generation.
			c.close()
			if g.out == 0 {
				g.host.Close()
			}
			return nil, errRetired
		}
		g.out++
		return c, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// release gives c back, or closes it if the generation was retired
// meanwhile; the last one back closes the plugin host.
func (g *generation) release(c *chain) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.out--
	if !g.retired {
		g.pool <- c
		return
	}
	c.close()
	if g.out == 0 {
		g.host.Close()
	}
}

// retire closes the idle chains, and the host unless taggers are out
// (release closes it when the last returns).
func (g *generation) retire() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.retired = true
	for {
		select {
		case c := <-g.pool:
			c.close()
			continue
		default:
		}
		break // the pool is empty
	}
	if g.out == 0 {
		g.host.Close()
	}
}

// tagged is what tagging a request gave: the (last) model's labels, or
// its detailed decoding when marginals or n-best were asked for, and the
// labels of a pipeline's models before the last, earlier[k][s][i].
type tagged struct {
	labels   [][]string
	detailed []tagger.Decoded
	earlier  [][][]string
}

// tag tags sents with a chain of the current generation. A plugin that
// died fails the attempt; the generation is replaced and the sentences
// tagged once more on the new one.
func (sm *servedModel) tag(ctx context.Context, sents []*corpus.Sentence, nbest int, detailed bool, hook func()) (tagged, error) {
	for attempt := 0; ; attempt++ {
		g, err := sm.current()
		if err != nil {
			return tagged{}, err
		}
		c, err := g.acquire(ctx)
		if err == errRetired {
			attempt--
			continue
		}
		if err != nil {
			return tagged{}, err
		}
		if hook != nil {
			hook()
		}
		out, err := c.tag(sents, nbest, detailed)
		g.release(c)
		var pe *plugin.Error
		if err != nil && attempt == 0 && errors.As(err, &pe) {
			sm.replace(g, err)
			continue
		}
		return out, err
	}
}
