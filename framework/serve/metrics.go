package serve

import (
	"net/http"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the service's Prometheus series, in a registry of its own
// (no global state: two servers in one process count apart). Labels are
// bounded: route is one of the fixed route names, model one of the
// models served, code an HTTP status.
type metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	errors    *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	tokens    *prometheus.CounterVec
	sentences *prometheus.CounterVec
	restarts  *prometheus.CounterVec
	inFlight  prometheus.Gauge
	active    atomic.Int64 // what inFlight shows, readable
	handler   http.Handler
}

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "trellis_serve_requests_total", Help: "HTTP requests answered, by route and status code.",
	}, []string{"route", "code"})
	m.errors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "trellis_serve_errors_total", Help: "HTTP requests answered with an error status (4xx, 5xx), by route and status code.",
	}, []string{"route", "code"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "trellis_serve_request_duration_seconds", Help: "Time from a request's arrival to its answer, by route.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16), // 0.5 ms .. 16 s
	}, []string{"route"})
	m.tokens = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "trellis_serve_tokens_tagged_total", Help: "Tokens tagged, by model.",
	}, []string{"model"})
	m.sentences = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "trellis_serve_sentences_tagged_total", Help: "Sentences tagged, by model.",
	}, []string{"model"})
	m.restarts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "trellis_serve_plugin_restarts_total", Help: "Times a model's plugins were restarted after one died, by model.",
	}, []string{"model"})
	m.inFlight = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "trellis_serve_requests_in_flight", Help: "Requests being answered (scrapes of /metrics not counted).",
	})
	m.reg.MustRegister(m.requests, m.errors, m.latency, m.tokens, m.sentences, m.restarts, m.inFlight,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
	return m
}

// inFlightNow is the number of requests being answered.
func (m *metrics) inFlightNow() int64 { return m.active.Load() }
