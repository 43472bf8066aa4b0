//go:build !amd64

package linear

// hasAVX is false off amd64: the portable row kernels run.
const hasAVX = false

func addRows(dst, rows []float64, idx []int32, stride int) {
	addRowsGo(dst, rows, idx, stride)
}

func addToRows(rows []float64, idx []int32, stride int, src []float64) {
	addToRowsGo(rows, idx, stride, src)
}
