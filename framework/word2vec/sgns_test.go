// sgns_test.go: the update of one pair against hand computations and the
// gradient of the log-likelihood, and the tables and random numbers.

package word2vec

import (
	"math"
	"testing"
)

// near reports whether got is within tol of want, value by value.
func near(got, want []float32, tol float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(float64(got[i]-want[i])) > tol {
			return false
		}
	}
	return true
}

// TestStepByHand works three updates out on paper.
func TestStepByHand(t *testing.T) {
	sig := newSigmoidTable()
	// in·out = 0.03 − 0.02 = 0.01, in the table's middle cell, where
	// σ = σ(0) = 0.5: g = (1 − 0.5)·0.5 = 0.25.
	in, out, acc := []float32{0.1, 0.2}, []float32{0.3, -0.1}, []float32{0, 0}
	if g := step(in, out, acc, 1, 0.5, sig); math.Abs(float64(g)-0.25) > 1e-7 {
		t.Errorf("g = %v, want 0.25", g)
	}
	if want := []float32{0.25 * 0.3, 0.25 * -0.1}; !near(acc, want, 1e-7) {
		t.Errorf("acc = %v, want %v", acc, want)
	}
	if want := []float32{0.3 + 0.25*0.1, -0.1 + 0.25*0.2}; !near(out, want, 1e-7) {
		t.Errorf("out = %v, want %v", out, want)
	}
	if want := []float32{0.1, 0.2}; !near(in, want, 0) {
		t.Errorf("in changed to %v: its gradient goes to acc", in)
	}

	// A noise word: in·out = 0.5 + 0.5 = 1, cell int(7·1000/12) = 583
	// at f = (583/500 − 1)·6 = 0.996, g = (0 − σ(0.996))·0.1.
	in, out, acc = []float32{1, 2}, []float32{0.5, 0.25}, []float32{1, 1}
	s := 1 / (1 + math.Exp(-0.996))
	g := step(in, out, acc, 0, 0.1, sig)
	if math.Abs(float64(g)+0.1*s) > 1e-6 {
		t.Errorf("g = %v, want %v", g, -0.1*s)
	}
	gw := -0.1 * s
	if want := []float32{float32(1 + gw*0.5), float32(1 + gw*0.25)}; !near(acc, want, 1e-6) {
		t.Errorf("acc = %v, want %v", acc, want)
	}
	if want := []float32{float32(0.5 + gw*1), float32(0.25 + gw*2)}; !near(out, want, 1e-6) {
		t.Errorf("out = %v, want %v", out, want)
	}

	// Beyond ±6 the observed word needs no change and a noise word
	// takes the whole rate, as in word2vec.c.
	in, out = []float32{3, 3}, []float32{1, 1}
	if g := step(in, out, make([]float32, 2), 1, 0.1, sig); g != 0 {
		t.Errorf("label 1 at f = 6: g = %v, want 0", g)
	}
	if g := step(in, out, make([]float32, 2), 0, 0.1, sig); math.Abs(float64(g)+0.1) > 1e-7 {
		t.Errorf("label 0 at f = 6: g = %v, want -0.1", g)
	}
}

// TestStepIsGradient checks that step moves both vectors along the
// gradient of the pair's log-likelihood, log σ(in·out) for the observed
// word and log σ(−in·out) for a noise word, computed by central finite
// differences; the table's σ is off by at most its cell width times σ's
// slope (12/1000 · 1/4).
func TestStepIsGradient(t *testing.T) {
	sig := newSigmoidTable()
	r := newRNG(7, 0)
	for trial := range 200 {
		dim := 1 + trial%9
		in, out := make([]float32, dim), make([]float32, dim)
		for i := range in {
			in[i] = float32(r.next()>>40)/(1<<24)*2 - 1
			out[i] = float32(r.next()>>40)/(1<<24)*2 - 1
		}
		label := float32(trial % 2)
		loglik := func(a, b []float64) float64 {
			f := 0.0
			for i := range a {
				f += a[i] * b[i]
			}
			if label == 0 {
				f = -f
			}
			return -math.Log1p(math.Exp(-f))
		}
		a64, b64 := widen(in), widen(out)
		const alpha, h = 0.01, 1e-6
		acc, out2 := make([]float32, dim), append([]float32(nil), out...)
		step(in, out2, acc, label, alpha, sig)
		for i := range dim {
			// ∂/∂in_i goes to acc, ∂/∂out_i to out.
			da := partial(loglik, a64, b64, i, h, true)
			db := partial(loglik, a64, b64, i, h, false)
			if math.Abs(float64(acc[i])-alpha*da) > alpha*0.004 {
				t.Fatalf("trial %d: acc[%d] = %v, gradient step %v", trial, i, acc[i], alpha*da)
			}
			if math.Abs(float64(out2[i]-out[i])-alpha*db) > alpha*0.004 {
				t.Fatalf("trial %d: out[%d] moved %v, gradient step %v", trial, i, out2[i]-out[i], alpha*db)
			}
		}
	}
}

func widen(x []float32) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}

// partial is ∂f/∂a_i (first) or ∂f/∂b_i by central differences.
func partial(f func(a, b []float64) float64, a, b []float64, i int, h float64, first bool) float64 {
	x := b
	if first {
		x = a
	}
	old := x[i]
	x[i] = old + h
	hi := f(a, b)
	x[i] = old - h
	lo := f(a, b)
	x[i] = old
	return (hi - lo) / (2 * h)
}

func TestExpAndSigmoidTable(t *testing.T) {
	for x := -8.0; x <= 8; x += 0.01 {
		if got, want := exp(x), math.Exp(x); math.Abs(got-want) > 1e-12*want {
			t.Fatalf("exp(%v) = %v, want %v", x, got, want)
		}
	}
	sig := newSigmoidTable()
	for i, s := range sig {
		x := (float64(i)/sigmoidSize*2 - 1) * maxExp
		if want := 1 / (1 + math.Exp(-x)); math.Abs(float64(s)-want) > 1e-7 {
			t.Fatalf("table[%d] = %v, σ(%v) = %v", i, s, x, want)
		}
	}
}

// TestNoise checks the alias table's exact probabilities against
// counts^0.75, and that draws stay in range.
func TestNoise(t *testing.T) {
	counts := []int64{1000, 300, 300, 50, 7, 1, 1}
	ns := newNoise(counts)
	n := float64(len(counts))
	got := make([]float64, len(counts))
	for i := range counts {
		k := float64(ns.keep[i]) / (1 << 32)
		got[i] += k / n
		got[ns.alias[i]] += (1 - k) / n
	}
	total := 0.0
	for _, c := range counts {
		total += math.Pow(float64(c), 0.75)
	}
	for i, c := range counts {
		if want := math.Pow(float64(c), 0.75) / total; math.Abs(got[i]-want) > 1e-9 {
			t.Errorf("word %d (count %d): probability %v, want %v", i, c, got[i], want)
		}
	}
	r := newRNG(1, 1)
	seen := make([]int, len(counts))
	for range 100000 {
		seen[ns.draw(&r)]++
	}
	if seen[0] < seen[1] || seen[5] == 0 || seen[4] <= seen[5]/2 {
		t.Errorf("draws %v do not follow counts %v", seen, counts)
	}
}

func TestRNG(t *testing.T) {
	a, b, c := newRNG(1, 0), newRNG(1, 0), newRNG(1, 1)
	same, other := 0, 0
	for range 1000 {
		x, y, z := a.next(), b.next(), c.next()
		if x == y {
			same++
		}
		if x == z {
			other++
		}
		if n := a.below(7); n < 0 || n >= 7 {
			t.Fatalf("below(7) = %d", n)
		}
		b.below(7)
	}
	if same != 1000 || other != 0 {
		t.Errorf("same seed and stream agreed %d/1000 times, another stream %d times", same, other)
	}
	// The sequence is pinned: a change to the generator changes every
	// vector file trained before, so it must be deliberate.
	r := newRNG(1, 0)
	if x, y := r.next(), r.next(); x != 0x5e41ab087439611e || y != 0xf18d6ce93d6cf1ee {
		t.Errorf("seed 1 stream 0 starts %#x %#x", x, y)
	}
	if r = newRNG(1, 3); r.next() != 0x349d3867793e4c9d {
		t.Errorf("seed 1 stream 3 changed")
	}
}

func TestKernels(t *testing.T) {
	for n := range 11 {
		a, b := make([]float32, n), make([]float32, n)
		want := float32(0)
		for i := range a {
			a[i], b[i] = float32(i+1), float32(2*i-3)
			want += a[i] * b[i]
		}
		if got := dot(a, b); got != want {
			t.Errorf("dot n=%d: %v, want %v", n, got, want)
		}
		axpy(0.5, a, b)
		for i := range b {
			if b[i] != float32(2*i-3)+0.5*float32(i+1) {
				t.Errorf("axpy n=%d: b[%d] = %v", n, i, b[i])
			}
		}
	}
}
