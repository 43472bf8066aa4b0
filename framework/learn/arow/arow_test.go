package arow

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

// TestHandSteps checks one epoch on tiny, variance σ0 and γ, against steps
// worked out by hand. Sentence 1 decodes as 0 0 under zero weights: 2
// errors, Δ = ±1 on ten weights ((a0,·), (a1,·), T00, T11, start, stop),
// margin 0, loss 2, α1 = 2 / (γ + 10σ0), w = α1σ0Δ, and those ten
// variances become σ1 = 1/(1/σ0 + 1/γ). Sentence 2 ("a0", gold 0) scores
// label 1 at 3α1σ0 > 0: predicted 1, 1 error; Δ' = ±1 on the six weights
// of a0, start and stop, w·Δ' = −6α1σ0, loss 6α1σ0 + 1,
// α2 = loss / (γ + 6σ1), w += α2σ1Δ', and their variances become
// 1/(1/σ1 + 1/γ).
func TestHandSteps(t *testing.T) {
	for _, tc := range []struct{ variance, gamma float64 }{{1, 1}, {0.5, 2}, {2, 0.25}} {
		s0, g := tc.variance, tc.gamma
		a1 := 2 / (g + 10*s0)
		s1 := 1 / (1/s0 + 1/g)
		a2 := (6*a1*s0 + 1) / (g + 6*s1)
		s2 := 1 / (1/s1 + 1/g)
		u, v := a1*s0, a2*s1
		want := []float64{
			-u + v, u - v, // (a0,0), (a0,1)
			-u, u, // (a1,0), (a1,1)
			-u, 0, 0, u, // T
			-u + v, u - v, // start
			-u + v, u - v, // stop
		}
		wantSigma := []float64{s2, s2, s1, s1, s1, s0, s0, s1, s2, s2, s2, s2}
		one, no, avg := 1, false, false
		l := &Learner{cfg: Config{Config: online.Config{Epochs: &one, Common: online.Common{Shuffle: &no, Average: &avg, Features: "all"}}, Variance: &s0, Gamma: &g}}
		r := &Rule{Variance: s0, Gamma: g}
		res, err := l.trainWith(context.Background(), tiny(), r)
		if err != nil {
			t.Fatal(err)
		}
		for f := range want {
			if got := res.Model.W[f]; math.Abs(got-want[f]) > 1e-12 {
				t.Fatalf("σ0=%v γ=%v: weight %d = %v, want %v", s0, g, f, got, want[f])
			}
			if got := r.Sigma[f]; math.Abs(got-wantSigma[f]) > 1e-12 {
				t.Fatalf("σ0=%v γ=%v: variance %d = %v, want %v", s0, g, f, got, wantSigma[f])
			}
		}
	}
}

func TestValidate(t *testing.T) {
	zero, neg, inf := 0.0, -1.0, math.Inf(1)
	for _, cfg := range []Config{{Variance: &zero}, {Gamma: &neg}, {Gamma: &inf}} {
		if d := (&Learner{cfg: cfg}).Validate(); !d.HasErrors() {
			t.Errorf("%+v accepted", cfg)
		}
	}
	if d := (&Learner{}).Validate(); d.HasErrors() {
		t.Errorf("defaults refused: %v", d)
	}
}
