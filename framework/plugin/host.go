// Package plugin runs feature extractors that live in other processes:
// binaries built with plugins/sdk, started through hashicorp/go-plugin
// over gRPC (AutoMTLS, a clean environment, a versioned handshake).
//
// A Host owns the plugin processes of one invocation of trellis. Register
// adds the "plugin" template type to a feature registry; every plugin
// block of a spec and every plugin template of a model is then a template
// like the builtins. Each binary is started once, on first use, and shared
// by every template using it; Close kills them all.
package plugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	goplugin "github.com/hashicorp/go-plugin"
	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/fileio"
	"github.com/trellis-nlp/trellis/plugins/protocol"
)

// Options configure a Host.
type Options struct {
	// Log receives go-plugin's and the plugins' log lines.
	Log zerolog.Logger
	// Path lists folders searched for a plugin binary named without a
	// folder (TRELLIS_PLUGIN_PATH in the command line).
	Path []string
	// StartTimeout bounds the start and handshake (default 20s).
	StartTimeout time.Duration
	// CallTimeout bounds every call to a plugin (default 2m).
	CallTimeout time.Duration
	// AllowVersionChange lets a model run with a plugin whose version
	// differs from the one it was trained with.
	AllowVersionChange bool
}

// Host starts, shares and stops plugin processes.
type Host struct {
	opts   Options
	mu     sync.Mutex
	procs  map[string]*process
	closed bool
	sums   map[fileID]string // checksums already computed
}

// fileID identifies a file's contents cheaply: a binary replaced or
// rebuilt gets another modification time or size, and is hashed again.
type fileID struct {
	path  string
	size  int64
	mtime int64
}

// checksum returns the SHA-256 of the binary at path, hashing each
// version of a file once per host.
func (h *Host) checksum(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	id := fileID{path, st.Size(), st.ModTime().UnixNano()}
	h.mu.Lock()
	sum, ok := h.sums[id]
	h.mu.Unlock()
	if ok {
		return sum, nil
	}
	if sum, err = fileio.SHA256File(path); err != nil {
		return "", err
	}
	h.mu.Lock()
	h.sums[id] = sum
	h.mu.Unlock()
	return sum, nil
}

// NewHost returns a host; call Close when done, on every path.
func NewHost(opts Options) *Host {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 20 * time.Second
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = 2 * time.Minute
	}
	return &Host{opts: opts, procs: map[string]*process{}, sums: map[fileID]string{}}
}

// TemplateType is the block type of plugin templates.
const TemplateType = "plugin"

// Register adds the "plugin" template type to r.
func (h *Host) Register(r *feature.Registry) {
	r.RegisterTemplate(TemplateType, func() feature.Template { return &Template{host: h} })
}

// KillOnDone kills every plugin when ctx is done (Ctrl-C), without waiting
// for a call in flight to return.
func (h *Host) KillOnDone(ctx context.Context) {
	go func() {
		<-ctx.Done()
		h.Close()
	}()
}

// Close kills every plugin process. It is safe to call more than once.
func (h *Host) Close() error {
	h.mu.Lock()
	procs := h.procs
	h.procs = map[string]*process{}
	h.closed = true
	h.mu.Unlock()
	for _, p := range procs {
		p.kill()
	}
	return nil
}

// Error is a plugin failure: it names the plugin block, the binary and
// what happened.
type Error struct {
	Name string // the template (block) name
	Path string // the binary
	Err  error
}

func (e *Error) Error() string {
	return fmt.Sprintf("plugin %q (%s): %v", e.Name, e.Path, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// ErrChecksum is wrapped by checksum mismatch errors.
var ErrChecksum = errors.New("checksum mismatch")

// Resolve finds a plugin binary: a name with a folder is relative to dir
// (the spec's folder); a bare name is looked up in dir, then on the plugin
// path. It checks that the file is an executable regular file.
func (h *Host) Resolve(binary, dir string) (string, error) {
	var candidates []string
	if filepath.IsAbs(binary) {
		candidates = []string{binary}
	} else if strings.ContainsRune(binary, '/') || strings.ContainsRune(binary, filepath.Separator) {
		candidates = []string{filepath.Join(dir, binary)}
	} else {
		for _, d := range h.opts.Path {
			candidates = append(candidates, filepath.Join(d, binary))
		}
		if dir != "" {
			candidates = append(candidates, filepath.Join(dir, binary))
		}
	}
	var firstErr error
	for _, c := range candidates {
		abs, err := filepath.Abs(c)
		if err != nil {
			return "", err
		}
		err = checkExecutable(abs)
		if err == nil {
			return abs, nil
		}
		if firstErr == nil || !errors.Is(err, os.ErrNotExist) {
			firstErr = err
		}
	}
	if len(candidates) == 0 {
		return "", fmt.Errorf("binary %q not found: no plugin path is set (TRELLIS_PLUGIN_PATH) and it names no folder", binary)
	}
	if errors.Is(firstErr, os.ErrNotExist) {
		return "", fmt.Errorf("binary %q not found (looked for %s); build it (go build -o bin/plugins/ ./plugins/... builds the example plugins)", binary, strings.Join(candidates, ", "))
	}
	return "", firstErr
}

func checkExecutable(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s: %w", path, os.ErrNotExist)
		}
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	if st.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not executable (chmod +x it)", path)
	}
	return nil
}

// process is one running plugin binary.
type process struct {
	path, sha string
	client    *goplugin.Client
	rpc       *protocol.Client
	desc      *protocol.DescribeResponse
	stderr    *tail
	callTO    time.Duration

	mu        sync.Mutex
	dead      error // set once the process is known to be unusable
	instances map[string]*instance
}

// instance is a configured plugin instance, shared by every template that
// gives the same config for the same corpus columns (a run compiles each
// template when decoding the spec, for training, and for tagging: one
// instance serves all three).
type instance struct {
	resp *protocol.ConfigureResponse
	mu   sync.Mutex
	seq  uint64
}

func (in *instance) id() uint32 { return in.resp.Instance }

// nextSeq numbers the instance's requests, which the plugin answers in order.
func (in *instance) nextSeq() uint64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.seq++
	return in.seq - 1
}

// configure returns the instance for settings and corpus columns,
// configuring it on first use.
func (p *process) configure(settings []byte, corpusCols []string) (*instance, error) {
	key := string(settings) + "\x00" + strings.Join(corpusCols, "\x00")
	p.mu.Lock()
	in, ok := p.instances[key]
	p.mu.Unlock()
	if ok {
		return in, nil
	}
	var resp *protocol.ConfigureResponse
	err := p.call("configure", func(ctx context.Context) error {
		var err error
		resp, err = p.rpc.Configure(ctx, &protocol.ConfigureRequest{Config: settings, CorpusColumns: corpusCols})
		return err
	})
	if err != nil {
		return nil, err
	}
	in = &instance{resp: resp}
	p.mu.Lock()
	if p.instances == nil {
		p.instances = map[string]*instance{}
	}
	p.instances[key] = in
	p.mu.Unlock()
	return in, nil
}

// start returns the running process for a binary, starting it if needed.
// sha is the binary's checksum, computed just before; wantSHA, when set,
// is the spec's or model's pin and is checked before anything runs.
func (h *Host) start(name, path, wantSHA string) (*process, error) {
	sha, err := h.checksum(path)
	if err != nil {
		return nil, &Error{Name: name, Path: path, Err: err}
	}
	if wantSHA != "" && !strings.EqualFold(wantSHA, sha) {
		return nil, &Error{Name: name, Path: path, Err: fmt.Errorf("%w: want %s, got %s; refusing to run it", ErrChecksum, strings.ToLower(wantSHA), sha)}
	}
	key := path + "\x00" + sha
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, &Error{Name: name, Path: path, Err: errors.New("plugins were stopped (interrupted?)")}
	}
	if p, ok := h.procs[key]; ok {
		if err := p.usable(""); err != nil {
			return nil, &Error{Name: name, Path: path, Err: err}
		}
		return p, nil
	}
	p, err := h.launch(path, sha)
	if err != nil {
		return nil, &Error{Name: name, Path: path, Err: err}
	}
	h.procs[key] = p
	return p, nil
}

func (h *Host) launch(path, sha string) (*process, error) {
	log := h.opts.Log.With().Str("plugin", filepath.Base(path)).Logger()
	cmd := exec.Command(path)
	// A clean environment: nothing of the host's (credentials, proxies)
	// reaches the plugin; go-plugin adds its handshake variables.
	cmd.Env = []string{protocol.LogLevelEnv + "=" + hclogLevel(h.opts.Log.GetLevel())}
	cmd.Dir = filepath.Dir(path)
	st := &tail{}
	out := &lineLogger{log: func(s string) { log.Info().Str("stream", "stdout").Msg(s) }}
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  protocol.Handshake,
		VersionedPlugins: protocol.PluginSets(nil),
		Cmd:              cmd,
		SkipHostEnv:      true,
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		AutoMTLS:         true,
		StartTimeout:     h.opts.StartTimeout,
		Logger:           newHCLog(log, ""),
		Stderr:           st,
		SyncStdout:       out,
		SyncStderr:       io.MultiWriter(st, &lineLogger{log: func(s string) { log.Warn().Str("stream", "stderr").Msg(s) }}),
		Managed:          true,
		GRPCDialOptions:  protocol.DialOptions(),
	})
	fail := func(err error) (*process, error) {
		client.Kill()
		if s := st.String(); s != "" {
			err = fmt.Errorf("%w (plugin output: %s)", err, s)
		}
		return nil, err
	}
	cp, err := client.Client()
	if err != nil {
		return fail(fmt.Errorf("start or handshake failed: %w", err))
	}
	raw, err := cp.Dispense(protocol.PluginName)
	if err != nil {
		return fail(fmt.Errorf("handshake: %w", err))
	}
	if v := client.NegotiatedVersion(); v != protocol.Version {
		return fail(fmt.Errorf("protocol version mismatch: the plugin speaks %d, trellis speaks %d", v, protocol.Version))
	}
	rpc, ok := raw.(*protocol.Client)
	if !ok {
		return fail(fmt.Errorf("handshake: dispensed %T, not a protocol client", raw))
	}
	p := &process{path: path, sha: sha, client: client, rpc: rpc, stderr: st, callTO: h.opts.CallTimeout}
	ctx, cancel := context.WithTimeout(context.Background(), h.opts.CallTimeout)
	defer cancel()
	desc, err := p.rpc.Describe(ctx, &protocol.DescribeRequest{})
	if err != nil {
		return fail(p.callError("describe", err))
	}
	if desc.Name == "" || desc.Version == "" {
		return fail(errors.New("the plugin declares no name or version"))
	}
	p.desc = desc
	log.Debug().Str("name", desc.Name).Str("version", desc.Version).Str("sha256", sha).Msg("plugin started")
	return p, nil
}

func hclogLevel(l zerolog.Level) string {
	switch {
	case l <= zerolog.TraceLevel:
		return "trace"
	case l == zerolog.DebugLevel:
		return "debug"
	case l == zerolog.InfoLevel:
		return "info"
	case l == zerolog.WarnLevel:
		return "warn"
	}
	return "error"
}

// usable reports why the process cannot take a call. what names the
// call about to be made ("" when none is): a process that exited on its
// own between two calls crashed during that phase as much as one that
// died inside a call, and says so the same way, whichever the scheduler
// let us notice first.
func (p *process) usable(what string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dead != nil {
		return p.dead
	}
	if p.client.Exited() {
		if what == "" {
			p.dead = p.exitError("exited")
		} else {
			p.dead = p.exitError(fmt.Sprintf("crashed during %s (the process exited)", what))
		}
	}
	return p.dead
}

func (p *process) exitError(what string) error {
	msg := what
	if s := p.stderr.String(); s != "" {
		msg += "; its last output: " + s
	}
	return errors.New(msg)
}

// poison marks the process unusable after it broke the protocol: its key
// numbering can no longer be trusted.
func (p *process) poison(err error) {
	p.mu.Lock()
	if p.dead == nil {
		p.dead = fmt.Errorf("broke the protocol earlier: %w", err)
	}
	p.mu.Unlock()
	p.client.Kill()
}

func (p *process) kill() {
	p.mu.Lock()
	if p.dead == nil {
		p.dead = errors.New("stopped")
	}
	p.mu.Unlock()
	p.client.Kill()
}

// call runs one RPC with the per-call timeout and turns failures into
// what happened to the plugin.
func (p *process) call(what string, f func(ctx context.Context) error) error {
	if err := p.usable(what); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.callTO)
	defer cancel()
	err := f(ctx)
	if err == nil {
		return nil
	}
	err = p.callError(what, err)
	return err
}

func (p *process) callError(what string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "DeadlineExceeded") {
		p.mu.Lock()
		p.dead = fmt.Errorf("hung: no answer to %s within %s; killed it", what, p.callTO)
		p.mu.Unlock()
		p.client.Kill()
		return p.usable(what)
	}
	// A crashed plugin shows as a broken connection; give the process a
	// moment to be reaped so the error says it died.
	for i := 0; i < 50 && !p.client.Exited(); i++ {
		if !strings.Contains(err.Error(), "Unavailable") && !strings.Contains(err.Error(), "EOF") && !strings.Contains(err.Error(), "connection") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if p.client.Exited() {
		p.mu.Lock()
		if p.dead == nil || p.dead.Error() == "stopped" {
			p.dead = p.exitError(fmt.Sprintf("crashed during %s (the process exited)", what))
		}
		d := p.dead
		p.mu.Unlock()
		return d
	}
	return fmt.Errorf("%s: %w", what, err)
}
