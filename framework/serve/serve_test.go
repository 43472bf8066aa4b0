package serve

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestErrors sends every kind of bad request and checks the status, that
// the answer is the JSON error body, and what it says.
func TestErrors(t *testing.T) {
	opts := testOptions(ModelFile{Name: "ewt", Path: trainedModel(t, "ewt")}, ModelFile{Name: "xpos", Path: trainedModel(t, "xpos")})
	opts.MaxBody, opts.MaxTokens = 2000, 50
	srv := start(t, opts)
	words := `[["The","cat"]]`
	tests := []struct {
		name, method, path, body string
		status                   int
		want                     string
	}{
		{"unknown model", "POST", "/v1/models/nope/tag", `{"sentences":` + words + `}`, 404, `no model "nope" (this service serves "ewt", "xpos")`},
		{"unknown route", "GET", "/v2/things", "", 404, "no route GET /v2/things"},
		{"tag with GET", "GET", "/v1/models/ewt/tag", "", 405, "takes POST, not GET"},
		{"models with POST", "POST", "/v1/models", "{}", 405, "takes GET or HEAD, not POST"},
		{"healthz with DELETE", "DELETE", "/healthz", "", 405, "not DELETE"},
		{"empty body", "POST", "/v1/models/ewt/tag", "", 400, "the request body is empty"},
		{"malformed JSON", "POST", "/v1/models/ewt/tag", `{"sentences": [["a"]`, 400, "malformed JSON"},
		{"syntax error", "POST", "/v1/models/ewt/tag", `{"sentences": [["a",]]}`, 400, "malformed JSON at byte"},
		{"sentences a string", "POST", "/v1/models/ewt/tag", `{"sentences": "The cat"}`, 400, `"sentences": a JSON string where a list of lists of strings is expected`},
		{"token a number", "POST", "/v1/models/ewt/tag", `{"sentences": [["The", 3]]}`, 400, "a JSON number where a string is expected"},
		{"nbest a string", "POST", "/v1/models/ewt/tag", `{"sentences": ` + words + `, "nbest": "2"}`, 400, `"nbest": a JSON string where an integer is expected`},
		{"unknown field", "POST", "/v1/models/ewt/tag", `{"sentence": ` + words + `}`, 400, `unknown field "sentence"`},
		{"no sentences", "POST", "/v1/models/ewt/tag", `{}`, 400, `"sentences" (a list of sentences, each a list of tokens) or "text" (raw text) is required`},
		{"empty sentence", "POST", "/v1/models/ewt/tag", `{"sentences": [["a"], []]}`, 400, "sentence 1 has no tokens"},
		{"empty token", "POST", "/v1/models/ewt/tag", `{"sentences": [["a"], ["The", ""]]}`, 400, "sentence 1, token 1 is empty"},
		{"two objects", "POST", "/v1/models/ewt/tag", `{"sentences": ` + words + `} {}`, 400, "data after the request's JSON object"},
		{"nbest negative", "POST", "/v1/models/ewt/tag", `{"sentences": ` + words + `, "nbest": -1}`, 400, `"nbest" must be between 1 and 100, got -1`},
		{"nbest too large", "POST", "/v1/models/ewt/tag", `{"sentences": ` + words + `, "nbest": 101}`, 400, `"nbest" must be between 1 and 100`},
		{"nbest over the flag", "POST", "/v1/models/ewt/tag", `{"sentences": ` + words + `, "nbest": 101}`, 400, `got 101 (the service's --max-nbest)`},
		{"body too large", "POST", "/v1/models/ewt/tag", `{"sentences": [["` + strings.Repeat("a", 3000) + `"]]}`, 413, "the request body is over 2000 bytes"},
		{"body too large, chunked", "POST", "/v1/models/ewt/tag", "chunked:" + `{"sentences": [["` + strings.Repeat("a", 3000) + `"]]}`, 413, "the request body is over 2000 bytes"},
		{"too many tokens", "POST", "/v1/models/ewt/tag", `{"sentences": [` + strings.Repeat(`["a","b","c","d","e"],`, 10) + `["f"]]}`, 413, "51 tokens in one request; the limit is 50"},
		{"too many labels", "POST", "/v1/models/ewt/tag", `{"nbest": 3, "sentences": [` + strings.Repeat(`["a","b","c","d","e"],`, 3) + `["f","g"]]}`, 413, "17 tokens × nbest 3 is over the limit of 50 labels"},
		{"missing column", "POST", "/v1/models/xpos/tag", `{"sentences": ` + words + `}`, 400, `model "xpos" reads column "xpos" besides the words`},
		{"ragged column", "POST", "/v1/models/xpos/tag", `{"sentences": ` + words + `, "columns": {"xpos": [["DT"]]}}`, 400, `columns: "xpos" of sentence 0 has 1 values for 2 tokens`},
		{"column sentences", "POST", "/v1/models/xpos/tag", `{"sentences": ` + words + `, "columns": {"xpos": [["DT","NN"],["NN"]]}}`, 400, `columns: "xpos" has 2 sentences, "sentences" has 1`},
		{"unknown column", "POST", "/v1/models/xpos/tag", `{"sentences": ` + words + `, "columns": {"pos": [["DT","NN"]]}}`, 400, `model "xpos" has no column "pos"`},
		{"word column", "POST", "/v1/models/xpos/tag", `{"sentences": ` + words + `, "columns": {"form": [["DT","NN"]]}}`, 400, `"form" is the word column`},
		{"label column", "POST", "/v1/models/xpos/tag", `{"sentences": ` + words + `, "columns": {"upos": [["DET","NOUN"]]}}`, 400, `"upos" is the label column`},
		{"column a string", "POST", "/v1/models/xpos/tag", `{"sentences": ` + words + `, "columns": {"xpos": "DT NN"}}`, 400, `a JSON string where a list of lists of strings is expected`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var body io.Reader = strings.NewReader(tc.body)
			if b, ok := strings.CutPrefix(tc.body, "chunked:"); ok {
				body = io.MultiReader(strings.NewReader(b)) // no length: sent chunked
			}
			req, err := http.NewRequest(tc.method, srv.base+tc.path, body)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			checkError(t, resp, tc.status, tc.want)
			if tc.status == 405 && resp.Header.Get("Allow") == "" {
				t.Errorf("405 without an Allow header")
			}
		})
	}
}

// checkError checks that resp is the JSON error body with status and a
// message containing want.
func checkError(t *testing.T, resp *http.Response, status int, want string) {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d; body %s", resp.StatusCode, status, b)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	var e errorBody
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		t.Fatalf("error body is not {error, status}: %v: %s", err, b)
	}
	if e.Status != status || !strings.Contains(e.Error, want) {
		t.Errorf("error %q (status %d), want one containing %q (status %d)", e.Error, e.Status, want, status)
	}
}

// TestConcurrentMatchesDirectTagging sends 300 requests at once, over two
// models (one reading an extra column), some with marginals and n-best,
// and checks every answer against direct tagging of the same sentences.
func TestConcurrentMatchesDirectTagging(t *testing.T) {
	srv := start(t, testOptions(ModelFile{Name: "ewt", Path: trainedModel(t, "ewt")}, ModelFile{Name: "xpos", Path: trainedModel(t, "xpos")}))
	refs := map[string]*reference{"ewt": newReference(t, trainedModel(t, "ewt")), "xpos": newReference(t, trainedModel(t, "xpos"))}
	type job struct {
		model, body string
		want        TagResponse
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var jobs []job
	for i := range 300 {
		name, cols := "ewt", []string(nil)
		if i%3 == 1 {
			name, cols = "xpos", []string{"xpos"}
		}
		ref := refs[name]
		idx := make([]int, 1+rng.IntN(8))
		for j := range idx {
			idx[j] = rng.IntN(len(ref.sents))
		}
		marginals, nbest := i%5 == 2, 1
		if i%7 == 3 {
			nbest = 3
		}
		want := ref.expect(t, idx, marginals, nbest)
		want.Model = name
		jobs = append(jobs, job{name, ref.request(t, idx, cols, marginals, nbest), want})
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var wg sync.WaitGroup
	errs := make([]string, len(jobs))
	for i, j := range jobs {
		wg.Go(func() {
			resp, err := client.Post(srv.base+"/v1/models/"+j.model+"/tag", "application/json", strings.NewReader(j.body))
			if err != nil {
				errs[i] = err.Error()
				return
			}
			defer resp.Body.Close()
			var got TagResponse
			if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != 200 {
				errs[i] = fmt.Sprintf("status %d, decoding: %v", resp.StatusCode, err)
				return
			}
			if !reflect.DeepEqual(got, j.want) {
				errs[i] = fmt.Sprintf("answer differs from direct tagging:\n got %+v\nwant %+v", got, j.want)
			}
		})
	}
	wg.Wait()
	failed := 0
	for i, e := range errs {
		if e != "" {
			failed++
			if failed <= 3 {
				t.Errorf("request %d (%s): %s", i, jobs[i].model, e)
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d requests failed", failed, len(jobs))
	}
	// Every request is counted.
	metrics := get(t, srv.base+"/metrics")
	if want := fmt.Sprintf(`trellis_serve_requests_total{code="200",route="tag"} %d`, len(jobs)); !strings.Contains(metrics, want) {
		t.Errorf("metrics lack %q", want)
	}
}

// TestStagedModel serves a second-stage model, which runs the first stage
// it carries: its answers, with marginals and n-best too, are direct
// tagging's from concurrent requests; the columns asked for are the first
// stage's (XPOS), never the stage column.
func TestStagedModel(t *testing.T) {
	path := trainedModel(t, "staged")
	srv := start(t, testOptions(ModelFile{Name: "staged", Path: path}))
	ref := newReference(t, path)
	var wg sync.WaitGroup
	errs := make([]string, 40)
	for i := range errs {
		idx := []int{i % len(ref.sents), (7 * i) % len(ref.sents)}
		marginals, nbest := i%3 == 1, 1+i%2
		want := ref.expect(t, idx, marginals, nbest)
		want.Model = "staged"
		body := ref.request(t, idx, []string{"xpos"}, marginals, nbest)
		wg.Go(func() {
			code, b := post(t, http.DefaultClient, srv.base+"/v1/models/staged/tag", body)
			var got TagResponse
			if err := json.Unmarshal(b, &got); err != nil || code != 200 {
				errs[i] = fmt.Sprintf("status %d: %s", code, b)
				return
			}
			if !reflect.DeepEqual(got, want) {
				errs[i] = fmt.Sprintf("answer differs from direct tagging:\n got %+v\nwant %+v", got, want)
			}
		})
	}
	wg.Wait()
	for i, e := range errs {
		if e != "" {
			t.Errorf("request %d: %s", i, e)
		}
	}
	code, b := post(t, http.DefaultClient, srv.base+"/v1/models/staged/tag", `{"sentences": [["The","cat"]]}`)
	if code != 400 || !strings.Contains(string(b), `xpos`) || !strings.Contains(string(b), "besides the words") {
		t.Errorf("without xpos: %d %s", code, b)
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return string(b)
}

// TestModelsHealthMetrics checks the listing (provenance from the model
// file's header, the columns a model reads), health and the metrics'
// series after one request.
func TestModelsHealthMetrics(t *testing.T) {
	srv := start(t, testOptions(ModelFile{Name: "xpos", Path: trainedModel(t, "xpos")}, ModelFile{Name: "ewt", Path: trainedModel(t, "ewt")}))
	var list struct{ Models []modelInfo }
	if err := json.Unmarshal([]byte(get(t, srv.base+"/v1/models")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Models) != 2 || list.Models[0].Name != "ewt" || list.Models[1].Name != "xpos" {
		t.Fatalf("models %+v, want ewt and xpos in order", list.Models)
	}
	for _, mi := range list.Models {
		ref := newReference(t, trainedModel(t, mi.Name))
		if mi.Provenance == nil || !reflect.DeepEqual(*mi.Provenance, ref.model.Provenance) || mi.Learner == nil || mi.Learner.Type != ref.model.Learner.Type ||
			!reflect.DeepEqual(mi.Labels, ref.model.Labels) || len(mi.SHA256) != 64 || mi.WordColumn != "form" {
			t.Errorf("model %s: listing %+v does not match its file's header", mi.Name, mi)
		}
	}
	if got := list.Models[1].ExtraColumns; !reflect.DeepEqual(got, []string{"xpos"}) {
		t.Errorf("xpos model reads extra columns %v, want [xpos]", got)
	}
	if got := list.Models[0].ExtraColumns; len(got) != 0 {
		t.Errorf("ewt model reads extra columns %v, want none", got)
	}
	if h := get(t, srv.base+"/healthz"); !strings.Contains(h, `"status":"ok"`) {
		t.Errorf("healthz: %s", h)
	}
	status, body := post(t, http.DefaultClient, srv.base+"/v1/models/ewt/tag", `{"sentences": [["The","cat","sat","."], ["Hi"]]}`)
	if status != 200 {
		t.Fatalf("tag: %d %s", status, body)
	}
	post(t, http.DefaultClient, srv.base+"/v1/models/ewt/tag", `{"sentences": 1}`)
	metrics := get(t, srv.base+"/metrics")
	for _, want := range []string{
		`trellis_serve_tokens_tagged_total{model="ewt"} 5`,
		`trellis_serve_sentences_tagged_total{model="ewt"} 2`,
		`trellis_serve_requests_total{code="200",route="tag"} 1`,
		`trellis_serve_errors_total{code="400",route="tag"} 1`,
		`trellis_serve_request_duration_seconds_count{route="tag"} 2`,
		`trellis_serve_requests_in_flight 0`, // a scrape does not count itself
		`go_goroutines`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// TestDrain: when the server is told to stop, a request in flight is
// answered in full, new requests are refused (503 on the handler, no
// connection on the port), and Serve returns nil.
func TestDrain(t *testing.T) {
	opts := testOptions(ModelFile{Name: "ewt", Path: trainedModel(t, "ewt")})
	srv := start(t, opts)
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv.beforeTag = func() {
		once.Do(func() {
			close(entered)
			<-release
		})
	}
	ref := newReference(t, trainedModel(t, "ewt"))
	idx := []int{0, 1, 2, 3}
	type answer struct {
		status int
		body   []byte
	}
	done := make(chan answer, 1)
	go func() {
		status, body := post(t, http.DefaultClient, srv.base+"/v1/models/ewt/tag", ref.request(t, idx, nil, false, 1))
		done <- answer{status, body}
	}()
	<-entered
	srv.stop()
	waitFor(t, "the drain to start", func() bool { return srv.draining.Load() })
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "shutting down") {
		t.Errorf("healthz while draining: %d %s", rec.Code, rec.Body)
	}
	waitFor(t, "the listener to close", func() bool {
		c, err := net.Dial("tcp", srv.addr)
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	select {
	case <-srv.served:
		t.Fatal("Serve returned with a request in flight")
	case <-done:
		t.Fatal("the request in flight was answered before it was let go")
	default:
	}
	close(release)
	a := <-done
	if a.status != 200 {
		t.Fatalf("the request in flight got %d: %s", a.status, a.body)
	}
	var got TagResponse
	if err := json.Unmarshal(a.body, &got); err != nil {
		t.Fatal(err)
	}
	want := ref.expect(t, idx, false, 1)
	want.Model = "ewt"
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the request in flight: got %+v, want %+v", got, want)
	}
	if err := <-srv.served; err != nil {
		t.Errorf("Serve after the drain: %v", err)
	}
	srv.served <- nil // for the cleanup
}

// waitFor polls cond until it holds, failing after a generous minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// TestEmptyRequest: no sentences is a valid request with an empty answer,
// plain and detailed.
func TestEmptyRequest(t *testing.T) {
	srv := start(t, testOptions(ModelFile{Name: "ewt", Path: trainedModel(t, "ewt")}))
	for body, want := range map[string]string{
		`{"sentences": []}`: `{"model":"ewt","labels":[]}`,
		`{"sentences": [], "marginals": true, "nbest": 2}`: `{"model":"ewt","labels":[]}`,
	} {
		status, got := post(t, http.DefaultClient, srv.base+"/v1/models/ewt/tag", body)
		if status != 200 || strings.TrimSpace(string(got)) != want {
			t.Errorf("%s: %d %s, want 200 %s", body, status, got, want)
		}
	}
}
