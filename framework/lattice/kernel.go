package lattice

import "math"

// The three inner loops of the scaled forward-backward, each written once
// in portable Go (the *Go functions below) and, on amd64 with AVX, once in
// assembly (kernel_amd64.s). Both add and multiply the same numbers in the
// same order, so every build gives the same bits: the assembly only does
// four columns per instruction. The order is the one the pass had when it
// called gonum's floats.AddScaled and floats.Dot on amd64 (whose Dot keeps
// four partial sums), so models trained before these kernels existed
// retrain to the same bytes. Products are converted with float64() before
// they are added, which forbids the compiler to fuse them into an FMA
// (it does on arm64, and would round differently).
//
// Matrices here have rows of lp = L rounded up to a multiple of four
// entries; the padding is zero.

// stride returns the padded row length of a kernel matrix over l labels.
func stride(l int) int { return (l + 3) &^ 3 }

// forwardGo sets dst[c] = Σp prev[p]·t[p*lp+c] for every column c < lp,
// summing in increasing p and skipping p whose prev[p] is 0 (then every
// term is 0 and the sum unchanged, unless t holds an Inf or NaN).
func forwardGo(dst, prev, t []float64, lp int) {
	dst = dst[:lp]
	for c := range dst {
		dst[c] = 0
	}
	for p, a := range prev {
		if a == 0 {
			continue
		}
		row := t[p*lp : (p+1)*lp]
		row = row[:len(dst)]
		for c, v := range row {
			dst[c] += float64(a * v)
		}
	}
}

// backwardGo sets dst[p] = dot(t[p*lp:p*lp+len(x)], x)·inv for every row
// p < len(dst).
func backwardGo(dst, t, x []float64, lp int, inv float64) {
	l := len(x)
	for p := range dst {
		dst[p] = dot4(t[p*lp:p*lp+l], x) * inv
	}
}

// dot4 is Σ a[k]·b[k] in the order of gonum's amd64 DotUnitary: four
// partial sums over whole blocks of four, the last len%4 products added
// to the first, then (s1+s3) + (s0+s2).
func dot4(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	k := 0
	for ; k+4 <= len(a); k += 4 {
		s0 += float64(a[k] * b[k])
		s1 += float64(a[k+1] * b[k+1])
		s2 += float64(a[k+2] * b[k+2])
		s3 += float64(a[k+3] * b[k+3])
	}
	for ; k < len(a); k++ {
		s0 += float64(a[k] * b[k])
	}
	return (s1 + s3) + (s0 + s2)
}

// outerGo adds a[p]·q[c] to acc[p*lp+c] for every row p < len(a) and
// column c < lp, skipping rows whose a[p] is 0.
func outerGo(acc, a, q []float64, lp int) {
	q = q[:lp]
	for p, ap := range a {
		if ap == 0 {
			continue
		}
		row := acc[p*lp : (p+1)*lp]
		row = row[:len(q)]
		for c, v := range q {
			row[c] += float64(ap * v)
		}
	}
}

// checkKernel panics unless the slices hold what the kernels read and
// write: the assembly does not check bounds.
func checkKernel(rows, cols, lp int, mats ...[]float64) {
	if lp%4 != 0 || cols > lp {
		panic("lattice: kernel stride")
	}
	for _, m := range mats {
		if len(m) < rows*lp {
			panic("lattice: kernel matrix too short")
		}
	}
}

// expShiftedGo sets dst[k] = math.Exp(x[k] - shift).
func expShiftedGo(dst, x []float64, shift float64) {
	dst = dst[:len(x)]
	for k, v := range x {
		dst[k] = math.Exp(v - shift)
	}
}

// maxPlusGo returns the largest prev[p]+tr[p] and the lowest p reaching
// it: one scan, strictly greater, so ties stay with the lowest p; -Inf
// and 0 when no sum beats -Inf (NaN never does).
func maxPlusGo(prev, tr []float64) (float64, int32) {
	tr = tr[:len(prev)]
	best, arg := math.Inf(-1), int32(0)
	for p, v := range prev {
		if v += tr[p]; v > best {
			best, arg = v, int32(p)
		}
	}
	return best, arg
}
