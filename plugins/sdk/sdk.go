// Package sdk is what a trellis feature-extractor plugin imports. A plugin
// is a program whose main calls Serve with a constructor of a type that
// implements Plugin:
//
//	type upper struct {
//		cfg struct {
//			Column string `json:"column" trellis:"required" help:"column to read"`
//		}
//	}
//
//	func (p *upper) Info() sdk.Info   { return sdk.Info{Name: "upper", Version: "1.0.0"} }
//	func (p *upper) Config() any      { return &p.cfg }
//	func (p *upper) Setup(columns []string) ([]string, error) { return []string{p.cfg.Column}, nil }
//	func (p *upper) Extract(s *sdk.Sentence, f *sdk.Features) error {
//		for i := 0; i < s.Len(); i++ {
//			if w := s.Value(i, 0); w != "" && unicode.IsUpper([]rune(w)[0]) {
//				f.Set(i, "upper")
//			}
//		}
//		return nil
//	}
//
//	func main() { sdk.Serve(func() sdk.Plugin { return &upper{} }) }
//
// Serve speaks the protocol (go-plugin over gRPC with a versioned
// handshake); the plugin never sees it. Whatever the plugin prints to
// stdout goes to the host's log, never into the handshake; Log() returns a
// logger whose lines reach the host's log with their levels.
package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/trellis-nlp/trellis/plugins/protocol"
)

// Info names a plugin. Version is recorded in every model trained with the
// plugin; `trellis tag` refuses a plugin whose version differs, so bump it
// whenever the features a config gives change.
type Info struct {
	Name        string
	Version     string
	Description string
}

// Plugin is one configured feature extractor. Serve makes a fresh value for
// every plugin block of a spec, decodes the block's config into Config(),
// then calls Setup once and Extract for every sentence.
type Plugin interface {
	// Info names the plugin.
	Info() Info
	// Config returns a pointer to the config struct. Its exported fields
	// are the config schema: the json tag names the attribute; the Go type
	// gives its type (string, float64 or int, bool, []string, []float64,
	// map[string]string, map[string]float64); the tag trellis:"required"
	// makes it required and trellis:"path" resolves strings as file paths
	// relative to the spec; help:"..." documents it.
	Config() any
	// Setup checks the decoded config and loads what the plugin needs.
	// columns are the corpus's column names; Setup returns the names of the
	// columns Extract reads, in the order Sentence.Value indexes them.
	// Return FieldError to point the spec's diagnostic at a config field.
	Setup(columns []string) ([]string, error)
	// Extract adds the features of every token of s to f. It must be
	// deterministic. Feature keys are prefixed by the host with the
	// plugin block's name.
	Extract(s *Sentence, f *Features) error
}

// Sentence is one sentence's values of the columns Setup asked for.
type Sentence struct {
	values []string
	width  int
}

// Len is the number of tokens.
func (s *Sentence) Len() int {
	if s.width == 0 {
		return 0
	}
	return len(s.values) / s.width
}

// Value returns column c (an index into Setup's result) of token i.
func (s *Sentence) Value(i, c int) string { return s.values[i*s.width+c] }

// Features receives a sentence's features.
type Features struct {
	b   *protocol.ResponseBuilder
	key []byte
}

// Add records feature key with a real value for token i.
func (f *Features) Add(i int, key string, value float64) {
	f.key = append(f.key[:0], key...)
	f.b.Add(i, f.key, value)
}

// Set records feature key (value 1) for token i.
func (f *Features) Set(i int, key string) { f.Add(i, key, 1) }

// AddBytes is Add for a key built in a reused buffer; it copies what it
// keeps.
func (f *Features) AddBytes(i int, key []byte, value float64) { f.b.Add(i, key, value) }

// FieldError is a config error about one field; the host reports it at
// that attribute of the spec.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

// Errorf returns a FieldError for field.
func Errorf(field, format string, args ...any) error {
	return &FieldError{Field: field, Err: fmt.Errorf(format, args...)}
}

var (
	logOnce sync.Once
	logger  hclog.Logger
)

// Log returns the plugin's logger: its lines reach the host's log with
// their level, tagged with the plugin's name.
func Log() hclog.Logger {
	logOnce.Do(func() {
		level := hclog.LevelFromString(os.Getenv(protocol.LogLevelEnv))
		if level == hclog.NoLevel {
			level = hclog.Info
		}
		logger = hclog.New(&hclog.LoggerOptions{Level: level, Output: os.Stderr, JSONFormat: true, DisableTime: true})
	})
	return logger
}

// Serve runs the plugin until the host stops it. It never returns when
// started by trellis; started by hand it explains itself and exits with 1.
func Serve(newPlugin func() Plugin) {
	if os.Getenv(protocol.Handshake.MagicCookieKey) != protocol.Handshake.MagicCookieValue {
		info := newPlugin().Info()
		fmt.Fprintf(os.Stderr, "%s %s is a trellis feature-extractor plugin (protocol %d): use it from a spec's features block, e.g.\n\n  plugin \"%s\" {\n    binary = \"path/to/%s\"\n  }\n",
			info.Name, info.Version, protocol.Version, info.Name, info.Name)
		os.Exit(1)
	}
	restoreStdout()
	go watchParent()
	srv := &server{newPlugin: newPlugin, instances: map[uint32]*instance{}}
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig:  protocol.Handshake,
		VersionedPlugins: protocol.PluginSets(srv),
		Logger:           Log(),
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			opts = append(opts, protocol.ServerOptions()...)
			return grpc.NewServer(opts...)
		},
	})
}

// watchParent exits when the host is gone (killed without the chance to
// stop its plugins), so no plugin outlives it.
func watchParent() {
	parent := os.Getppid()
	for range time.Tick(500 * time.Millisecond) {
		if os.Getppid() != parent {
			os.Exit(0)
		}
	}
}

type instance struct {
	mu   sync.Mutex // calls of one instance run one at a time, in seq order
	turn *sync.Cond
	next uint64
	// workers are copies of the plugin, configured alike, that extract
	// parts of a batch in parallel: Extract need not be safe for
	// concurrent use, each copy runs in one goroutine at a time.
	workers []Plugin
	width   int
	// attrs and keyBytes per sentence in the last batch: the size hint of
	// the next batch's buffers, which saves growing them step by step.
	attrsPer, keyBytesPer float64
}

// maxWorkers bounds the copies of a plugin that extract in parallel.
const maxWorkers = 4

// server serves the plugin's instances; the protocol package carries its
// plain messages over gRPC.
type server struct {
	newPlugin func() Plugin
	mu        sync.Mutex
	instances map[uint32]*instance
	next      uint32
}

var _ protocol.Server = (*server)(nil)

func (s *server) Describe(context.Context, *protocol.DescribeRequest) (*protocol.DescribeResponse, error) {
	p := s.newPlugin()
	info := p.Info()
	fields, err := Schema(p.Config())
	if err != nil {
		return nil, err
	}
	return &protocol.DescribeResponse{Name: info.Name, Version: info.Version, Description: info.Description, Fields: fields}, nil
}

func (s *server) Configure(_ context.Context, req *protocol.ConfigureRequest) (*protocol.ConfigureResponse, error) {
	resp := &protocol.ConfigureResponse{}
	setup := func() (Plugin, []string, error) {
		p := s.newPlugin()
		if err := json.Unmarshal(req.Config, p.Config()); err != nil {
			return nil, nil, fmt.Errorf("config: %w", err)
		}
		cols, err := p.Setup(req.CorpusColumns)
		return p, cols, err
	}
	p, cols, err := setup()
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			resp.Errors = append(resp.Errors, protocol.ConfigError{Field: fe.Field, Message: fe.Err.Error()})
		} else {
			resp.Errors = append(resp.Errors, protocol.ConfigError{Message: err.Error()})
		}
		return resp, nil
	}
	in := &instance{workers: []Plugin{p}, width: len(cols)}
	in.turn = sync.NewCond(&in.mu)
	for len(in.workers) < min(runtime.GOMAXPROCS(0), maxWorkers) {
		w, _, err := setup()
		if err != nil {
			break // a copy that cannot be made: fewer workers
		}
		in.workers = append(in.workers, w)
	}
	s.mu.Lock()
	s.next++
	id := s.next
	s.instances[id] = in
	s.mu.Unlock()
	resp.Instance, resp.Columns = id, cols
	return resp, nil
}

func (s *server) Extract(_ context.Context, req *protocol.ExtractRequest) (*protocol.ExtractResponse, error) {
	s.mu.Lock()
	in := s.instances[req.Instance]
	s.mu.Unlock()
	if in == nil {
		return nil, fmt.Errorf("unknown instance %d", req.Instance)
	}
	in.mu.Lock()
	for req.Seq != in.next {
		if req.Seq < in.next {
			in.mu.Unlock()
			return nil, fmt.Errorf("request %d arrived after request %d", req.Seq, in.next)
		}
		in.turn.Wait()
	}
	defer func() {
		in.next++
		in.turn.Broadcast()
		in.mu.Unlock()
	}()
	b, err := protocol.NewBatch(req, in.width)
	if err != nil {
		return nil, err
	}
	// Cut the batch into one part per worker (small batches go whole).
	nw := len(in.workers)
	if len(b.Lengths) < 8*nw {
		nw = 1
	}
	parts := make([]*protocol.ExtractResponse, nw)
	errs := make([]error, nw)
	var wg sync.WaitGroup
	for w := 0; w < nw; w++ {
		lo, hi := w*len(b.Lengths)/nw, (w+1)*len(b.Lengths)/nw
		wg.Add(1)
		go func() {
			defer wg.Done()
			rb := protocol.NewResponseBuilderSized(int(in.attrsPer*float64(hi-lo)*1.1), int(in.keyBytesPer*float64(hi-lo)*1.1))
			parts[w], errs[w] = extractPart(in.workers[w], rb, b, lo, hi, in.width)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	resp := protocol.Concat(parts)
	if n := len(b.Lengths); n > 0 {
		in.attrsPer, in.keyBytesPer = float64(len(resp.Tokens))/float64(n), float64(len(resp.Keys))/float64(n)
	}
	return resp, nil
}

func extractPart(p Plugin, rb *protocol.ResponseBuilder, b *protocol.Batch, lo, hi, width int) (*protocol.ExtractResponse, error) {
	f := &Features{b: rb}
	for k := lo; k < hi; k++ {
		n := b.Lengths[k]
		sent := &Sentence{values: b.Sentence(k), width: width}
		if width == 0 {
			sent.values, sent.width = make([]string, n), 1
		}
		if err := p.Extract(sent, f); err != nil {
			return nil, fmt.Errorf("sentence %d of the batch: %w", k, err)
		}
		rb.EndSentence(int(n))
	}
	return rb.Response(), nil
}

// Schema derives the config fields of a config struct pointer.
func Schema(cfg any) ([]protocol.Field, error) {
	if cfg == nil {
		return nil, nil
	}
	t := reflect.TypeOf(cfg)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("Config() must return a pointer to a struct, not %s", t)
	}
	t = t.Elem()
	var out []protocol.Field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		flags := strings.Split(sf.Tag.Get("trellis"), ",")
		has := func(f string) bool {
			for _, x := range flags {
				if strings.TrimSpace(x) == f {
					return true
				}
			}
			return false
		}
		base := ""
		elem := sf.Type
		wrap := "%s"
		switch sf.Type.Kind() {
		case reflect.Slice:
			elem, wrap = sf.Type.Elem(), "list(%s)"
		case reflect.Map:
			if sf.Type.Key().Kind() != reflect.String {
				return nil, fmt.Errorf("config field %s: map keys must be strings", sf.Name)
			}
			elem, wrap = sf.Type.Elem(), "map(%s)"
		}
		switch elem.Kind() {
		case reflect.String:
			base = "string"
			if has("path") {
				base = "path"
			}
		case reflect.Float64, reflect.Float32, reflect.Int, reflect.Int64, reflect.Int32:
			base = "number"
		case reflect.Bool:
			if wrap != "%s" {
				return nil, fmt.Errorf("config field %s: lists and maps of bool are not supported", sf.Name)
			}
			base = "bool"
		default:
			return nil, fmt.Errorf("config field %s: type %s is not supported", sf.Name, sf.Type)
		}
		out = append(out, protocol.Field{Name: name, Type: fmt.Sprintf(wrap, base), Required: has("required"), Description: sf.Tag.Get("help")})
	}
	return out, nil
}
