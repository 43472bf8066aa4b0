package linear

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// rowValue draws a weight or marginal: mostly ordinary numbers, sometimes
// an edge (zeros of both signs, infinities, NaN, a subnormal, a huge one).
func rowValue(r *rand.Rand) float64 {
	edges := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 5e-324, 1e308, -1e308}
	if r.IntN(20) == 0 {
		return edges[r.IntN(len(edges))]
	}
	return r.NormFloat64() * math.Exp(4*r.NormFloat64())
}

func randomRows(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for k := range v {
		v[k] = rowValue(r)
	}
	return v
}

// TestRowKernelsSameBits checks that the dispatched row kernels (AVX-512
// and AVX on a processor that has them) give the bits of the portable
// loops, for every width from 1 to 41 (tails of 1–3 columns after the
// 16- and 4-column groups; masked registers in the second block of 32),
// strides wider than the rows, empty index lists and repeated rows, and
// that nothing is written past the row. NaN payloads aside (see
// firstDiff).
func TestRowKernelsSameBits(t *testing.T) {
	if !hasAVX {
		t.Log("this processor has no AVX (or GODEBUG turned it off): the portable kernels are checked against themselves")
	}
	kernels := []bool{true}
	defer useAVX512(true) // the default: on where the processor has it
	if useAVX512(true) {
		kernels = append(kernels, false)
	}
	for _, wide := range kernels {
		useAVX512(wide)
		t.Run(map[bool]string{true: "dispatched", false: "avx512 off"}[wide], func(t *testing.T) {
			r := rand.New(rand.NewPCG(15, 4))
			for cols := 1; cols <= 41; cols++ {
				t.Run(fmt.Sprintf("cols=%d", cols), func(t *testing.T) {
					for trial := 0; trial < 30; trial++ {
						checkRowKernels(t, r, cols)
					}
				})
			}
		})
	}
}

func checkRowKernels(t *testing.T, r *rand.Rand, cols int) {
	t.Helper()
	stride := cols + r.IntN(5)
	nrows := 1 + r.IntN(12)
	rows := randomRows(r, nrows*stride)
	idx := make([]int32, r.IntN(2*nrows+1))
	for k := range idx {
		idx[k] = int32(r.IntN(nrows))
	}
	dst := randomRows(r, cols)
	want := slices.Clone(dst)
	got := append(slices.Clone(dst), 42, 42, 42, 42, 42, 42, 42, 42, 42)
	addRowsGo(want, rows, idx, stride)
	addRows(got[:cols], rows, idx, stride)
	if !sameNumbers(got[:cols], want) {
		t.Fatalf("addRows stride %d idx %v: got %v, want %v", stride, idx, got[:cols], want)
	}
	for _, v := range got[cols:] {
		if v != 42 {
			t.Fatalf("addRows stride %d: wrote past the row: %v", stride, got[cols:])
		}
	}
	wantRows, gotRows := slices.Clone(rows), slices.Clone(rows)
	addToRowsGo(wantRows, idx, stride, dst)
	addToRows(gotRows, idx, stride, dst)
	if !sameNumbers(gotRows, wantRows) {
		t.Fatalf("addToRows stride %d idx %v: got %v, want %v", stride, idx, gotRows, wantRows)
	}
}

// TestRowKernelsMatchScalarSums checks the portable kernels against the
// sums written out: the sparse loops they stand in for add the same
// numbers in the same order.
func TestRowKernelsMatchScalarSums(t *testing.T) {
	rows := []float64{1, 2, 3, 10, 20, 30, 100, 200, 300}
	dst := []float64{0.5, 0.25}
	addRows(dst, rows, []int32{2, 0, 2}, 3)
	if want := []float64{0.5 + 100 + 1 + 100, 0.25 + 200 + 2 + 200}; !sameBits(dst, want) {
		t.Fatalf("addRows = %v, want %v", dst, want)
	}
	addToRows(rows, []int32{1, 1}, 3, []float64{1, 2})
	if want := []float64{1, 2, 3, 12, 24, 30, 100, 200, 300}; !sameBits(rows, want) {
		t.Fatalf("addToRows = %v, want %v", rows, want)
	}
}

func TestRowKernelsCheckBounds(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"row past the end", func() { addRows(make([]float64, 3), make([]float64, 6), []int32{2}, 3) }},
		{"negative row", func() { addToRows(make([]float64, 6), []int32{-1}, 3, make([]float64, 3)) }},
		{"wider than the stride", func() { addRows(make([]float64, 4), make([]float64, 12), []int32{0}, 3) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			c.f()
		})
	}
}
