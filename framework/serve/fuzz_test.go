package serve

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzTagRequest sends arbitrary bodies to the tag route of a model that
// reads an extra column: the service must not panic, must answer 200,
// 400 or 413, every error as the JSON error body, and every 200 with one
// label per token of the request.
func FuzzTagRequest(f *testing.F) {
	for _, seed := range []string{
		`{"sentences": [["The","cat"]], "columns": {"xpos": [["DT","NN"]]}}`,
		`{"sentences": [["The","cat"]], "columns": {"xpos": [["DT","NN"]]}, "marginals": true, "nbest": 3}`,
		`{"sentences": [["The","cat"]]}`,
		`{"sentences": [["The","cat"]], "columns": {"xpos": [["DT"]]}}`,
		`{"sentences": [[]]}`,
		`{"sentences": "x"}`,
		`{"sentences": [["a"]]} {}`,
		`{"nbest": -1, "sentences": []}`,
		`[]`, `null`, ``, `{`,
	} {
		f.Add(seed)
	}
	opts := testOptions(ModelFile{Name: "xpos", Path: trainedModel(f, "xpos")})
	opts.Concurrency, opts.MaxBody, opts.MaxTokens = 1, 1<<16, 2000
	s, err := New(opts)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/models/xpos/tag", strings.NewReader(body)))
		switch rec.Code {
		case http.StatusOK:
			var req TagRequest
			var resp TagResponse
			if err := json.Unmarshal([]byte(body), &req); err != nil {
				t.Fatalf("200 for a body that does not decode: %v", err)
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
				t.Fatalf("200 with an answer that does not decode: %v", err)
			}
			if len(resp.Labels) != len(req.Sentences) {
				t.Fatalf("%d label sequences for %d sentences", len(resp.Labels), len(req.Sentences))
			}
			for k, l := range resp.Labels {
				if len(l) != len(req.Sentences[k]) {
					t.Fatalf("sentence %d: %d labels for %d tokens", k, len(l), len(req.Sentences[k]))
				}
			}
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			var e errorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Status != rec.Code || e.Error == "" {
				t.Fatalf("error answer %q is not the JSON error body", rec.Body)
			}
		default:
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	})
}
