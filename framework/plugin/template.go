package plugin

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/plugins/protocol"
)

// Config is what a model records of a plugin template: enough to start the
// same plugin again and give it the same config.
type Config struct {
	// Binary is the binary as the spec names it.
	Binary string `json:"binary"`
	// Path is the binary's absolute path when the model was trained; at
	// tagging time a missing Path falls back to Binary's base name on the
	// plugin path.
	Path string `json:"path"`
	// Pin is the spec's sha256, if it gave one.
	Pin string `json:"sha256_pin,omitempty"`
	// Plugin, Version and SHA256 are what the plugin declared and the
	// binary's checksum.
	Plugin  string `json:"plugin"`
	Version string `json:"version"`
	SHA256  string `json:"sha256"`
	// Settings is the plugin's config, as JSON.
	Settings json.RawMessage `json:"config"`
}

// Template is the "plugin" template type.
type Template struct {
	host *Host
	cfg  Config
	// set by DecodeHCL, for diagnostics of Compile
	ranges map[string]hcl.Range
	block  hcl.Range
}

var _ feature.Template = (*Template)(nil)

// Config implements feature.Template.
func (t *Template) Config() any { return &t.cfg }

// MarshalJSON records the config (binary, checksum, version, settings) in
// a run's manifest.
func (t *Template) MarshalJSON() ([]byte, error) { return json.Marshal(t.cfg) }

// Validate implements feature.Template.
func (t *Template) Validate() hcl.Diagnostics {
	var diags hcl.Diagnostics
	if t.cfg.Binary == "" && t.cfg.Path == "" {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid plugin", Detail: "binary must name the plugin's binary."})
	}
	if len(t.cfg.Settings) == 0 {
		t.cfg.Settings = json.RawMessage("{}")
	}
	return diags
}

// Info is what `trellis plugins` shows of one plugin.
type Info struct {
	Name        string           `json:"name"`
	Version     string           `json:"version"`
	SHA256      string           `json:"sha256"`
	Path        string           `json:"path"`
	Description string           `json:"description,omitempty"`
	Fields      []protocol.Field `json:"config,omitempty"`
}

// Describe starts (or reuses) the plugin at path and returns what it
// declares.
func (h *Host) Describe(name, path, pin string) (*Info, error) {
	p, err := h.start(name, path, pin)
	if err != nil {
		return nil, err
	}
	return &Info{Name: p.desc.Name, Version: p.desc.Version, SHA256: p.sha, Path: path,
		Description: p.desc.Description, Fields: p.desc.Fields}, nil
}

// Compile implements feature.Template: it starts the plugin (once per
// binary and host), checks it is the plugin the config was made with, and
// configures an instance.
func (t *Template) Compile(name string, cols feature.Columns) (feature.Extractor, error) {
	if t.host == nil {
		return nil, fmt.Errorf("plugin templates need a plugin host (plugin.Host.Register)")
	}
	path := t.cfg.Path
	if path == "" || checkExecutable(path) != nil {
		// The binary moved (or the model did): look for it by name on
		// the plugin path.
		var err error
		name := t.cfg.Binary
		if !filepath.IsAbs(name) {
			name = filepath.Base(name)
		}
		if path, err = t.host.Resolve(name, ""); err != nil {
			if t.cfg.Path != "" {
				err = fmt.Errorf("%s (the model was trained with %s)", err, t.cfg.Path)
			}
			return nil, &Error{Name: name, Path: t.cfg.Binary, Err: err}
		}
	}
	p, err := t.host.start(name, path, t.cfg.Pin)
	if err != nil {
		return nil, err
	}
	if t.cfg.Plugin != "" && p.desc.Name != t.cfg.Plugin {
		return nil, &Error{Name: name, Path: path, Err: fmt.Errorf("is plugin %q, not %q", p.desc.Name, t.cfg.Plugin)}
	}
	if t.cfg.Version != "" && p.desc.Version != t.cfg.Version {
		if !t.host.opts.AllowVersionChange {
			return nil, &Error{Name: name, Path: path, Err: fmt.Errorf(
				"version %s, but the model was trained with version %s (sha256 %s); its features may differ. Use the plugin the model was trained with, or override with TRELLIS_ALLOW_PLUGIN_VERSION_CHANGE=1",
				p.desc.Version, t.cfg.Version, t.cfg.SHA256)}
		}
		t.host.opts.Log.Warn().Str("plugin", name).Str("version", p.desc.Version).Str("model_version", t.cfg.Version).Msg("plugin version differs from the model's; allowed by override")
	} else if t.cfg.SHA256 != "" && p.sha != t.cfg.SHA256 {
		t.host.opts.Log.Warn().Str("plugin", name).Str("sha256", p.sha).Str("model_sha256", t.cfg.SHA256).Msg("plugin binary differs from the model's (same version)")
	}
	var corpusCols []string
	for i, c := range cols.Names {
		if i != cols.Label {
			corpusCols = append(corpusCols, c)
		}
	}
	in, err := p.configure(t.cfg.Settings, corpusCols)
	if err != nil {
		return nil, &Error{Name: name, Path: path, Err: err}
	}
	resp := in.resp
	if len(resp.Errors) > 0 {
		return nil, &ConfigError{Name: name, Errors: resp.Errors}
	}
	x := &extractor{name: name, path: path, proc: p, inst: in, keys: protocol.HostKeys{Prefix: []byte(name + "=")}}
	for _, c := range resp.Columns {
		i, err := cols.Index(c)
		if err != nil {
			return nil, &ConfigError{Name: name, Errors: []protocol.ConfigError{{Message: "reads " + err.Error()}}, Err: err}
		}
		x.cols = append(x.cols, i)
	}
	return x, nil
}

// ConfigError is a plugin's refusal of its config.
type ConfigError struct {
	Name   string
	Errors []protocol.ConfigError
	// Err is the host's own finding behind Errors, when it has one: the
	// *feature.ColumnError of a column the plugin reads and the corpus
	// lacks, which callers find with errors.As.
	Err error
}

func (e *ConfigError) Unwrap() error { return e.Err }

func (e *ConfigError) Error() string {
	var parts []string
	for _, ce := range e.Errors {
		if ce.Field != "" {
			parts = append(parts, ce.Field+": "+ce.Message)
		} else {
			parts = append(parts, ce.Message)
		}
	}
	return fmt.Sprintf("plugin %q: config: %s", e.Name, strings.Join(parts, "; "))
}

// extractor is the host side of one configured plugin instance.
type extractor struct {
	name, path string
	proc       *process
	inst       *instance
	cols       []int
	keys       protocol.HostKeys
	free       []*protocol.RequestBuilder // request buffers to reuse
	pending    []*batch                   // prefetched, oldest first
	fetched    fetched                    // the last batch Fetch handed over
}

// A batch larger than the request budget is cut into chunks that are
// pipelined: the plugin computes chunk k+1 while the host adds the
// attributes of chunk k. Batches of the encoder's usual size (256
// sentences) go whole: on two cores, cutting them further cost more in
// calls and scheduling than the overlap gained (docs/results.md,
// "Measurements behind design choices in the code").
const (
	chunkSentences = 256
	maxChunks      = 8
)

var (
	_ feature.Fetcher      = (*extractor)(nil)
	_ feature.ColumnReader = (*extractor)(nil)
)

// ReadColumns implements feature.ColumnReader: the columns the plugin
// declared when it was configured.
func (x *extractor) ReadColumns() []int { return x.cols }

// Extract implements feature.Extractor.
func (x *extractor) Extract(s *corpus.Sentence, sink feature.Sink) error {
	return x.ExtractBatch([]*corpus.Sentence{s}, []feature.Sink{sink})
}

// batch is a batch on its way through the plugin: cut into chunks, each
// below protocol.RequestBudget, at most maxChunks of them in flight.
type batch struct {
	sents  []*corpus.Sentence
	chunks []*chunk
	sent   int // chunks[:sent] are sent
}

type chunk struct {
	lo, hi int
	rb     *protocol.RequestBuilder
	done   chan error
	resp   *protocol.ExtractResponse
}

// maxPending bounds the prefetched batches an extractor holds.
const maxPending = 2

// Prefetch implements feature.Prefetcher: the batch's first chunks go to
// the plugin now, and ExtractBatch on the same slice collects them.
func (x *extractor) Prefetch(sents []*corpus.Sentence) {
	if len(sents) == 0 || x.pendingFor(sents) >= 0 {
		return
	}
	if len(x.pending) == maxPending {
		// The oldest will not be extracted: its answers go unread.
		x.pending = x.pending[1:]
	}
	b := x.cut(sents)
	x.sendUpTo(b, maxChunks)
	x.pending = append(x.pending, b)
}

// Forget implements feature.Prefetcher. The calls in flight finish on
// their own; their answers go unread.
func (x *extractor) Forget() { x.pending = nil }

// pendingFor returns the index in x.pending of the batch of exactly these
// sentences, or -1.
func (x *extractor) pendingFor(sents []*corpus.Sentence) int {
	for k, b := range x.pending {
		if len(b.sents) == len(sents) && &b.sents[0] == &sents[0] {
			return k
		}
	}
	return -1
}

// cut cuts a batch into chunks: at most maxChunks of about equal size,
// further cut where a chunk would exceed the request budget.
func (x *extractor) cut(sents []*corpus.Sentence) *batch {
	per := max(chunkSentences, (len(sents)+maxChunks-1)/maxChunks)
	b := &batch{sents: sents}
	for lo := 0; lo < len(sents); {
		hi, size := lo, 0
		for hi < len(sents) && hi-lo < per && (hi == lo || size < protocol.RequestBudget) {
			for _, tok := range sents[hi].Tokens {
				for _, c := range x.cols {
					size += len(tok[c]) + 2
				}
			}
			hi++
		}
		b.chunks = append(b.chunks, &chunk{lo: lo, hi: hi, done: make(chan error, 1)})
		lo = hi
	}
	return b
}

// sendUpTo sends b's chunks until n of them are sent. Requests take their
// sequence numbers in the order they are sent, which is the order the
// plugin serves them in.
func (x *extractor) sendUpTo(b *batch, n int) {
	for ; b.sent < min(n, len(b.chunks)); b.sent++ {
		c := b.chunks[b.sent]
		if k := len(x.free); k > 0 {
			c.rb, x.free = x.free[k-1], x.free[:k-1]
		} else {
			c.rb = &protocol.RequestBuilder{}
		}
		c.rb.Reset(x.inst.id(), x.inst.nextSeq())
		for _, s := range b.sents[c.lo:c.hi] {
			c.rb.Sentence(s.Len())
			for _, tok := range s.Tokens {
				for _, col := range x.cols {
					c.rb.Value(tok[col])
				}
			}
		}
		go func() {
			c.done <- x.proc.call("extraction", func(ctx context.Context) error {
				var err error
				c.resp, err = x.proc.rpc.Extract(ctx, c.rb.Request())
				return err
			})
		}()
	}
}

// take removes the batch of sents from the prefetched ones, or cuts it.
func (x *extractor) take(sents []*corpus.Sentence) *batch {
	if k := x.pendingFor(sents); k >= 0 {
		b := x.pending[k]
		x.pending = append(x.pending[:k], x.pending[k+1:]...)
		return b
	}
	return x.cut(sents)
}

// fetched is a batch whose answers have all arrived and been checked.
type fetched struct {
	x      *extractor
	chunks []*chunk
	idx    [][]protocol.Offset // per chunk
	at     []int32             // sentence k is in chunk at[k]
}

// Fetch implements feature.Fetcher: it waits for all of the batch's
// answers and checks them; Replay then adds a sentence's attributes.
func (x *extractor) Fetch(sents []*corpus.Sentence) (feature.Fetched, error) {
	f := &x.fetched
	for _, c := range f.chunks {
		x.free = append(x.free, c.rb) // the previous batch's request buffers
	}
	f.x, f.chunks, f.idx, f.at = x, f.chunks[:0], f.idx[:0], f.at[:0]
	if len(sents) == 0 {
		return f, nil
	}
	b := x.take(sents)
	x.sendUpTo(b, maxChunks)
	for k, c := range b.chunks {
		if err := <-c.done; err != nil {
			x.proc.poison(err)
			return nil, &Error{Name: x.name, Path: x.path, Err: err}
		}
		idx, err := protocol.Index(c.resp, c.rb.Request().Lengths, nil)
		if err != nil {
			x.proc.poison(err)
			return nil, &Error{Name: x.name, Path: x.path, Err: fmt.Errorf("protocol error: %w", err)}
		}
		f.chunks, f.idx = append(f.chunks, c), append(f.idx, idx)
		for range c.hi - c.lo {
			f.at = append(f.at, int32(k))
		}
		x.sendUpTo(b, k+1+maxChunks)
	}
	return f, nil
}

// Replay implements feature.Fetched.
func (f *fetched) Replay(k int, sink feature.Sink) {
	c := f.chunks[f.at[k]]
	protocol.VisitSentence(c.resp, f.idx[f.at[k]], k-c.lo, &f.x.keys, func(i int, key []byte, v float64) {
		sink.Add(i, key, v)
	})
}

// ExtractBatch implements feature.BatchExtractor: the batch (prefetched or
// not) goes in pipelined calls, and the answers are added in order.
func (x *extractor) ExtractBatch(sents []*corpus.Sentence, sinks []feature.Sink) error {
	if len(sents) == 0 {
		return nil
	}
	b := x.take(sents)
	x.sendUpTo(b, maxChunks)
	for k, c := range b.chunks {
		if err := <-c.done; err != nil {
			x.proc.poison(err)
			return &Error{Name: x.name, Path: x.path, Err: err}
		}
		err := protocol.Visit(c.resp, c.rb.Request().Lengths, &x.keys, func(j, i int, key []byte, v float64) {
			sinks[c.lo+j].Add(i, key, v)
		})
		c.resp = nil
		x.free = append(x.free, c.rb)
		if err != nil {
			x.proc.poison(err)
			return &Error{Name: x.name, Path: x.path, Err: fmt.Errorf("protocol error: %w", err)}
		}
		x.sendUpTo(b, k+1+maxChunks)
	}
	return nil
}

// Close implements feature.Closer. The process is shared and stopped by
// the Host; an instance holds nothing else.
func (x *extractor) Close() error { return nil }
