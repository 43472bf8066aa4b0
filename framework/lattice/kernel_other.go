//go:build !amd64

package lattice

// hasAVX is false off amd64: the portable kernels run.
const hasAVX = false

func forward(dst, prev, t []float64, lp int)            { forwardGo(dst, prev, t, lp) }
func backward(dst, t, x []float64, lp int, inv float64) { backwardGo(dst, t, x, lp, inv) }
func outer(acc, a, q []float64, lp int)                 { outerGo(acc, a, q, lp) }
func expShifted(dst, x []float64, shift float64)        { expShiftedGo(dst, x, shift) }

func maxPlus(prev, tr []float64) (float64, int32) { return maxPlusGo(prev, tr) }

// hasAVX512 is false off amd64: no chain chooses the wide step.
const hasAVX512 = false

// viterbiStep has no portable form; Chain.wide is never set off amd64.
func viterbiStep(cur []float64, bp []int32, prev, trans, st []float64) {
	panic("lattice: the wide Viterbi step runs on amd64 only")
}
