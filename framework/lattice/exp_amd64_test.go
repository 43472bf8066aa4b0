package lattice

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestVectorExpIsMathExp checks expShifted against math.Exp bit for bit:
// arguments over the whole range, the edges of archExp's main path
// (overflow, the last normal results, subnormals, underflow), infinities
// and NaN, in every position of a block and every length.
func TestVectorExpIsMathExp(t *testing.T) {
	if !hasVectorExp {
		t.Skip("vector exp off (no AVX2 and FMA, or math.Exp off its FMA path): expShifted is math.Exp's loop")
	}
	r := rand.New(rand.NewPCG(2, 7))
	edges := []float64{0, math.Copysign(0, -1), 1, -1, 709.78, 709.79, 7.09782712893384e+02, math.Nextafter(7.09782712893384e+02, 0),
		-708.39, -708.4, -709.09, -709.1, -744.4, -745.1, -745.2, -800, -1e10, -1e300,
		math.Inf(1), math.Inf(-1), math.NaN(), 1e-300, -1e-300, math.Ln2 * 1022.5, -math.Ln2 * 1021.5}
	draw := func() float64 {
		switch r.IntN(4) {
		case 0:
			return edges[r.IntN(len(edges))]
		case 1:
			return -r.ExpFloat64() * 20
		case 2:
			return (r.Float64() - 0.5) * 1500
		default:
			return r.NormFloat64()
		}
	}
	for trial := 0; trial < 20000; trial++ {
		n := r.IntN(30)
		x := make([]float64, n)
		for k := range x {
			x[k] = draw()
		}
		shift := 0.0
		if r.IntN(2) == 0 {
			shift = draw()
		}
		got := make([]float64, n)
		expShifted(got, x, shift)
		for k, v := range x {
			want := math.Exp(v - shift)
			if math.Float64bits(got[k]) != math.Float64bits(want) && !(math.IsNaN(got[k]) && math.IsNaN(want)) {
				t.Fatalf("exp(%v - %v) = %v (%#x), math.Exp %v (%#x)", v, shift, got[k], math.Float64bits(got[k]), want, math.Float64bits(want))
			}
		}
	}
}

// TestVectorExpMainPath makes sure the comparison above is not vacuous:
// ordinary arguments stay on the vector path, and a million of them over
// the range of normal results match math.Exp.
func TestVectorExpMainPath(t *testing.T) {
	if !hasVectorExp {
		t.Skip("vector exp off (no AVX2 and FMA, or math.Exp off its FMA path)")
	}
	r := rand.New(rand.NewPCG(6, 1))
	x := make([]float64, 1<<20)
	for k := range x {
		x[k] = -708 + 1417*r.Float64()
	}
	got := make([]float64, len(x))
	if n := expBlocksAVX(got, x, 0); n != len(x) {
		t.Fatalf("vector path stopped at %d of %d (x = %v)", n, len(x), x[n])
	}
	for k, v := range x {
		if want := math.Exp(v); math.Float64bits(got[k]) != math.Float64bits(want) {
			t.Fatalf("exp(%v) = %v, math.Exp %v", v, got[k], want)
		}
	}
}
