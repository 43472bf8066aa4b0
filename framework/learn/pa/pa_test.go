package pa

import (
	"context"
	"math"
	"testing"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/online"
)

// tiny is two sentences over attributes 0 and 1 and labels 0 and 1:
// "a0 a1" labelled 1 1, then "a0" labelled 0.
func tiny() *learn.Problem {
	d := feature.NewDataset()
	for _, tok := range []struct{ a, y int32 }{{0, 1}, {1, 1}} {
		d.Attrs = append(d.Attrs, tok.a)
		d.TokenOff = append(d.TokenOff, len(d.Attrs))
		d.Labels = append(d.Labels, tok.y)
	}
	d.SentOff = append(d.SentOff, len(d.Labels))
	d.Attrs = append(d.Attrs, 0)
	d.TokenOff = append(d.TokenOff, len(d.Attrs))
	d.Labels = append(d.Labels, 0)
	d.SentOff = append(d.SentOff, len(d.Labels))
	return &learn.Problem{Train: d, NumAttrs: 2, NumLabels: 2, Transitions: true, Seed: 1, Threads: 1, Log: zerolog.Nop()}
}

// TestHandSteps checks one epoch on tiny against steps worked out by
// hand. Weights start at zero, so sentence 1 decodes as 0 0 (ties go to
// the lowest label): 2 errors, Δ = +(a0,1) −(a0,0) +(a1,1) −(a1,0)
// +start1 −start0 +T11 −T00 +stop1 −stop0, ‖Δ‖² = 10, margin 0, so the
// loss is √2 (1 without error_sensitive) and w = τ1·Δ. Sentence 2 ("a0")
// then scores label 1 at 3τ1 and label 0 at −3τ1: predicted 1, 1 error,
// Δ' = +(a0,0) −(a0,1) +start0 −start1 +stop0 −stop1, ‖Δ'‖² = 6,
// w·Δ' = −6τ1, loss 6τ1 + 1, and w += τ2·Δ'.
func TestHandSteps(t *testing.T) {
	sqrt2 := math.Sqrt2
	cases := []struct {
		name      string
		typ       int
		c         float64
		sensitive bool
		tau       func(loss, norm2 float64) float64
	}{
		{"PA", 0, 0.5, true, func(l, n float64) float64 { return l / n }},
		{"PA-I", 1, 1, true, func(l, n float64) float64 { return math.Min(1, l/n) }},
		{"PA-I small c", 1, 0.1, true, func(l, n float64) float64 { return math.Min(0.1, l/n) }},
		{"PA-II", 2, 0.5, true, func(l, n float64) float64 { return l / (n + 1) }},
		{"PA-I insensitive", 1, 1, false, func(l, n float64) float64 { return math.Min(1, l/n) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			loss1 := sqrt2
			if !tc.sensitive {
				loss1 = 1
			}
			tau1 := tc.tau(loss1, 10)
			tau2 := tc.tau(6*tau1+1, 6)
			// Indices: dense features (a, y) at 2a+y, then T (4), start, stop.
			want := []float64{
				-tau1 + tau2, tau1 - tau2, // (a0,0), (a0,1)
				-tau1, tau1, // (a1,0), (a1,1)
				-tau1, 0, 0, tau1, // T00, T01, T10, T11
				-tau1 + tau2, tau1 - tau2, // start
				-tau1 + tau2, tau1 - tau2, // stop
			}
			for _, average := range []bool{false, true} {
				one, no := 1, false
				l := &Learner{cfg: Config{Config: online.Config{Epochs: &one, Common: online.Common{Shuffle: &no, Average: &average, Features: "all"}},
					Type: &tc.typ, C: &tc.c, ErrorSensitive: &tc.sensitive}}
				res, err := l.Train(context.Background(), tiny())
				if err != nil {
					t.Fatal(err)
				}
				for f, w := range want {
					if average {
						// The mean of the weights after sentence 1 (τ1·Δ)
						// and after sentence 2 (want).
						w = (w + tau1*delta1[f]) / 2
					}
					if got := res.Model.W[f]; math.Abs(got-w) > 1e-12 {
						t.Fatalf("average=%v: weight %d = %v, want %v", average, f, got, w)
					}
				}
			}
		})
	}
}

// delta1 is Δ of sentence 1 in tiny, weight by weight.
var delta1 = []float64{-1, 1, -1, 1, -1, 0, 0, 1, -1, 1, -1, 1}

func TestValidate(t *testing.T) {
	three, zero, inf := 3, 0.0, math.Inf(1)
	for _, cfg := range []Config{{Type: &three}, {C: &zero}, {C: &inf}} {
		if d := (&Learner{cfg: cfg}).Validate(); !d.HasErrors() {
			t.Errorf("%+v accepted", cfg)
		}
	}
	if d := (&Learner{}).Validate(); d.HasErrors() {
		t.Errorf("defaults refused: %v", d)
	}
}
