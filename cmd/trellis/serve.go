package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
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
		Usage: []string{"--model NAME=PATH[+PATH...]... [--addr 127.0.0.1:8080] [--concurrency N] [--max-body BYTES] [--max-tokens N] [--max-nbest K]",
			"--model NAME=PATH... [--read-timeout D] [--write-timeout D] [--idle-timeout D] [--drain-timeout D]"},
		Summary: "tag over HTTP/JSON (framework/serve)",
		Description: `An HTTP/JSON tagging service: POST /v1/models/NAME/tag with {"sentences": [["The","cat"]], "marginals": false, "nbest": 1}, ` +
			`or with {"text": "raw text"}, which --tokenizer splits (a segmentation model reads characters) and whose answer adds "sentences" ` +
			"as `trellis tag --input text --output json` prints them (tokens with offsets, spans); " +
			"--model NAME=A+B serves a pipeline: each model reads the labels of the ones before it as the columns they name " +
			"(as `trellis tag --model A --model B`; a column no earlier model labels is refused at start), " +
			`the answer's "labels" are the last model's and "tags" every model's by column; marginals and n-best are the last model's. ` +
			"GET /v1/models lists the models (a pipeline's with each of its models) with their provenance; GET /healthz; GET /metrics (Prometheus). " +
			"Models load once; requests are tagged in parallel by --concurrency taggers per model. " +
			"SIGTERM or Ctrl-C stops it after the requests in flight are answered (exit 0).",
		Run: (*app).cmdServe,
	}
}

func (a *app) cmdServe(ctx context.Context, args []string) error {
	fs := newFlagSet("serve", a.stderr)
	var models listFlag
	fs.Var(&models, "model", "a model to serve, NAME=PATH (or PATH: named after the file), or a pipeline NAME=PATH+PATH...; a PATH may be a shipped model's name; repeatable")
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
// without its extension), and NAME=A+B for a pipeline, which needs its
// NAME. A name serve.New would refuse is a usage error here: it is the
// flag that is wrong.
func modelFiles(args []string) ([]serve.ModelFile, error) {
	var out []serve.ModelFile
	seen := map[string]bool{}
	for _, arg := range args {
		name, models, ok := strings.Cut(arg, "=")
		if !ok {
			models = arg
			name = strings.TrimSuffix(filepath.Base(models), filepath.Ext(models))
		}
		paths := strings.Split(models, "+")
		if _, err := os.Stat(models); err == nil {
			paths = []string{models} // a file whose name holds "+" is one model
		}
		if name == "" || slices.Contains(paths, "") {
			return nil, usagef("--model %q: want NAME=PATH, or NAME=PATH+PATH... for a pipeline", arg)
		}
		if len(paths) > 1 && !ok {
			return nil, usagef("--model %q: a pipeline needs a name: NAME=%s", arg, arg)
		}
		if err := serve.CheckName(name); err != nil {
			return nil, usagef("--model %q: %v", arg, err)
		}
		if seen[name] {
			return nil, usagef("--model %q: model name %q given twice", arg, name)
		}
		seen[name] = true
		mf := serve.ModelFile{Name: name, Path: paths[0]}
		if len(paths) > 1 {
			mf.Then = paths[1:]
		}
		out = append(out, mf)
	}
	return out, nil
}
