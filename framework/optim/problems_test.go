package optim

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// Test objectives and helpers shared by the tests and benchmarks.

// quadratic returns f(x) = ½xᵀAx - bᵀx with gradient Ax - b; A is dense
// and row-major.
func quadratic(a [][]float64, b []float64) Func {
	return func(x, grad []float64) float64 {
		var f float64
		for i, row := range a {
			ax := dot(row, x)
			grad[i] = ax - b[i]
			f += x[i] * (0.5*ax - b[i])
		}
		return f
	}
}

// randomSPD returns a random symmetric positive definite n×n matrix with
// eigenvalues bounded away from zero, and a random right-hand side.
func randomSPD(rng *rand.Rand, n int) ([][]float64, []float64) {
	m := make([][]float64, n)
	for i := range m {
		m[i] = make([]float64, n)
		for j := range m[i] {
			m[i][j] = rng.NormFloat64()
		}
	}
	a := make([][]float64, n)
	for i := range a {
		a[i] = make([]float64, n)
		for j := range a[i] {
			a[i][j] = dot(m[i], m[j]) / float64(n)
		}
		a[i][i] += 0.5
	}
	b := make([]float64, n)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	return a, b
}

// solveSPD solves Ax = b by Cholesky factorization.
func solveSPD(a [][]float64, b []float64) []float64 {
	n := len(a)
	l := make([][]float64, n)
	for i := range l {
		l[i] = make([]float64, n)
		for j := 0; j <= i; j++ {
			s := a[i][j]
			for k := range j {
				s -= l[i][k] * l[j][k]
			}
			if i == j {
				l[i][i] = math.Sqrt(s)
			} else {
				l[i][j] = s / l[j][j]
			}
		}
	}
	y := make([]float64, n)
	for i := range n {
		s := b[i]
		for k := range i {
			s -= l[i][k] * y[k]
		}
		y[i] = s / l[i][i]
	}
	x := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		s := y[i]
		for k := i + 1; k < n; k++ {
			s -= l[k][i] * x[k]
		}
		x[i] = s / l[i][i]
	}
	return x
}

// rosenbrock is the extended Rosenbrock function Σ 100(x_{2i+1} - x_{2i}²)²
// + (1 - x_{2i})², minimized at all ones; len(x) must be even.
func rosenbrock(x, grad []float64) float64 {
	var f float64
	for i := 0; i < len(x); i += 2 {
		t1 := 1 - x[i]
		t2 := 10 * (x[i+1] - x[i]*x[i])
		grad[i+1] = 20 * t2
		grad[i] = -2 * (x[i]*grad[i+1] + t1)
		f += t1*t1 + t2*t2
	}
	return f
}

// rosenbrockStart is the standard starting point (-1.2, 1, -1.2, 1, ...).
func rosenbrockStart(n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = 1
		if i%2 == 0 {
			x[i] = -1.2
		}
	}
	return x
}

// separable returns f(x) = Σ ½a_i(x_i - c_i)².
func separable(a, c []float64) Func {
	return func(x, grad []float64) float64 {
		var f float64
		for i, xi := range x {
			r := xi - c[i]
			grad[i] = a[i] * r
			f += 0.5 * a[i] * r * r
		}
		return f
	}
}

// logistic returns the logistic loss Σ log(1 + exp(-y_i w·x_i)) for labels
// y_i in {-1, +1}.
func logistic(xs [][]float64, ys []float64) Func {
	return func(w, grad []float64) float64 {
		clear(grad)
		var f float64
		for i, xi := range xs {
			m := ys[i] * dot(w, xi)
			// log(1+e^-m) and its derivative, stable for large |m|.
			var p float64 // 1/(1+e^m) = sigmoid(-m)
			if m > 0 {
				e := math.Exp(-m)
				f += math.Log1p(e)
				p = e / (1 + e)
			} else {
				e := math.Exp(m)
				f += -m + math.Log1p(e)
				p = 1 / (1 + e)
			}
			axpy(-ys[i]*p, xi, grad)
		}
		return f
	}
}

// logisticData draws a random classification problem whose true weight
// vector has only a few non-zeros.
func logisticData(rng *rand.Rand, samples, features int) ([][]float64, []float64) {
	w := make([]float64, features)
	for i := range 5 {
		w[i*features/5] = 2 * rng.NormFloat64()
	}
	xs := make([][]float64, samples)
	ys := make([]float64, samples)
	for i := range xs {
		xs[i] = make([]float64, features)
		for j := range xs[i] {
			xs[i][j] = rng.NormFloat64()
		}
		ys[i] = -1
		if rng.Float64() < 1/(1+math.Exp(-dot(w, xs[i]))) {
			ys[i] = 1
		}
	}
	return xs, ys
}

// onceChecker wraps a Func and fails the test if it is ever called twice
// at the same point (bit for bit).
type onceChecker struct {
	t    testing.TB
	f    Func
	seen map[string]int
	n    int
}

func newOnceChecker(t testing.TB, f Func) *onceChecker {
	return &onceChecker{t: t, f: f, seen: make(map[string]int)}
}

func (c *onceChecker) eval(x, grad []float64) float64 {
	c.n++
	key := string(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(x))), 8*len(x)))
	if prev, ok := c.seen[key]; ok {
		c.t.Errorf("evaluation %d repeats the point of evaluation %d", c.n, prev)
	}
	c.seen[key] = c.n
	return c.f(x, grad)
}

func maxAbsDiff(a, b []float64) float64 {
	var d float64
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}
