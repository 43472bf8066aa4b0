package lattice

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// kernelInputs draws a matrix of l rows of lp columns (padding zero), a
// vector of l row factors with some zeros, and a vector of lp columns.
func kernelInputs(r *rand.Rand, l int) (t, a, x []float64) {
	lp := stride(l)
	t = make([]float64, l*lp)
	for p := 0; p < l; p++ {
		for c := 0; c < l; c++ {
			t[p*lp+c] = math.Exp(-3 * r.Float64())
		}
	}
	a = make([]float64, l)
	for p := range a {
		if r.IntN(4) != 0 {
			a[p] = r.ExpFloat64()
		}
	}
	x = make([]float64, lp)
	for c := 0; c < l; c++ {
		x[c] = r.ExpFloat64()
	}
	return t, a, x
}

func sameBits(a, b []float64) bool {
	for k := range a {
		if math.Float64bits(a[k]) != math.Float64bits(b[k]) {
			return false
		}
	}
	return len(a) == len(b)
}

// TestKernelsMatchGonum checks that the kernels — the dispatched ones
// (AVX on a machine that has it) and the portable Go ones — give the
// bits of the gonum calls the scaled pass made before it had kernels, so
// that trained models keep their bytes.
func TestKernelsMatchGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for l := 1; l <= 41; l++ {
		t.Run(fmt.Sprintf("L=%d", l), func(t *testing.T) {
			for trial := 0; trial < 20; trial++ {
				checkKernels(t, r, l)
			}
		})
	}
}

func checkKernels(t *testing.T, r *rand.Rand, l int) {
	t.Helper()
	lp := stride(l)
	m, a, x := kernelInputs(r, l)
	// Forward: cur += a[p]·row p, rows with a[p] == 0 skipped.
	want := make([]float64, l)
	for p, ap := range a {
		if ap != 0 {
			floats.AddScaled(want, ap, m[p*lp:p*lp+l])
		}
	}
	for name, f := range map[string]func(dst, prev, t []float64, lp int){"dispatched": forward, "go": forwardGo} {
		got := make([]float64, lp)
		for k := range got {
			got[k] = math.NaN() // must be overwritten
		}
		f(got, a, m, lp)
		if !sameBits(got[:l], want) {
			t.Fatalf("forward (%s) L=%d: %v, gonum %v", name, l, got[:l], want)
		}
	}
	// Backward: dot of each row with x, times inv.
	inv := 1 / (1 + r.Float64())
	want = make([]float64, l)
	for p := range want {
		want[p] = floats.Dot(m[p*lp:p*lp+l], x[:l]) * inv
	}
	for name, f := range map[string]func(dst, t, x []float64, lp int, inv float64){"dispatched": backward, "go": backwardGo} {
		got := make([]float64, l)
		f(got, m, x[:l], lp, inv)
		if !sameBits(got, want) {
			t.Fatalf("backward (%s) L=%d: %v, gonum %v", name, l, got, want)
		}
	}
	// Outer: acc row p += a[p]·x, rows with a[p] == 0 skipped.
	acc0, _, _ := kernelInputs(r, l)
	want = append([]float64(nil), acc0...)
	for p, ap := range a {
		if ap != 0 {
			floats.AddScaled(want[p*lp:p*lp+l], ap, x[:l])
		}
	}
	for name, f := range map[string]func(acc, a, q []float64, lp int){"dispatched": outer, "go": outerGo} {
		got := append([]float64(nil), acc0...)
		f(got, a, x, lp)
		for p := 0; p < l; p++ {
			if !sameBits(got[p*lp:p*lp+l], want[p*lp:p*lp+l]) {
				t.Fatalf("outer (%s) L=%d row %d: %v, gonum %v", name, l, p, got[p*lp:p*lp+l], want[p*lp:p*lp+l])
			}
		}
	}
}

// TestKernelsNonFinite feeds Inf and NaN through both kernel forms: they
// must agree bit for bit (NaN payloads aside) whatever the input.
func TestKernelsNonFinite(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	special := []float64{0, math.Inf(1), math.NaN(), 1}
	for trial := 0; trial < 200; trial++ {
		l := 1 + r.IntN(20)
		lp := stride(l)
		m, a, x := kernelInputs(r, l)
		for k := 0; k < 3; k++ {
			m[r.IntN(l)*lp+r.IntN(l)] = special[r.IntN(4)]
			a[r.IntN(l)] = special[r.IntN(4)]
		}
		g1, g2 := make([]float64, lp), make([]float64, lp)
		forward(g1, a, m, lp)
		forwardGo(g2, a, m, lp)
		b1, b2 := make([]float64, l), make([]float64, l)
		backward(b1, m, x[:l], lp, 0.5)
		backwardGo(b2, m, x[:l], lp, 0.5)
		o1, o2 := make([]float64, l*lp), make([]float64, l*lp)
		outer(o1, a, x, lp)
		outerGo(o2, a, x, lp)
		for _, pair := range [][2][]float64{{g1, g2}, {b1, b2}, {o1, o2}} {
			for k := range pair[0] {
				u, v := pair[0][k], pair[1][k]
				if u != v && !(math.IsNaN(u) && math.IsNaN(v)) {
					t.Fatalf("trial %d L=%d: dispatched %v, portable %v", trial, l, pair[0], pair[1])
				}
			}
		}
	}
}

// fillScanScores fills x with scores for the Viterbi scans' tests: ties
// (small integers), -Inf, +Inf, NaN and signed zeros among ordinary
// numbers.
func fillScanScores(r *rand.Rand, x []float64) {
	special := []float64{math.Inf(-1), math.Inf(1), math.NaN(), 0, math.Copysign(0, -1)}
	for k := range x {
		switch r.IntN(8) {
		case 0:
			x[k] = special[r.IntN(len(special))]
		case 1, 2, 3:
			x[k] = float64(r.IntN(3))
		default:
			x[k] = r.NormFloat64()
		}
	}
}

// TestMaxPlus checks the Viterbi scan against its portable form on ties
// (small integers), -Inf, +Inf and NaN, at every length.
func TestMaxPlus(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 3))
	for trial := 0; trial < 50000; trial++ {
		n := r.IntN(40)
		prev, tr := make([]float64, n), make([]float64, n+r.IntN(3))
		fillScanScores(r, prev)
		fillScanScores(r, tr)
		b1, a1 := maxPlus(prev, tr)
		b2, a2 := maxPlusGo(prev, tr)
		if math.Float64bits(b1) != math.Float64bits(b2) || a1 != a2 {
			t.Fatalf("prev %v tr %v: dispatched (%v, %d), portable (%v, %d)", prev, tr[:n], b1, a1, b2, a2)
		}
	}
}
