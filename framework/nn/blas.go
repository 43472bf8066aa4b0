// blas.go holds the numeric type constraint, gemm — the one entry point for
// every matrix product in the package — and the small element-wise helpers
// the layers share.

package nn

import (
	"fmt"
	"math"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// Float is the element type of every layer: float32 in production, float64
// for gradient checks. Named types over either are accepted.
type Float interface{ ~float32 | ~float64 }

// gemm tiles keep every call into gonum on its serial path: gonum's Sgemm and
// Dgemm start goroutines once C has at least four 64×64 blocks, which would
// allocate in the hot loop and compete with the caller's own parallelism
// (one sentence per goroutine). Tiling C never changes a result: every
// element of C is still accumulated over the whole of k in the same order.
const (
	tileRows = 64
	tileCols = 192
)

// matrix is an operand of gemm: a rows×cols matrix X over row-major
// storage, or X = Sᵀ for a stored cols×rows matrix S when trans is set.
type matrix[T Float] struct {
	data       []T
	rows, cols int  // of X, as gemm multiplies it
	ld         int  // the stride between stored rows (BLAS's lda)
	trans      bool // data holds Xᵀ
}

// mat is the rows×cols matrix stored row after row in data.
func mat[T Float](data []T, rows, cols int) matrix[T] {
	return matrix[T]{data: data, rows: rows, cols: cols, ld: cols}
}

// T is x transposed, over the same storage.
func (x matrix[T]) T() matrix[T] {
	x.rows, x.cols, x.trans = x.cols, x.rows, !x.trans
	return x
}

// gemm computes C = alpha·A·B + beta·C for an m×k A, a k×n B and an m×n
// C that is not transposed (the BLAS routine, its shapes and strides
// carried by the operands). It is the only matrix product in the
// package, so the kernel can be swapped in one place.
//
// It dispatches on the width of T — 4 bytes to blas32's Sgemm, 8 bytes to
// blas64's Dgemm, through blas32.Implementation() and
// blas64.Implementation(), so blas32.Use and blas64.Use swap the kernel —
// which covers float32, float64 and named types over them alike (a switch on
// the dynamic type would miss the named types). With beta = 0, C need not be
// initialised. Mismatched shapes are programmer errors and panic (short
// storage panics inside gonum).
func gemm[T Float](alpha T, a, b matrix[T], beta T, c matrix[T]) {
	m, n, k := c.rows, c.cols, a.cols
	if a.rows != m || b.rows != k || b.cols != n || c.trans {
		panic(fmt.Sprintf("nn: gemm of %d×%d by %d×%d into %d×%d (transposed %v)", a.rows, a.cols, b.rows, b.cols, m, n, c.trans))
	}
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		scaleRows(c.data, m, n, c.ld, beta)
		return
	}
	tA, tB := blas.NoTrans, blas.NoTrans
	if a.trans {
		tA = blas.Trans
	}
	if b.trans {
		tB = blas.Trans
	}
	lda, ldb, ldc := a.ld, b.ld, c.ld
	for i0 := 0; i0 < m; i0 += tileRows {
		mi := min(tileRows, m-i0)
		ai := i0 * lda // row i0 of A
		if a.trans {
			ai = i0 // column i0 of the stored k×m matrix
		}
		for j0 := 0; j0 < n; j0 += tileCols {
			nj := min(tileCols, n-j0)
			bj := j0 // column j0 of the stored k×n matrix
			if b.trans {
				bj = j0 * ldb // row j0 of the stored n×k matrix
			}
			cij := c.data[i0*ldc+j0:]
			if unsafe.Sizeof(alpha) == 4 {
				blas32.Implementation().Sgemm(tA, tB, mi, nj, k, float32(alpha), as32(a.data[ai:]), lda,
					as32(b.data[bj:]), ldb, float32(beta), as32(cij), ldc)
			} else {
				blas64.Implementation().Dgemm(tA, tB, mi, nj, k, float64(alpha), as64(a.data[ai:]), lda,
					as64(b.data[bj:]), ldb, float64(beta), as64(cij), ldc)
			}
		}
	}
}

// scaleRows sets C = beta·C for an m×n matrix C with leading dimension ldc
// (C = 0 when beta is 0, whatever C held).
func scaleRows[T Float](c []T, m, n, ldc int, beta T) {
	if beta == 1 {
		return
	}
	for i := range m {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// as32 views a slice of a 4-byte Float as []float32 (same memory).
func as32[T Float](s []T) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// as64 views a slice of an 8-byte Float as []float64 (same memory).
func as64[T Float](s []T) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// grow returns s resliced to length n, reallocating only when its capacity
// is short. The contents are unspecified: callers that need zeros clear.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// charStarts lays n words end to end as character positions, an empty
// word taking one (padding) position, as both character encoders do: it
// returns start, grown to n+1, whose element [t] is word t's first
// position and [n] the total, and that total.
func charStarts(start []int, words [][]int32) ([]int, int) {
	start = grow(start, len(words)+1)
	N := 0
	for t, w := range words {
		start[t] = N
		N += max(len(w), 1)
	}
	start[len(words)] = N
	return start, N
}

// sigmoid is 1/(1+e^−x), evaluated in float64.
func sigmoid[T Float](x T) T {
	return T(1 / (1 + math.Exp(-float64(x))))
}

// tanh is the hyperbolic tangent, evaluated in float64.
func tanh[T Float](x T) T {
	return T(math.Tanh(float64(x)))
}

// axpy sets y += alpha·x element-wise (len(x) elements).
func axpy[T Float](alpha T, x, y []T) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += alpha * v
	}
}

// addTo sets y += x element-wise (len(x) elements).
func addTo[T Float](x, y []T) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += v
	}
}

// addColumnSums adds to s (length cols) the column sums of the [rows][cols]
// matrix a, summing rows in order.
func addColumnSums[T Float](s, a []T, rows, cols int) {
	for r := range rows {
		addTo(a[r*cols:(r+1)*cols], s)
	}
}

// fillRows sets every one of the rows rows of the [rows][len(v)] matrix a to v.
func fillRows[T Float](a, v []T, rows int) {
	w := len(v)
	for r := range rows {
		copy(a[r*w:(r+1)*w], v)
	}
}

// span is a block of columns of a row-major matrix: rows are stride long and
// the block starts at column off.
type span struct{ stride, off int }

// copyCols copies a [rows][width] block: row r of dst, from column d.off,
// gets row r of src, from column s.off.
func copyCols[T Float](dst []T, d span, src []T, s span, rows, width int) {
	for r := range rows {
		copy(dst[r*d.stride+d.off:r*d.stride+d.off+width], src[r*s.stride+s.off:r*s.stride+s.off+width])
	}
}
