package serve

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/tagger"
)

// TestPanicLeavesNoRequestInFlight: a handler that panics (net/http
// recovers it) does not stay counted in flight, which would hold a drain.
func TestPanicLeavesNoRequestInFlight(t *testing.T) {
	s := &Server{metrics: newMetrics(), opts: Options{Log: zerolog.Nop()}}
	h := s.route("boom", nil, func(*recorder, *http.Request) { panic("boom") })
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the handler did not panic")
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/boom", nil))
	}()
	if n := s.metrics.inFlightNow(); n != 0 {
		t.Errorf("%d requests in flight after the panic, want 0", n)
	}
}

// TestResponseNonFinite: a score or probability JSON cannot hold (a
// forbidden path's -Inf) is null in the answer, not a failed encoding.
func TestResponseNonFinite(t *testing.T) {
	out := tagged{detailed: []tagger.Decoded{{
		Paths: [][]string{{"A"}, {"B"}}, Scores: []float64{1.5, math.Inf(-1)},
		Probabilities: []float64{math.NaN(), 0}, Marginals: []float64{1},
	}}}
	b, err := json.Marshal(response("m", out, &TagRequest{NBest: 2, Marginals: true}))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","labels":[["A"]],"probabilities":[null],"marginals":[[1]],"nbest":[[{"labels":["A"],"score":1.5,"probability":null},{"labels":["B"],"score":null,"probability":0}]]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}
