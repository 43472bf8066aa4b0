package lattice

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestNegLogLikelihood checks the loss against enumeration of every
// sequence, and its gradient — the state part is marginals minus gold —
// against central finite differences of the enumerated loss, for every
// state, transition, start and stop score and, on lattices with
// per-position transitions, every TransAt entry, on sentences of 1 to 4
// tokens.
func TestNegLogLikelihood(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	ws := NewWorkspace(3)
	for trial := range 16 {
		n, l := 1+trial%4, 3
		s := randomScores(r, n, l, 1, false)
		if trial >= 8 {
			addTransAt(r, s, 1)
		}
		gold := make([]int32, n)
		for i := range gold {
			gold[i] = int32(r.IntN(l))
		}
		g := ScoreGrad{State: make([]float64, n*l), Trans: make([]float64, l*l), Start: make([]float64, l), Stop: make([]float64, l),
			TransAt: make([]float64, max(n-1, 0)*l*l)}
		nll := ws.NegLogLikelihood(s, gold, &g)
		if want := bruteNLL(s, gold); !near(nll, want, 1e-12) {
			t.Fatalf("n=%d: loss %v, enumeration %v", n, nll, want)
		}
		for _, part := range []struct {
			name    string
			x, grad []float64
		}{{"state", s.State, g.State}, {"trans", s.Trans, g.Trans}, {"start", s.Start, g.Start}, {"stop", s.Stop, g.Stop},
			{"transAt", s.TransAt, g.TransAt}} {
			for k := range part.x {
				const h = 1e-5
				v := part.x[k]
				part.x[k] = v + h
				up := bruteNLL(s, gold)
				part.x[k] = v - h
				down := bruteNLL(s, gold)
				part.x[k] = v
				if fd := (up - down) / (2 * h); math.Abs(fd-part.grad[k]) > 1e-7 {
					t.Fatalf("n=%d %s[%d]: gradient %v, finite difference %v", n, part.name, k, part.grad[k], fd)
				}
			}
		}
	}
}

// TestNegLogLikelihoodAdds checks that the shared gradients are added to
// and the state gradient overwritten.
func TestNegLogLikelihoodAdds(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	s := randomScores(r, 3, 2, 1, false)
	ws := NewWorkspace(2)
	gold := []int32{0, 1, 1}
	one := ScoreGrad{State: make([]float64, 6), Trans: make([]float64, 4), Start: make([]float64, 2), Stop: make([]float64, 2)}
	ws.NegLogLikelihood(s, gold, &one)
	two := ScoreGrad{State: []float64{9, 9, 9, 9, 9, 9}, Trans: make([]float64, 4), Start: make([]float64, 2), Stop: make([]float64, 2)}
	ws.NegLogLikelihood(s, gold, &two)
	ws.NegLogLikelihood(s, gold, &two)
	for k := range one.State {
		if two.State[k] != one.State[k] {
			t.Fatalf("state[%d] = %v, want %v (overwritten)", k, two.State[k], one.State[k])
		}
	}
	for k := range one.Trans {
		if !near(two.Trans[k], 2*one.Trans[k], 1e-14) {
			t.Fatalf("trans[%d] = %v, want twice %v (added)", k, two.Trans[k], one.Trans[k])
		}
	}
	if a := testing.AllocsPerRun(10, func() { ws.NegLogLikelihood(s, gold, &two) }); a != 0 {
		t.Errorf("%v allocations per call, want 0", a)
	}
}

// bruteNLL is log Σ exp(score) over every sequence minus gold's score.
func bruteNLL(s *Scores, gold []int32) float64 {
	all := enumerate(s)
	scores := make([]float64, len(all))
	for k, p := range all {
		scores[k] = p.score
	}
	return LogSumExp(scores) - SequenceScore(s, gold)
}
