package serve

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/rs/zerolog"
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
