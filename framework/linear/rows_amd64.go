package linear

import "golang.org/x/sys/cpu"

// hasAVX is whether this processor runs the AVX row kernels; a fact of
// the hardware, read once (GODEBUG=cpu.avx=off turns it off), as in
// package lattice.
var hasAVX = cpu.X86.HasAVX

// hasAVX512 is whether it runs addRowsAVX512 (GODEBUG=cpu.avx512f=off
// turns it off).
var hasAVX512 = cpu.X86.HasAVX512F

//go:noescape
func addRowsAVX512(dst, rows []float64, idx []int32, stride int)

//go:noescape
func addRowsAVX(dst, rows []float64, idx []int32, stride int)

//go:noescape
func addToRowsAVX(rows []float64, idx []int32, stride int, src []float64)

// addRows is addRowsGo, in passes of 32 columns (four registers of
// eight) on AVX-512, of 16 and then 4 on AVX.
func addRows(dst, rows []float64, idx []int32, stride int) {
	checkRows(len(dst), len(rows), idx, stride)
	switch {
	case hasAVX512:
		addRowsAVX512(dst, rows, idx, stride)
	case hasAVX:
		addRowsAVX(dst, rows, idx, stride)
	default:
		addRowsGo(dst, rows, idx, stride)
	}
}

// addToRows is addToRowsGo, four columns at a time on AVX.
func addToRows(rows []float64, idx []int32, stride int, src []float64) {
	checkRows(len(src), len(rows), idx, stride)
	if hasAVX {
		addToRowsAVX(rows, idx, stride, src)
		return
	}
	addToRowsGo(rows, idx, stride, src)
}
