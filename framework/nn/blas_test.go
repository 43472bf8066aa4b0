// blas_test.go checks gemm against a naive triple loop for every
// transposition, both widths, strided operands and shapes larger than a
// tile, and that it never allocates (gonum's parallel path would).

package nn

import (
	"math"
	"testing"
)

// naiveGemm is C = alpha·op(A)·op(B) + beta·C by the definition, in
// float64. Like gemm, it keeps the 13 BLAS parameters.
func naiveGemm(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	for i := range m {
		for j := range n {
			var s float64
			for l := range k {
				ai, bi := i*lda+l, l*ldb+j
				if tA {
					ai = l*lda + i
				}
				if tB {
					bi = j*ldb + l
				}
				av, bv := a[ai], b[bi]
				s += av * bv
			}
			c[i*ldc+j] = alpha*s + beta*c[i*ldc+j]
		}
	}
}

func TestGemmMatchesNaive(t *testing.T) {
	rng := newRNG(21)
	for _, sh := range [][3]int{{1, 1, 1}, {3, 5, 2}, {1, 400, 100}, {70, 200, 33}, {130, 9, 65}, {4, 7, 0}} {
		m, n, k := sh[0], sh[1], sh[2]
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				for _, beta := range []float64{0, 1, 0.5} {
					// Leading dimensions one wider than needed, to exercise strides.
					lda, ldb, ldc := k+1, n+1, n+1
					if tA {
						lda = m + 1
					}
					if tB {
						ldb = k + 1
					}
					ra, rb := m, k
					if tA {
						ra = k
					}
					if tB {
						rb = n
					}
					a, b := randVec(rng, max(ra*lda, 1), 1), randVec(rng, max(rb*ldb, 1), 1)
					c0 := randVec(rng, m*ldc, 1)
					want := append([]float64(nil), c0...)
					naiveGemm(tA, tB, m, n, k, 0.7, a, lda, b, ldb, beta, want, ldc)
					c := append([]float64(nil), c0...)
					gemm(tA, tB, m, n, k, 0.7, a, lda, b, ldb, beta, c, ldc)
					c32 := toF32(c0)
					gemm(tA, tB, m, n, k, float32(0.7), toF32(a), lda, toF32(b), ldb, float32(beta), c32, ldc)
					for i := range want {
						if math.Abs(c[i]-want[i]) > 1e-12*(1+float64(k)) {
							t.Fatalf("float64 %v tA=%v tB=%v beta=%v: c[%d] = %v, want %v", sh, tA, tB, beta, i, c[i], want[i])
						}
						if math.Abs(float64(c32[i])-want[i]) > 1e-5*(1+float64(k)) {
							t.Fatalf("float32 %v tA=%v tB=%v beta=%v: c[%d] = %v, want %v", sh, tA, tB, beta, i, c32[i], want[i])
						}
					}
				}
			}
		}
	}
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
		gemm(false, false, m, n, k, 1, a, k, b, n, 0, c, n)
		gemm(true, true, m, n, k, 1, a, m, b, k, 1, c, n)
	})
	if allocs != 0 {
		t.Errorf("gemm allocates %v times per call", allocs)
	}
}

// TestNamedFloat checks that gemm dispatches named float types by width.
func TestNamedFloat(t *testing.T) {
	type f32 float32
	a, b, c := []f32{1, 2, 3, 4}, []f32{5, 6, 7, 8}, make([]f32, 4)
	gemm(false, false, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2)
	if want := []f32{19, 22, 43, 50}; c[0] != want[0] || c[1] != want[1] || c[2] != want[2] || c[3] != want[3] {
		t.Errorf("got %v, want %v", c, want)
	}
}
