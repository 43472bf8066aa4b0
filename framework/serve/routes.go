package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/trellis-nlp/trellis/framework/model"
)

// routes registers the handlers. Each route accepts any method and checks
// it itself, so that a wrong method gets a JSON 405 like every other
// error; "/" catches the rest with a JSON 404.
func (s *Server) routes() http.Handler {
	get := []string{http.MethodGet, http.MethodHead}
	mux := http.NewServeMux()
	mux.Handle("/v1/models/{name}/tag", s.route("tag", []string{http.MethodPost}, s.handleTag))
	mux.Handle("/v1/models", s.route("models", get, s.handleModels))
	mux.Handle("/healthz", s.route("healthz", get, s.handleHealth))
	mux.Handle("/metrics", s.route("metrics", get, func(w *recorder, r *http.Request) { s.metrics.handler.ServeHTTP(w, r) }))
	mux.Handle("/", s.route("other", nil, func(w *recorder, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no route %s %s (POST /v1/models/{name}/tag, GET /v1/models, /healthz, /metrics)", r.Method, r.URL.Path))
	}))
	return mux
}

// recorder keeps what the access log and the metrics report of an answer.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int
	// set by the tag handler
	model             string
	sentences, tokens int
}

func (r *recorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	n, err := r.ResponseWriter.Write(p)
	r.bytes += n
	return n, err
}

// route wraps a handler with the method check, the drain check, the
// access log and the metrics.
func (s *Server) route(name string, methods []string, h func(*recorder, *http.Request)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		// Scrapes of /metrics are not counted in flight (the gauge would
		// count the scrape reading it, and a scrape just answered whose
		// handler has not returned yet), and whether to refuse a request
		// is decided before it counts: a request counted is one the drain
		// waits for and answers. TestServeEndToEnd relies on both.
		scrape := name == "metrics"
		refuse := s.draining.Load() && !scrape
		if !scrape {
			s.metrics.active.Add(1)
			s.metrics.inFlight.Inc()
			// Deferred: net/http recovers a handler's panic, and a count
			// left at +1 would hold the drain until its timeout.
			defer func() {
				s.metrics.inFlight.Dec()
				s.metrics.active.Add(-1)
			}()
		}
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		switch {
		case methods != nil && !slices.Contains(methods, r.Method):
			rec.Header().Set("Allow", strings.Join(methods, ", "))
			writeError(rec, http.StatusMethodNotAllowed, fmt.Sprintf("%s takes %s, not %s", r.URL.Path, strings.Join(methods, " or "), r.Method))
		case refuse:
			rec.Header().Set("Connection", "close")
			writeError(rec, http.StatusServiceUnavailable, "the service is shutting down")
		default:
			h(rec, r)
		}
		elapsed := time.Since(start)
		code := strconv.Itoa(rec.status)
		s.metrics.requests.WithLabelValues(name, code).Inc()
		if rec.status >= 400 {
			s.metrics.errors.WithLabelValues(name, code).Inc()
		}
		s.metrics.latency.WithLabelValues(name).Observe(elapsed.Seconds())
		ev := s.opts.Log.Info().Str("method", r.Method).Str("path", r.URL.Path).Int("status", rec.status).
			Int("bytes", rec.bytes).Dur("duration", elapsed).Str("remote", r.RemoteAddr)
		if rec.model != "" {
			ev = ev.Str("model", rec.model).Int("sentences", rec.sentences).Int("tokens", rec.tokens)
		}
		ev.Msg("request")
	})
}

// errorBody is every error's answer.
type errorBody struct {
	Error  string `json:"error"`
	Status int    `json:"status"`
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errorBody{Error: msg, Status: status})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b, _ = json.Marshal(errorBody{Error: "encoding the answer: " + err.Error(), Status: status})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

func (s *Server) handleHealth(w *recorder, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "models": len(s.names)})
}

// modelInfo is what GET /v1/models tells of a model: what it predicts,
// what it reads, and where it came from (the model file's header). A
// pipeline's entry says what a request gives and gets: the first model's
// format and word column, no extra columns, the last model's labels and
// scheme; its Stages describe each model, as one model's entry does, with
// the column it labels (the key of its labels in "tags").
type modelInfo struct {
	Name         string            `json:"name"`
	SHA256       string            `json:"sha256,omitempty"`
	Labels       []string          `json:"labels"`
	LabelColumn  string            `json:"label_column,omitempty"`
	Scheme       string            `json:"scheme"`
	Constrained  bool              `json:"constrained"`
	Format       string            `json:"format"`
	WordColumn   string            `json:"word_column"`
	ExtraColumns []string          `json:"extra_columns"`
	Templates    []templateInfo    `json:"templates,omitempty"`
	Learner      *learnerInfo      `json:"learner,omitempty"`
	Provenance   *model.Provenance `json:"provenance,omitempty"`
	Taggers      int               `json:"taggers,omitempty"`
	Stages       []modelInfo       `json:"stages,omitempty"`
}

type templateInfo struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

type learnerInfo struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

func (s *Server) handleModels(w *recorder, _ *http.Request) {
	out := struct {
		Models []modelInfo `json:"models"`
	}{Models: []modelInfo{}}
	for _, name := range s.names {
		sm := s.models[name]
		var info modelInfo
		if !sm.pipeline() {
			info = fileInfo(sm.files[0])
		} else {
			first, last := sm.files[0], sm.files[len(sm.files)-1]
			info = modelInfo{Labels: last.model.Labels, Scheme: last.model.Scheme, Constrained: last.model.Constrained,
				Format: first.model.Format.Name, WordColumn: first.input.Columns[first.input.Word], ExtraColumns: []string{}}
			for k, f := range sm.files {
				stage := fileInfo(f)
				stage.LabelColumn = sm.columns[k]
				info.Stages = append(info.Stages, stage)
			}
		}
		info.Name, info.Taggers = name, s.opts.Concurrency
		out.Models = append(out.Models, info)
	}
	writeJSON(w, http.StatusOK, out)
}

// fileInfo describes one model file, named by its path.
func fileInfo(f modelFile) modelInfo {
	m := f.model
	info := modelInfo{
		Name: f.path, SHA256: f.sha256, Labels: m.Labels, Scheme: m.Scheme, Constrained: m.Constrained,
		Format: m.Format.Name, WordColumn: f.input.Columns[f.input.Word], ExtraColumns: f.input.ExtraNames,
		Learner: &learnerInfo{Name: m.Learner.Name, Type: m.Learner.Type}, Provenance: &m.Provenance,
	}
	if info.ExtraColumns == nil {
		info.ExtraColumns = []string{}
	}
	for _, t := range m.Templates {
		info.Templates = append(info.Templates, templateInfo{Name: t.Name, Type: t.Type})
	}
	return info
}

// statusError is a request error with its HTTP status.
type statusError struct {
	status int
	msg    string
}

func (e *statusError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &statusError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// statusOf is err's HTTP status: its own, or 500.
func statusOf(err error) int {
	var se *statusError
	if errors.As(err, &se) {
		return se.status
	}
	return http.StatusInternalServerError
}
