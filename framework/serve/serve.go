package serve

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/plugin"
	"github.com/trellis-nlp/trellis/framework/tokenize"
)

// ModelFile names a model file to serve, or the files of a pipeline.
type ModelFile struct {
	Name string // the {name} of its URL
	// Path is the model: a file, or a shipped model's name.
	Path string
	// Then makes a pipeline: the models after Path, in order, each
	// reading the labels of the ones before it as the columns they name
	// (framework/pipeline). Its answers are the last model's labels, with
	// every model's in "tags".
	Then []string
}

// paths are the models of mf, in order.
func (mf ModelFile) paths() []string { return append([]string{mf.Path}, mf.Then...) }

// String is how the command line gives mf's models: "A+B" for a pipeline.
func (mf ModelFile) String() string { return strings.Join(mf.paths(), "+") }

// Options configure a Server. Templates and PluginHost are required; zero
// limits take the defaults below.
type Options struct {
	Models []ModelFile
	// Concurrency is the number of taggers per model (default GOMAXPROCS).
	Concurrency int
	// MaxBody bounds a request body in bytes (default 10 MB); MaxTokens
	// the tokens of one request (default 100,000); MaxNBest the n-best
	// list asked for (default 100).
	MaxBody   int64
	MaxTokens int
	MaxNBest  int
	// Timeouts of the HTTP server (defaults 30s, 2m, 2m), and how long
	// Serve waits for the requests in flight when it stops (default 30s).
	ReadTimeout, WriteTimeout, IdleTimeout, DrainTimeout time.Duration
	// Log receives the access log (one line per request, info level) and
	// the service's events.
	Log zerolog.Logger
	// Templates returns a new registry of the template types a model's
	// templates are built from, with the plugin type bound to host.
	Templates func(host *plugin.Host) *feature.Registry
	// PluginHost returns a new plugin host. Each model gets its own, and
	// a new one when one of its plugins dies. The server closes them.
	PluginHost func() *plugin.Host
	// Tokenizer splits the raw text of a request with "text" (a
	// segmentation model reads characters instead). The server uses it
	// under a lock, so it need not be safe for concurrent use; it stays
	// the caller's to close. Nil: such requests are refused.
	Tokenizer tokenize.Tokenizer
}

// Defaults of Options.
const (
	DefaultMaxBody   = 10 << 20
	DefaultMaxTokens = 100_000
	DefaultMaxNBest  = 100
)

func (o *Options) setDefaults() {
	if o.Concurrency <= 0 {
		o.Concurrency = runtime.GOMAXPROCS(0)
	}
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = DefaultMaxTokens
	}
	if o.MaxNBest <= 0 {
		o.MaxNBest = DefaultMaxNBest
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&o.ReadTimeout, 30 * time.Second}, {&o.WriteTimeout, 2 * time.Minute}, {&o.IdleTimeout, 2 * time.Minute}, {&o.DrainTimeout, 30 * time.Second}} {
		if *d.v <= 0 {
			*d.v = d.def
		}
	}
}

// Server serves a fixed set of models. Create it with New; Close releases
// the models' taggers and plugins once Serve has returned.
type Server struct {
	opts     Options
	models   map[string]*servedModel
	names    []string // sorted
	metrics  *metrics
	draining atomic.Bool
	handler  http.Handler
	// beforeTag, when set (tests), runs after a request took a tagger
	// and before it tags.
	beforeTag func()
	// tokMu serializes Options.Tokenizer.
	tokMu sync.Mutex
}

// New loads every model (each file read once), builds its taggers and
// starts its plugins. A model that cannot be loaded, or a pipeline with a
// model reading a column no earlier one labels, is an error naming it.
func New(opts Options) (*Server, error) {
	if opts.Templates == nil || opts.PluginHost == nil {
		return nil, errors.New("serve: Options.Templates and Options.PluginHost are required")
	}
	if len(opts.Models) == 0 {
		return nil, errors.New("serve: no models to serve")
	}
	opts.setDefaults()
	s := &Server{opts: opts, models: map[string]*servedModel{}, metrics: newMetrics()}
	for _, mf := range opts.Models {
		if err := CheckName(mf.Name); err != nil {
			s.Close()
			return nil, err
		}
		if _, dup := s.models[mf.Name]; dup {
			s.Close()
			return nil, fmt.Errorf("model name %q given twice", mf.Name)
		}
		m, err := loadModel(mf, &s.opts, s.metrics)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("model %q (%s): %w", mf.Name, mf, err)
		}
		s.models[mf.Name] = m
		s.names = append(s.names, mf.Name)
	}
	sort.Strings(s.names)
	s.handler = s.routes()
	return s, nil
}

// CheckName accepts names that are one URL path segment as they are: the
// model names New takes (a command line can check its flags with it).
func CheckName(name string) error {
	if name == "" {
		return errors.New("a model needs a name")
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') || name == "." || name == ".." {
			return fmt.Errorf("model name %q: use letters, digits, '-', '_' and '.'", name)
		}
	}
	return nil
}

// Handler returns the service's routes, for tests and embedding.
func (s *Server) Handler() http.Handler { return s.handler }

// Close closes every model's taggers and plugin host.
func (s *Server) Close() error {
	var first error
	for _, m := range s.models {
		if err := m.close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Serve answers requests on ln until ctx is done, then drains: the
// listener closes, requests on open connections get 503, and Serve waits
// for the requests in flight (up to Options.DrainTimeout) before it
// returns nil. An error means the listener failed or the drain timed out.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: min(s.opts.ReadTimeout, 10*time.Second),
		ReadTimeout:       s.opts.ReadTimeout,
		WriteTimeout:      s.opts.WriteTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		ErrorLog:          log.New(logWriter{s.opts.Log}, "", 0),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	s.opts.Log.Info().Str("addr", ln.Addr().String()).Strs("models", s.names).Int("concurrency", s.opts.Concurrency).Msg("serving")
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.draining.Store(true)
	inFlight := s.metrics.inFlightNow()
	s.opts.Log.Info().Int64("in_flight", inFlight).Msg("draining: refusing new requests, finishing those in flight")
	dctx, cancel := context.WithTimeout(context.Background(), s.opts.DrainTimeout)
	defer cancel()
	err := srv.Shutdown(dctx)
	<-errc
	if err != nil {
		srv.Close()
		return fmt.Errorf("drain: %d requests still in flight after %s: %w", s.metrics.inFlightNow(), s.opts.DrainTimeout, err)
	}
	s.opts.Log.Info().Msg("drained")
	return nil
}

// logWriter sends the HTTP server's own messages (TLS and connection
// errors) to the log.
type logWriter struct{ log zerolog.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	w.log.Warn().Str("source", "http").Msg(string(trimNewline(p)))
	return len(p), nil
}

func trimNewline(p []byte) []byte {
	for len(p) > 0 && (p[len(p)-1] == '\n' || p[len(p)-1] == '\r') {
		p = p[:len(p)-1]
	}
	return p
}
