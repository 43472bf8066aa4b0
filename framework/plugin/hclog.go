package plugin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/rs/zerolog"
)

// zlog is an hclog.Logger writing into a zerolog.Logger: go-plugin logs
// through it, and so do plugins (their JSON log lines arrive with their
// level and are re-emitted at that level).
type zlog struct {
	z    zerolog.Logger
	name string
	args []any
}

func newHCLog(z zerolog.Logger, name string) hclog.Logger { return &zlog{z: z, name: name} }

func toZerolog(l hclog.Level) zerolog.Level {
	switch l {
	case hclog.Trace:
		return zerolog.TraceLevel
	case hclog.Debug:
		return zerolog.DebugLevel
	case hclog.Info, hclog.NoLevel:
		return zerolog.InfoLevel
	case hclog.Warn:
		return zerolog.WarnLevel
	case hclog.Error:
		return zerolog.ErrorLevel
	}
	return zerolog.Disabled
}

func (l *zlog) Log(level hclog.Level, msg string, args ...any) {
	if l.name == "" && level == hclog.Info {
		// go-plugin's own chatter ("plugin process exited"), not the plugin's.
		level = hclog.Debug
	}
	e := l.z.WithLevel(toZerolog(level))
	if e == nil {
		return
	}
	if l.name != "" {
		e = e.Str("plugin_log", l.name)
	}
	all := append(append([]any{}, l.args...), args...)
	for i := 0; i < len(all); i += 2 {
		k := fmt.Sprint(all[i])
		if k == "timestamp" || k == "@timestamp" || (k == "plugin" && l.name == "") {
			continue
		}
		if i+1 < len(all) {
			e = e.Interface(k, all[i+1])
		} else {
			e = e.Interface("EXTRA_VALUE_AT_END", all[i])
		}
	}
	e.Msg(msg)
}

func (l *zlog) Trace(msg string, args ...any) { l.Log(hclog.Trace, msg, args...) }
func (l *zlog) Debug(msg string, args ...any) { l.Log(hclog.Debug, msg, args...) }
func (l *zlog) Info(msg string, args ...any)  { l.Log(hclog.Info, msg, args...) }
func (l *zlog) Warn(msg string, args ...any)  { l.Log(hclog.Warn, msg, args...) }
func (l *zlog) Error(msg string, args ...any) { l.Log(hclog.Error, msg, args...) }

func (l *zlog) enabled(level zerolog.Level) bool { return l.z.GetLevel() <= level }
func (l *zlog) IsTrace() bool                    { return l.enabled(zerolog.TraceLevel) }
func (l *zlog) IsDebug() bool                    { return l.enabled(zerolog.DebugLevel) }
func (l *zlog) IsInfo() bool                     { return l.enabled(zerolog.InfoLevel) }
func (l *zlog) IsWarn() bool                     { return l.enabled(zerolog.WarnLevel) }
func (l *zlog) IsError() bool                    { return l.enabled(zerolog.ErrorLevel) }
func (l *zlog) ImpliedArgs() []any               { return l.args }

func (l *zlog) With(args ...any) hclog.Logger {
	return &zlog{z: l.z, name: l.name, args: append(append([]any{}, l.args...), args...)}
}

func (l *zlog) Name() string { return l.name }

func (l *zlog) Named(name string) hclog.Logger {
	n := name
	if l.name != "" {
		n = l.name + "." + name
	}
	return &zlog{z: l.z, name: n, args: l.args}
}

func (l *zlog) ResetNamed(name string) hclog.Logger { return &zlog{z: l.z, name: name, args: l.args} }

func (l *zlog) SetLevel(hclog.Level) {}

func (l *zlog) GetLevel() hclog.Level {
	switch lv := l.z.GetLevel(); {
	case lv <= zerolog.TraceLevel:
		return hclog.Trace
	case lv == zerolog.DebugLevel:
		return hclog.Debug
	case lv == zerolog.InfoLevel:
		return hclog.Info
	case lv == zerolog.WarnLevel:
		return hclog.Warn
	case lv == zerolog.ErrorLevel, lv == zerolog.FatalLevel, lv == zerolog.PanicLevel:
		return hclog.Error
	}
	return hclog.Off
}

func (l *zlog) StandardLogger(*hclog.StandardLoggerOptions) *log.Logger {
	return log.New(l.StandardWriter(nil), "", 0)
}

func (l *zlog) StandardWriter(*hclog.StandardLoggerOptions) io.Writer {
	return &lineLogger{log: func(s string) { l.Info(s) }}
}

// lineLogger calls log for every complete line written to it.
type lineLogger struct {
	mu  sync.Mutex
	buf []byte
	log func(string)
}

func (w *lineLogger) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		if line := strings.TrimRight(string(w.buf[:i]), "\r"); line != "" {
			w.log(line)
		}
		w.buf = w.buf[i+1:]
	}
	return len(p), nil
}

// tail keeps the last lines a plugin wrote to stderr, for error messages
// about a plugin that died.
type tail struct {
	mu    sync.Mutex
	lines []string
	part  []byte
	panic string // the first "panic: ..." or "fatal error: ..." line
}

const tailLines = 8

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.part = append(t.part, p...)
	for {
		i := bytes.IndexByte(t.part, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimSpace(string(t.part[:i]))
		var entry struct {
			Level   string `json:"@level"`
			Message string `json:"@message"`
		}
		if strings.HasPrefix(line, "{") && json.Unmarshal([]byte(line), &entry) == nil && entry.Message != "" {
			// hclog's JSON lines: keep what a person would read.
			line = ""
			if entry.Level != "debug" && entry.Level != "trace" {
				line = entry.Level + ": " + entry.Message
			}
		}
		if t.panic == "" && (strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ")) {
			t.panic = line
		}
		if line != "" {
			t.lines = append(t.lines, line)
			if len(t.lines) > tailLines {
				t.lines = t.lines[len(t.lines)-tailLines:]
			}
		}
		t.part = t.part[i+1:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.panic != "" {
		return t.panic // a stack trace's end says little
	}
	return strings.Join(t.lines, " | ")
}
