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

// dot32 and axpy32 are dot and axpy with a float32 vector (the history
// pairs under Settings.Float32History). Four partial sums break the
// dependency chain of one running sum, which bounds dot on one core; the
// float64 path keeps its single sum, whose bits the models of every
// other run depend on.
func dot32(a []float32, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += float64(float64(a[i]) * b[i])
		s1 += float64(float64(a[i+1]) * b[i+1])
		s2 += float64(float64(a[i+2]) * b[i+2])
		s3 += float64(float64(a[i+3]) * b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += float64(float64(a[i]) * b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy32 sets y += alpha*x.
func axpy32(alpha float64, x []float32, y []float64) {
	x = x[:len(y)]
	for i := range y {
		y[i] += float64(alpha * float64(x[i]))
	}
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
