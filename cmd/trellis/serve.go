package main

import (
	"context"
	"net"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/plugin"
	"github.com/trellis-nlp/trellis/framework/serve"
)

// serveCommand is the HTTP/JSON tagging service.
func serveCommand() command {
	return command{
		Name: "serve",
		Usage: []string{"--model NAME=PATH... [--addr 127.0.0.1:8080] [--concurrency N] [--max-body BYTES] [--max-tokens N] [--max-nbest K]",
			"--model NAME=PATH... [--read-timeout D] [--write-timeout D] [--idle-timeout D] [--drain-timeout D]"},
		Summary: "tag over HTTP/JSON (framework/serve)",
		Description: `An HTTP/JSON tagging service: POST /v1/models/NAME/tag with {"sentences": [["The","cat"]], "marginals": false, "nbest": 1}, ` +
			`or with {"text": "raw text"}, which --tokenizer splits (a segmentation model reads characters) and whose answer adds "sentences" ` +
			"as `trellis tag --input text --output json` prints them (tokens with offsets, spans); " +
			"GET /v1/models lists the models with their provenance; GET /healthz; GET /metrics (Prometheus). " +
			"Models load once; requests are tagged in parallel by --concurrency taggers per model. " +
			"SIGTERM or Ctrl-C stops it after the requests in flight are answered (exit 0).",
		Run: (*app).cmdServe,
	}
}

func (a *app) cmdServe(ctx context.Context, args []string) error {
	fs := newFlagSet("serve", a.stderr)
	var models listFlag
	fs.Var(&models, "model", "a model to serve, NAME=PATH (or PATH: named after the file); repeatable")
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (host:port; port 0 picks a free one)")
	concurrency := fs.Int("concurrency", runtime.GOMAXPROCS(0), "taggers per model: requests tagged in parallel")
	maxBody := fs.Int64("max-body", serve.DefaultMaxBody, "largest request body in bytes (413 beyond)")
	maxTokens := fs.Int("max-tokens", serve.DefaultMaxTokens, "most tokens in one request (413 beyond)")
	maxNBest := fs.Int("max-nbest", serve.DefaultMaxNBest, "largest \"nbest\" a request may ask for (400 beyond)")
	readTimeout := fs.Duration("read-timeout", 30*time.Second, "time to read a request")
	writeTimeout := fs.Duration("write-timeout", 2*time.Minute, "time from a request's headers to the end of its answer")
	idleTimeout := fs.Duration("idle-timeout", 2*time.Minute, "how long an idle keep-alive connection stays open")
	drainTimeout := fs.Duration("drain-timeout", 30*time.Second, "on SIGTERM, how long to wait for the requests in flight")
	tokName := fs.String("tokenizer", defaultTokenizer, "what splits the \"text\" of a request: a tokenizer `MODEL` file or shipped model name, or rules or lines")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("serve takes no arguments, only flags (got %q)", pos[0])
	}
	if len(models) == 0 {
		return usagef("serve needs at least one --model NAME=PATH")
	}
	files, err := modelFiles(models)
	if err != nil {
		return err
	}
	if *concurrency < 1 || *maxBody < 1 || *maxTokens < 1 || *maxNBest < 1 {
		return usagef("--concurrency, --max-body, --max-tokens and --max-nbest must be at least 1")
	}
	for _, d := range []*time.Duration{readTimeout, writeTimeout, idleTimeout, drainTimeout} {
		if *d <= 0 {
			return usagef("timeouts must be positive")
		}
	}
	tok, closeTok, err := a.tokenizer(ctx, *tokName)
	if err != nil {
		return err
	}
	defer closeTok()
	srv, err := serve.New(serve.Options{
		Models: files, Concurrency: *concurrency, MaxBody: *maxBody, MaxTokens: *maxTokens, MaxNBest: *maxNBest,
		ReadTimeout: *readTimeout, WriteTimeout: *writeTimeout, IdleTimeout: *idleTimeout, DrainTimeout: *drainTimeout,
		Log: a.log,
		Templates: func(h *plugin.Host) *feature.Registry {
			templates, _ := builtin.Registries()
			h.Register(templates)
			return templates
		},
		// Not a.newPluginHost: its plugins die with ctx (the signal),
		// and a drain still needs them. The server closes its hosts.
		PluginHost: func() *plugin.Host { return plugin.NewHost(a.pluginOptions()) },
		Tokenizer:  tok,
	})
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
		a.log.Warn().Str("addr", ln.Addr().String()).Msg("listening beyond loopback: anyone who can reach this address can use the service")
	}
	return srv.Serve(ctx, ln)
}

// modelFiles parses --model NAME=PATH (or PATH, named after the file
// without its extension). A name serve.New would refuse is a usage error
// here: it is the flag that is wrong.
func modelFiles(args []string) ([]serve.ModelFile, error) {
	var out []serve.ModelFile
	seen := map[string]bool{}
	for _, arg := range args {
		name, path, ok := strings.Cut(arg, "=")
		if !ok {
			path = arg
			name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		}
		if name == "" || path == "" {
			return nil, usagef("--model %q: want NAME=PATH", arg)
		}
		if err := serve.CheckName(name); err != nil {
			return nil, usagef("--model %q: %v", arg, err)
		}
		if seen[name] {
			return nil, usagef("--model %q: model name %q given twice", arg, name)
		}
		seen[name] = true
		out = append(out, serve.ModelFile{Name: name, Path: path})
	}
	return out, nil
}
