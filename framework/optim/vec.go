package optim

import "math"

// The explicit float64 conversions below are not redundant: they force
// each product to be rounded before it is added, which stops the compiler
// from fusing multiply-adds on some architectures (arm64, ppc64, s390x)
// and not on others. Without them the same run could differ in the last
// bit between machines, and Minimize promises identical bits.

func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var sum float64
	for i, v := range a {
		sum += float64(v * b[i])
	}
	return sum
}

func norm2(a []float64) float64 { return math.Sqrt(dot(a, a)) }

func norm1(a []float64) float64 {
	var sum float64
	for _, v := range a {
		sum += math.Abs(v)
	}
	return sum
}

// axpy sets y += alpha*x.
func axpy(alpha float64, x, y []float64) {
	x = x[:len(y)]
	for i := range y {
		y[i] += float64(alpha * x[i])
	}
}

func scale(alpha float64, x []float64) {
	for i := range x {
		x[i] *= alpha
	}
}

// negate sets dst = -src.
func negate(dst, src []float64) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = -src[i]
	}
}

// pseudoGradient writes into pg the OWL-QN pseudo-gradient of
// f(x) + l1*||x||_1 given the gradient g of f: the one-sided derivative
// that decreases the objective fastest, or 0 where neither side descends.
func pseudoGradient(pg, x, g []float64, l1 float64) {
	x, g = x[:len(pg)], g[:len(pg)]
	for i, xi := range x {
		switch {
		case xi > 0:
			pg[i] = g[i] + l1
		case xi < 0:
			pg[i] = g[i] - l1
		case g[i]+l1 < 0:
			pg[i] = g[i] + l1
		case g[i]-l1 > 0:
			pg[i] = g[i] - l1
		default:
			pg[i] = 0
		}
	}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
