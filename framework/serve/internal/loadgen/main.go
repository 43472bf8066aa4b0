// Command loadgen measures `trellis serve`: it serves one model in process
// on a loopback port (127.0.0.1, ephemeral; nothing else is reachable from
// it), sends it one sentence per request from 1, 8 and 64 concurrent
// clients over HTTP, checks every answer against direct tagging of the
// same sentence, and prints throughput and latency percentiles as a
// Markdown table. Every level is bounded in requests and in time.
//
//	go run ./framework/serve/internal/loadgen --model M --data FILE [--clients 1,8,64]
//	    [--requests 2000] [--max-time 60s] [--concurrency N]
//
// The clients and the service share the machine's cores; the figures are
// the service's throughput with its clients beside it.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/plugin"
	"github.com/trellis-nlp/trellis/framework/serve"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// Bounds no flag can lift.
const (
	maxRequests = 100_000
	maxTime     = 10 * time.Minute
	maxClients  = 256
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

type config struct {
	model, data string
	clients     []int
	requests    int
	maxTime     time.Duration
	concurrency int
}

func parseFlags() (config, error) {
	var c config
	clients := flag.String("clients", "1,8,64", "concurrent clients, one level per comma-separated value")
	flag.StringVar(&c.model, "model", "", "model file")
	flag.StringVar(&c.data, "data", "", "sentences to send, in the model's format (their labels are ignored)")
	flag.IntVar(&c.requests, "requests", 2000, "requests per level (at most 100000)")
	flag.DurationVar(&c.maxTime, "max-time", 60*time.Second, "time limit per level (at most 10m)")
	flag.IntVar(&c.concurrency, "concurrency", runtime.GOMAXPROCS(0), "the service's taggers per model")
	flag.Parse()
	if c.model == "" || c.data == "" {
		return c, errors.New("--model and --data are required")
	}
	if c.requests < 1 || c.requests > maxRequests || c.maxTime <= 0 || c.maxTime > maxTime {
		return c, fmt.Errorf("--requests must be in 1..%d and --max-time in (0, %s]", maxRequests, maxTime)
	}
	for _, f := range strings.Split(*clients, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > maxClients {
			return c, fmt.Errorf("--clients: %q is not a number in 1..%d", f, maxClients)
		}
		c.clients = append(c.clients, n)
	}
	return c, nil
}

// job is one request and the labels direct tagging gives its sentence.
type job struct {
	body   []byte
	want   []string
	tokens int
}

func run() error {
	cfg, err := parseFlags()
	if err != nil {
		return err
	}
	jobs, err := prepare(cfg)
	if err != nil {
		return err
	}
	srv, err := serve.New(serve.Options{
		Models: []serve.ModelFile{{Name: "m", Path: cfg.model}}, Concurrency: cfg.concurrency,
		Log: zerolog.Nop(), Templates: templates, PluginHost: host,
	})
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	url := "http://" + ln.Addr().String() + "/v1/models/m/tag"

	fmt.Printf("model %s, %d sentences from %s, one sentence per request; service: %d taggers, GOMAXPROCS %d\n\n",
		cfg.model, len(jobs), cfg.data, cfg.concurrency, runtime.GOMAXPROCS(0))
	fmt.Println("| clients | requests | wrong | requests/s | tokens/s | p50 ms | p99 ms |")
	fmt.Println("|---:|---:|---:|---:|---:|---:|---:|")
	var failed error
	for _, n := range cfg.clients {
		// A short warm-up per level: connections opened, buffers grown.
		if _, err := level(url, jobs, n, min(cfg.requests, 10*n), cfg.maxTime); err != nil {
			failed = err
			break
		}
		res, err := level(url, jobs, n, cfg.requests, cfg.maxTime)
		if err != nil {
			failed = err
			break
		}
		fmt.Println(res.row(n))
		if res.wrong > 0 {
			failed = fmt.Errorf("%d answers differ from direct tagging", res.wrong)
		}
	}
	stop()
	if err := <-served; err != nil && failed == nil {
		failed = err
	}
	return failed
}

func templates(h *plugin.Host) *feature.Registry {
	t, _ := builtin.Registries()
	h.Register(t)
	return t
}

func host() *plugin.Host { return plugin.NewHost(plugin.Options{Log: zerolog.Nop()}) }

// prepare reads the sentences, tags them directly (a tagger of its own on
// the model file, as `trellis tag` does) and builds one request each.
func prepare(cfg config) ([]job, error) {
	m, err := model.Load(cfg.model)
	if err != nil {
		return nil, err
	}
	h := host()
	defer h.Close()
	reg := templates(h)
	tg, err := tagger.New(m, reg, tagger.Options{})
	if err != nil {
		return nil, err
	}
	defer tg.Close()
	in, err := tg.TokenInput()
	if err != nil {
		return nil, err
	}
	sents, err := readAll(tg.Format, cfg.data)
	if err != nil {
		return nil, err
	}
	labels, err := tg.Tag(sents)
	if err != nil {
		return nil, err
	}
	jobs := make([]job, len(sents))
	for k, s := range sents {
		req := serve.TagRequest{Sentences: [][]string{column(s, in.Word)}}
		for j, name := range in.ExtraNames {
			if req.Columns == nil {
				req.Columns = map[string][][]string{}
			}
			req.Columns[name] = [][]string{column(s, in.Extra[j])}
		}
		body, err := json.Marshal(req)
		if err != nil {
			return nil, err
		}
		jobs[k] = job{body: body, want: labels[k], tokens: s.Len()}
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%s: no sentences", cfg.data)
	}
	return jobs, nil
}

func readAll(f corpus.Format, path string) ([]*corpus.Sentence, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	r := f.NewReader(file, path, corpus.ReadOptions{LabelOptional: true})
	var out []*corpus.Sentence
	for {
		s, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
}

func column(s *corpus.Sentence, c int) []string {
	out := make([]string, s.Len())
	for i := range out {
		out[i] = s.Tokens[i][c]
	}
	return out
}

// result is one level's measurements.
type result struct {
	requests, wrong, tokens int
	elapsed                 time.Duration
	latencies               []time.Duration
}

func (r result) row(clients int) string {
	slices.Sort(r.latencies)
	pct := func(p float64) float64 {
		i := min(len(r.latencies)-1, int(p*float64(len(r.latencies))))
		return float64(r.latencies[i].Microseconds()) / 1000
	}
	sec := r.elapsed.Seconds()
	return fmt.Sprintf("| %d | %d | %d | %.0f | %.0f | %.2f | %.2f |", clients, r.requests, r.wrong,
		float64(r.requests)/sec, float64(r.tokens)/sec, pct(0.50), pct(0.99))
}

// level sends up to total requests from n clients, each taking the next
// sentence in turn, until all are sent or maxTime has passed.
func level(url string, jobs []job, n, total int, maxTime time.Duration) (result, error) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, DisableCompression: true}, Timeout: time.Minute}
	defer client.CloseIdleConnections()
	var next atomic.Int64
	deadline := time.Now().Add(maxTime)
	per := make([]result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := time.Now()
	for c := range n {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= total || time.Now().After(deadline) {
					return
				}
				j := jobs[i%len(jobs)]
				t0 := time.Now()
				ok, err := send(client, url, j)
				if err != nil {
					errs[c] = err
					return
				}
				per[c].latencies = append(per[c].latencies, time.Since(t0))
				per[c].requests++
				per[c].tokens += j.tokens
				if !ok {
					per[c].wrong++
				}
			}
		})
	}
	wg.Wait()
	all := result{elapsed: time.Since(start)}
	for c := range n {
		if errs[c] != nil {
			return all, errs[c]
		}
		all.requests += per[c].requests
		all.wrong += per[c].wrong
		all.tokens += per[c].tokens
		all.latencies = append(all.latencies, per[c].latencies...)
	}
	return all, nil
}

// send posts one request and reports whether its labels are j.want.
func send(client *http.Client, url string, j job) (bool, error) {
	resp, err := client.Post(url, "application/json", bytes.NewReader(j.body))
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return false, err
	}
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	var got serve.TagResponse
	if err := json.Unmarshal(b, &got); err != nil {
		return false, err
	}
	return len(got.Labels) == 1 && slices.Equal(got.Labels[0], j.want), nil
}
