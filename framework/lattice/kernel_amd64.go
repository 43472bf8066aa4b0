package lattice

import "golang.org/x/sys/cpu"

// hasAVX is whether this processor runs the AVX kernels; a fact of the
// hardware, read once, like gonum's own dispatch.
var hasAVX = cpu.X86.HasAVX

// hasAVX512 is whether it runs the AVX-512 kernels (viterbiStep).
var hasAVX512 = cpu.X86.HasAVX512F

//go:noescape
func viterbiStepAVX512(cur []float64, bp []int32, prev, trans, st []float64)

// viterbiStep is one first-order Viterbi position for every label at once
// (the AVX-512 kernel). Only a chain that chose it (Chain.wide, never
// without AVX-512) calls it; it gives the bits of the label-by-label scan.
func viterbiStep(cur []float64, bp []int32, prev, trans, st []float64) {
	l := len(cur)
	if len(bp) < l || len(prev) < l || len(st) < l || len(trans) < l*l {
		panic("lattice: viterbiStep slices too short")
	}
	viterbiStepAVX512(cur, bp, prev, trans, st)
}

//go:noescape
func forwardAVX(dst, prev, t []float64, lp int)

//go:noescape
func backwardAVX(dst, t, x []float64, lp int, inv float64)

//go:noescape
func outerAVX(acc, a, q []float64, lp int)

func forward(dst, prev, t []float64, lp int) {
	checkKernel(len(prev), lp, lp, t)
	if len(dst) < lp {
		panic("lattice: kernel dst too short")
	}
	if hasAVX {
		forwardAVX(dst, prev, t, lp)
		return
	}
	forwardGo(dst, prev, t, lp)
}

func backward(dst, t, x []float64, lp int, inv float64) {
	checkKernel(len(dst), len(x), lp, t)
	if hasAVX {
		backwardAVX(dst, t, x, lp, inv)
		return
	}
	backwardGo(dst, t, x, lp, inv)
}

func outer(acc, a, q []float64, lp int) {
	checkKernel(len(a), lp, lp, acc)
	if len(q) < lp {
		panic("lattice: kernel q too short")
	}
	if hasAVX {
		outerAVX(acc, a, q, lp)
		return
	}
	outerGo(acc, a, q, lp)
}

//go:noescape
func maxPlusAVX(prev, tr []float64) (best float64, arg int)

// maxPlus returns the largest prev[p]+tr[p] and the lowest p reaching it
// (-Inf and 0 when none beats -Inf), as maxPlusGo does.
func maxPlus(prev, tr []float64) (float64, int32) {
	if len(tr) < len(prev) {
		panic("lattice: maxPlus tr shorter than prev")
	}
	if hasAVX {
		best, arg := maxPlusAVX(prev, tr)
		return best, int32(arg)
	}
	return maxPlusGo(prev, tr)
}
