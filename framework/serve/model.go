package serve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sync"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/annotate"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/plugin"
	"github.com/trellis-nlp/trellis/framework/pretrained"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// servedModel is one model: its file, read once, what it reads of a
// sentence, and the current generation of its taggers.
type servedModel struct {
	name   string
	model  *model.Model
	sha256 string
	input  tagger.TokenInput
	// kind and scheme shape the answer to a text request (annotate).
	kind   annotate.Kind
	scheme scheme.Scheme
	opts   *Options
	log    zerolog.Logger
	met    *metrics

	mu     sync.Mutex
	gen    *generation // nil after a failed rebuild: the next request retries
	closed bool
}

// generation is a pool of taggers sharing one plugin host. When a plugin
// of the host dies the generation is retired and a new one built.
type generation struct {
	host *plugin.Host
	pool chan *tagger.Tagger

	mu      sync.Mutex
	retired bool
	out     int // taggers taken and not given back
}

func loadModel(mf ModelFile, opts *Options, met *metrics) (*servedModel, error) {
	// A file, or a shipped model by name (pretrained's rule, as --model
	// everywhere); read once, so the checksum is of what is served.
	data, err := pretrained.ReadFile(mf.Path)
	if err != nil {
		return nil, err
	}
	m, err := model.Decode(data)
	if err != nil {
		return nil, err
	}
	digest := sha256.Sum256(data)
	sum := hex.EncodeToString(digest[:])
	sm := &servedModel{name: mf.Name, model: m, sha256: sum, opts: opts, met: met,
		log: opts.Log.With().Str("model", mf.Name).Logger()}
	// The taggers first: what cannot be tagged with fails here, with the
	// tagger's own error, before the columns are asked for.
	g, err := sm.build()
	if err != nil {
		return nil, err
	}
	sm.gen = g
	first := <-g.pool
	sm.input, err = first.TokenInput()
	sm.kind, sm.scheme = annotate.KindOf(first), first.Scheme()
	g.pool <- first
	if err != nil {
		sm.close()
		return nil, err
	}
	sm.log.Info().Str("path", mf.Path).Str("sha256", sum).Strs("extra_columns", sm.input.ExtraNames).
		Int("taggers", opts.Concurrency).Msg("model loaded")
	return sm, nil
}

// build makes a generation: a plugin host (plugins start as the taggers
// compile their templates, once per binary) and Concurrency taggers, one
// loaded from the model and its replicas.
func (sm *servedModel) build() (*generation, error) {
	host := sm.opts.PluginHost()
	reg := sm.opts.Templates(host)
	g := &generation{host: host, pool: make(chan *tagger.Tagger, sm.opts.Concurrency)}
	first, err := tagger.New(sm.model, reg, tagger.Options{})
	if err != nil {
		g.retire()
		return nil, err
	}
	g.pool <- first
	// The others share the first's dictionaries and weights.
	for range sm.opts.Concurrency - 1 {
		t, err := first.Replica(reg)
		if err != nil {
			g.retire()
			return nil, err
		}
		g.pool <- t
	}
	return g, nil
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

// acquire takes a tagger, waiting while all are busy.
func (g *generation) acquire(ctx context.Context) (*tagger.Tagger, error) {
	select {
	case t := <-g.pool:
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.retired {
			// Retired between the take and now: this tagger is closed
			// and the caller moves to the next generation.
			t.Close()
			if g.out == 0 {
				g.host.Close()
			}
			return nil, errRetired
		}
		g.out++
		return t, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// release gives t back, or closes it if the generation was retired
// meanwhile; the last one back closes the plugin host.
func (g *generation) release(t *tagger.Tagger) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.out--
	if !g.retired {
		g.pool <- t
		return
	}
	t.Close()
	if g.out == 0 {
		g.host.Close()
	}
}

// retire closes the idle taggers, and the host unless taggers are out
// (release closes it when the last returns).
func (g *generation) retire() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.retired = true
	for {
		select {
		case t := <-g.pool:
			t.Close()
			continue
		default:
		}
		break // the pool is empty
	}
	if g.out == 0 {
		g.host.Close()
	}
}

// tagged is what tagging a request gave: labels, or the detailed
// decoding when marginals or n-best were asked for.
type tagged struct {
	labels   [][]string
	detailed []tagger.Decoded
}

// tag tags sents with a tagger of the current generation. A plugin that
// died fails the attempt; the generation is replaced and the sentences
// tagged once more on the new one.
func (sm *servedModel) tag(ctx context.Context, sents []*corpus.Sentence, nbest int, detailed bool, hook func()) (tagged, error) {
	for attempt := 0; ; attempt++ {
		g, err := sm.current()
		if err != nil {
			return tagged{}, err
		}
		t, err := g.acquire(ctx)
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
		var out tagged
		if detailed {
			out.detailed, err = t.TagDetailed(sents, nbest)
		} else {
			out.labels, err = t.Tag(sents)
		}
		g.release(t)
		var pe *plugin.Error
		if err != nil && attempt == 0 && errors.As(err, &pe) {
			sm.replace(g, err)
			continue
		}
		return out, err
	}
}
