package lattice

import (
	"math"

	"golang.org/x/sys/cpu"
)

// hasVectorExp is whether expBlocksAVX can run, and runs math.Exp's own
// path: math takes its FMA path when the processor has AVX and FMA, and
// the vector form needs AVX2 on top. Because GODEBUG=cpu.fma=off can turn
// math's FMA path off behind x/sys/cpu's back, the vector form must also
// agree with math.Exp on a set of probes, where the two paths differ.
var hasVectorExp = cpu.X86.HasAVX2 && cpu.X86.HasFMA && vectorExpAgrees()

func vectorExpAgrees() bool {
	var x, got [256]float64
	for k := range x {
		x[k] = -700 + 5.4321*float64(k)
	}
	if expBlocksAVX(got[:], x[:], 0) != len(x) {
		return false
	}
	for k, v := range x {
		if got[k] != math.Exp(v) {
			return false
		}
	}
	return true
}

//go:noescape
func expBlocksAVX(dst, x []float64, shift float64) int

// expShifted sets dst[k] = math.Exp(x[k] - shift), the same bits as that
// loop, four at a time where the processor allows.
func expShifted(dst, x []float64, shift float64) {
	dst = dst[:len(x)]
	if !hasVectorExp {
		expShiftedGo(dst, x, shift)
		return
	}
	for k := 0; k < len(x); {
		k += expBlocksAVX(dst[k:], x[k:], shift)
		if k+4 <= len(x) {
			// A block off math.Exp's main path (an Inf, a NaN, a result
			// near underflow) goes through math.Exp.
			expShiftedGo(dst[k:k+4], x[k:k+4], shift)
			k += 4
			continue
		}
		if k < len(x) {
			if len(x) >= 4 && expBlocksAVX(dst[len(x)-4:], x[len(x)-4:], shift) == 4 {
				// The last, overlapping block: the entries done twice
				// get the same bits twice.
				return
			}
			expShiftedGo(dst[k:], x[k:], shift)
		}
		return
	}
}
