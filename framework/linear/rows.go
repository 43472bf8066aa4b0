package linear

// The row kernels: adding whole rows of L weights (or of L marginals) at
// once, for the attributes that score many labels (see HotRows). Both add
// every column in the order of idx, one addition per row, so the AVX
// forms in rows_amd64.s — four columns per instruction, no FMA — give the
// bits of these portable loops, which give the bits of the sparse loops
// they replace (adding the zero of a label an attribute does not score
// changes nothing: the sums start at +0 and x + 0 = x).

// addRowsGo adds rows idx[0], idx[1], … of rows (stride apart) to dst:
// dst[c] += rows[r*stride+c] for c < len(dst), r in the order of idx.
func addRowsGo(dst, rows []float64, idx []int32, stride int) {
	for _, r := range idx {
		src := rows[int(r)*stride : int(r)*stride+len(dst)]
		for c := range dst {
			dst[c] += src[c]
		}
	}
}

// addToRowsGo adds src to rows idx[0], idx[1], … of rows (stride apart):
// rows[r*stride+c] += src[c] for c < len(src), r in the order of idx.
func addToRowsGo(rows []float64, idx []int32, stride int, src []float64) {
	for _, r := range idx {
		dst := rows[int(r)*stride : int(r)*stride+len(src)]
		for c := range dst {
			dst[c] += src[c]
		}
	}
}

// checkRows panics unless every row of idx, cols wide, lies within rows
// of length n: the assembly kernels index memory unchecked.
func checkRows(cols, n int, idx []int32, stride int) {
	if cols > stride {
		panic("linear: row kernel wider than its stride")
	}
	for _, r := range idx {
		if r < 0 || int(r)*stride+cols > n {
			panic("linear: row kernel index out of range")
		}
	}
}
