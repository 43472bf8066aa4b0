// helpers_test.go holds the finite-difference machinery the gradient tests
// share: random data, the central-difference check, and a driver that
// checks a layer's input and parameter gradients at once.

package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

func randVec(rng *rand.Rand, n int, scale float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = scale * (2*rng.Float64() - 1)
	}
	return v
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// fdStep and fdTol: central differences in float64 have truncation error
// ~h²·f‴ ≈ 1e-10 and rounding error ~ε·|f|/h ≈ 1e-11 here, so a relative
// error of 1e-6 leaves a wide margin while catching any real mistake
// (a wrong term is off by O(1)).
const (
	fdStep = 1e-5
	fdTol  = 1e-6
)

// fdCheck compares analytic[i] with the central difference of loss as x[i]
// moves by ±fdStep, for every i, and fails when the relative error
// |a−n|/max(|a|, |n|, 1e-3) exceeds fdTol. Unless zeroOK, it also fails
// when every gradient is ~0, which would make the check vacuous.
func fdCheck(t *testing.T, what string, x, analytic []float64, loss func() float64, zeroOK bool) {
	t.Helper()
	if len(x) != len(analytic) {
		t.Fatalf("%s: %d values, %d gradients", what, len(x), len(analytic))
	}
	worst, big := 0.0, 0.0
	for i := range x {
		save := x[i]
		x[i] = save + fdStep
		fp := loss()
		x[i] = save - fdStep
		fm := loss()
		x[i] = save
		num := (fp - fm) / (2 * fdStep)
		rel := math.Abs(num-analytic[i]) / math.Max(1e-3, math.Max(math.Abs(num), math.Abs(analytic[i])))
		if rel > fdTol {
			t.Errorf("%s[%d]: analytic %.10g, finite difference %.10g (relative error %.2g)", what, i, analytic[i], num, rel)
		}
		worst, big = math.Max(worst, rel), math.Max(big, math.Abs(analytic[i]))
	}
	if big < 1e-6 && !zeroOK {
		t.Errorf("%s: every gradient is ~0 (max %g): the check says nothing", what, big)
	}
	t.Logf("%s: %d values, worst relative error %.2g", what, len(x), worst)
}

// checkLayer checks a layer by finite differences on loss = Σ E⊙y with a
// random E: fwd runs Forward and returns y; bwd runs Backward with dy = E
// into g and returns ∂loss/∂x (nil when the input has no gradient); x is
// the perturbable input (nil likewise). Every parameter of ps is checked;
// those named in zero may legitimately have an all-zero gradient.
func checkLayer(t *testing.T, ps *Params[float64], x []float64, fwd func() []float64, bwd func(g *Grads[float64], dy []float64) []float64, zero ...string) {
	t.Helper()
	y := fwd()
	E := randVec(newRNG(99), len(y), 1)
	g := ps.NewGrads()
	dx := append([]float64(nil), bwd(g, E)...)
	ps.Reduce([]*Grads[float64]{g})
	loss := func() float64 { return dot(E, fwd()) }
	if x != nil {
		fdCheck(t, "input", x, dx, loss, false)
	}
	for _, p := range ps.List() {
		fdCheck(t, p.Name, p.W, p.G, loss, slices.Contains(zero, p.Name))
	}
}

// randomised returns a Params' weights re-drawn at scale (biases too, so
// that zero-initialised ones are exercised).
func randomise(ps *Params[float64], rng *rand.Rand, scale float64) {
	for _, p := range ps.List() {
		copy(p.W, randVec(rng, len(p.W), scale))
	}
}
