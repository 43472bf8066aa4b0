// blas_test.go checks gemm against a naive triple loop for every
// transposition, both widths, strided operands and shapes larger than a
// tile, that mismatched shapes panic, and that it never allocates
// (gonum's parallel path would).

package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// naiveGemm is C = alpha·A·B + beta·C by the definition, in float64.
func naiveGemm(alpha float64, a, b matrix[float64], beta float64, c matrix[float64]) {
	for i := range c.rows {
		for j := range c.cols {
			var s float64
			for l := range a.cols {
				s += a.at(i, l) * b.at(l, j)
			}
			c.data[i*c.ld+j] = alpha*s + beta*c.data[i*c.ld+j]
		}
	}
}

// at is element (i, j) of x.
func (x matrix[T]) at(i, j int) T {
	if x.trans {
		return x.data[j*x.ld+i]
	}
	return x.data[i*x.ld+j]
}

// strided is mat with leading dimension ld.
func strided[T Float](data []T, rows, cols, ld int) matrix[T] {
	x := mat(data, rows, cols)
	x.ld = ld
	return x
}

// f32 is x over a float32 copy of its storage.
func f32(x matrix[float64]) matrix[float32] {
	return matrix[float32]{data: toF32(x.data), rows: x.rows, cols: x.cols, ld: x.ld, trans: x.trans}
}

// operand is a random rows×cols operand, stored transposed when trans,
// with a leading dimension one wider than needed, to exercise strides.
func operand(rng *rand.Rand, rows, cols int, trans bool) matrix[float64] {
	if trans {
		return operand(rng, cols, rows, false).T()
	}
	return strided(randVec(rng, max(rows*(cols+1), 1), 1), rows, cols, cols+1)
}

func TestGemmMatchesNaive(t *testing.T) {
	rng := newRNG(21)
	for _, sh := range [][3]int{{1, 1, 1}, {3, 5, 2}, {1, 400, 100}, {70, 200, 33}, {130, 9, 65}, {4, 7, 0}} {
		m, n, k := sh[0], sh[1], sh[2]
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				for _, beta := range []float64{0, 1, 0.5} {
					a, b := operand(rng, m, k, tA), operand(rng, k, n, tB)
					c0 := operand(rng, m, n, false)
					want := strided(append([]float64(nil), c0.data...), m, n, c0.ld)
					naiveGemm(0.7, a, b, beta, want)
					c := strided(append([]float64(nil), c0.data...), m, n, c0.ld)
					gemm(0.7, a, b, beta, c)
					c32 := f32(c0)
					gemm(float32(0.7), f32(a), f32(b), float32(beta), c32)
					for i := range want.data {
						if math.Abs(c.data[i]-want.data[i]) > 1e-12*(1+float64(k)) {
							t.Fatalf("float64 %v tA=%v tB=%v beta=%v: c[%d] = %v, want %v", sh, tA, tB, beta, i, c.data[i], want.data[i])
						}
						if math.Abs(float64(c32.data[i])-want.data[i]) > 1e-5*(1+float64(k)) {
							t.Fatalf("float32 %v tA=%v tB=%v beta=%v: c[%d] = %v, want %v", sh, tA, tB, beta, i, c32.data[i], want.data[i])
						}
					}
				}
			}
		}
	}
}

// TestGemmShapes: operands whose shapes do not chain panic.
func TestGemmShapes(t *testing.T) {
	a, b, c := make([]float64, 6), make([]float64, 6), make([]float64, 4)
	for name, f := range map[string]func(){
		"inner":      func() { gemm(1, mat(a, 2, 3), mat(b, 2, 3), 0, mat(c, 2, 2)) },
		"rows":       func() { gemm(1, mat(a, 3, 2), mat(b, 2, 3), 0, mat(c, 2, 2)) },
		"transposed": func() { gemm(1, mat(a, 2, 3), mat(b, 2, 3).T(), 0, mat(c, 2, 2).T()) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
	gemm(1, mat(a, 2, 3), mat(b, 2, 3).T(), 0, mat(c, 2, 2)) // chains
}

func toF32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// TestGemmNoAllocs checks that shapes gonum would run in parallel (many
// 64×64 blocks) stay serial and allocation-free.
func TestGemmNoAllocs(t *testing.T) {
	m, n, k := 300, 400, 200
	a, b, c := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
	allocs := testing.AllocsPerRun(3, func() {
		gemm(1, mat(a, m, k), mat(b, k, n), 0, mat(c, m, n))
		gemm(1, mat(a, k, m).T(), mat(b, n, k).T(), 1, mat(c, m, n))
	})
	if allocs != 0 {
		t.Errorf("gemm allocates %v times per call", allocs)
	}
}

// TestNamedFloat checks that gemm dispatches named float types by width.
func TestNamedFloat(t *testing.T) {
	type f32 float32
	a, b, c := []f32{1, 2, 3, 4}, []f32{5, 6, 7, 8}, make([]f32, 4)
	gemm(1, mat(a, 2, 2), mat(b, 2, 2), 0, mat(c, 2, 2))
	if want := []f32{19, 22, 43, 50}; c[0] != want[0] || c[1] != want[1] || c[2] != want[2] || c[3] != want[3] {
		t.Errorf("got %v, want %v", c, want)
	}
}
