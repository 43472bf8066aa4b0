package optim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

func TestMinimizeSmooth(t *testing.T) {
	a, b := randomSPD(rand.New(rand.NewPCG(1, 2)), 50)
	tests := []smoothCase{
		// Epsilon is kept where the Armijo test can still resolve the
		// decrease in f: far below it the line search runs out of
		// precision, as liblbfgs's does.
		{"quadratic50", quadratic(a, b), make([]float64, 50), solveSPD(a, b), 1e-8, 1e-6},
		{"rosenbrock2", rosenbrock, rosenbrockStart(2), []float64{1, 1}, 1e-10, 1e-6},
		{"rosenbrock10", rosenbrock, rosenbrockStart(10), slices.Repeat([]float64{1}, 10), 1e-10, 1e-6},
	}
	for _, tt := range tests {
		for _, f32 := range []bool{false, true} {
			name := tt.name
			if f32 {
				name += "/float32 history"
			}
			t.Run(name, func(t *testing.T) {
				minimizeSmooth(t, tt, f32)
			})
		}
	}
}

// smoothCase is a smooth function to minimize from start, converging with
// Epsilon eps to within tol of want.
type smoothCase struct {
	name        string
	f           Func
	start, want []float64
	eps, tol    float64
}

// minimizeSmooth minimizes tt.f from tt.start and checks that it
// converges to tt.want: the float32 history changes the path, not where
// it ends.
func minimizeSmooth(t *testing.T, tt smoothCase, f32 bool) {
	c := newOnceChecker(t, tt.f)
	x := slices.Clone(tt.start)
	res, err := Minimize(context.Background(), x, c.eval, Settings{Epsilon: tt.eps, Delta: -1, MaxIterations: 1000, Float32History: f32})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != Converged {
		t.Errorf("status %v, want %v", res.Status, Converged)
	}
	if d := maxAbsDiff(x, tt.want); d > tt.tol {
		t.Errorf("max |x - x*| = %g, want <= %g (result %+v)", d, tt.tol, res)
	}
	if res.Evaluations != c.n {
		t.Errorf("reported %d evaluations, counted %d", res.Evaluations, c.n)
	}
	t.Logf("%+v", res)
}

func TestOWLQNSeparable(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 40
	a, c := make([]float64, n), make([]float64, n)
	for i := range n {
		a[i] = 0.5 + 4.5*rng.Float64()
		c[i] = 4*rng.Float64() - 2
	}
	for _, lambda := range []float64{0.1, 0.5, 2} {
		t.Run("lambda="+formatFloat(lambda), func(t *testing.T) {
			chk := newOnceChecker(t, separable(a, c))
			x := make([]float64, n)
			for i := range x {
				x[i] = rng.NormFloat64() // start away from the orthant boundaries
			}
			res, err := Minimize(context.Background(), x, chk.eval, Settings{L1: lambda, Epsilon: 1e-8, Delta: -1})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != Converged {
				t.Errorf("status %v, want %v", res.Status, Converged)
			}
			zeros := 0
			for i := range n {
				// Soft thresholding: the closed-form solution.
				want := math.Copysign(math.Max(0, math.Abs(c[i])-lambda/a[i]), c[i])
				if want == 0 {
					zeros++
					if x[i] != 0 {
						t.Errorf("x[%d] = %g, want exactly 0", i, x[i])
					}
				} else if math.Abs(x[i]-want) > 1e-6 {
					t.Errorf("x[%d] = %.10g, want %.10g", i, x[i], want)
				}
			}
			if lambda >= 0.5 && zeros == 0 {
				t.Errorf("no zeros expected; test problem is not sparse enough")
			}
			t.Logf("%+v, %d zeros", res, zeros)
		})
	}
}

func TestOWLQNLogistic(t *testing.T) {
	xs, ys := logisticData(rand.New(rand.NewPCG(5, 6)), 300, 40)
	f := logistic(xs, ys)
	// λ_max is the smallest λ for which w = 0 is optimal.
	g0 := make([]float64, 40)
	f(make([]float64, 40), g0)
	lmax := 0.0
	for _, v := range g0 {
		lmax = math.Max(lmax, math.Abs(v))
	}
	for _, frac := range []float64{0.05, 0.2, 0.5} {
		lambda := frac * lmax
		t.Run("frac="+formatFloat(frac), func(t *testing.T) {
			chk := newOnceChecker(t, f)
			w := make([]float64, 40)
			res, err := Minimize(context.Background(), w, chk.eval, Settings{L1: lambda, Epsilon: 1e-6, Delta: -1, MaxIterations: 2000})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != Converged {
				t.Errorf("status %v, want %v", res.Status, Converged)
			}
			g := make([]float64, 40)
			f(w, g)
			tol := 1e-5 * lmax
			zeros := 0
			for i, wi := range w {
				if wi == 0 {
					zeros++
					if math.Abs(g[i]) > lambda+tol {
						t.Errorf("w[%d] = 0 but |g| = %g > λ = %g", i, math.Abs(g[i]), lambda)
					}
				} else if r := g[i] + math.Copysign(lambda, wi); math.Abs(r) > tol {
					t.Errorf("w[%d] = %g: g + λ sign(w) = %g, want 0", i, wi, r)
				}
			}
			if zeros == 0 || zeros == len(w) {
				t.Errorf("%d of %d weights are zero, want a sparse non-trivial solution", zeros, len(w))
			}
			t.Logf("%+v, %d zeros", res, zeros)
		})
	}
}

func TestDeterministic(t *testing.T) {
	xs, ys := logisticData(rand.New(rand.NewPCG(7, 8)), 200, 30)
	tests := []struct {
		name  string
		f     Func
		start []float64
		s     Settings
	}{
		{"lbfgs", rosenbrock, rosenbrockStart(10), Settings{Epsilon: 1e-12, Delta: -1}},
		{"owlqn", logistic(xs, ys), make([]float64, 30), Settings{L1: 2, Epsilon: 1e-12, Delta: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := func() ([]float64, Result) {
				x := slices.Clone(tt.start)
				res, err := Minimize(context.Background(), x, tt.f, tt.s)
				if err != nil {
					t.Fatal(err)
				}
				return x, res
			}
			x1, r1 := run()
			x2, r2 := run()
			if r1 != r2 && !(math.IsNaN(r1.F) && math.IsNaN(r2.F)) {
				t.Errorf("results differ: %+v vs %+v", r1, r2)
			}
			for i := range x1 {
				if math.Float64bits(x1[i]) != math.Float64bits(x2[i]) {
					t.Fatalf("x[%d] differs: %x vs %x", i, math.Float64bits(x1[i]), math.Float64bits(x2[i]))
				}
			}
		})
	}
}

func TestStatus(t *testing.T) {
	// wrongGradient reports -∇f, so every search direction is uphill.
	wrongGradient := func(x, grad []float64) float64 {
		f := rosenbrock(x, grad)
		scale(-1, grad)
		return f
	}
	// tiny makes the step underflow against x long before MaxLinesearch.
	tests := []struct {
		name  string
		f     Func
		s     Settings
		want  Status
		iters int // -1: don't check
	}{
		{"converged", rosenbrock, Settings{}, Converged, -1},
		{"delta", rosenbrock, Settings{Epsilon: 1e-30, Delta: 0.5, Past: 1}, DeltaReached, -1},
		{"max iterations", rosenbrock, Settings{Epsilon: 1e-30, Delta: -1, MaxIterations: 4}, MaxIterations, 4},
		{"callback", rosenbrock, Settings{Callback: func(it Iteration) bool { return it.K == 3 }}, Stopped, 3},
		{"line search", wrongGradient, Settings{}, LinesearchFailed, 0},
		{"step underflow", wrongGradient, Settings{MaxLinesearch: 1000}, LinesearchFailed, 0},
		{"owlqn line search", wrongGradient, Settings{L1: 1}, LinesearchFailed, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chk := newOnceChecker(t, tt.f)
			start := rosenbrockStart(4)
			x := slices.Clone(start)
			res, err := Minimize(context.Background(), x, chk.eval, tt.s)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tt.want {
				t.Errorf("status %v, want %v", res.Status, tt.want)
			}
			if tt.iters >= 0 && res.Iterations != tt.iters {
				t.Errorf("%d iterations, want %d", res.Iterations, tt.iters)
			}
			// Result.F describes the returned x.
			g := make([]float64, len(x))
			if f := tt.f(x, g) + tt.s.L1*norm1(x); f != res.F {
				t.Errorf("Result.F = %g, objective at x = %g", res.F, f)
			}
			if tt.want == LinesearchFailed && !slices.Equal(x, start) {
				t.Errorf("x = %v after a failed first line search, want the start %v", x, start)
			}
			if tt.s.MaxLinesearch > 100 && res.Evaluations >= tt.s.MaxLinesearch {
				t.Errorf("%d evaluations: step underflow was not detected", res.Evaluations)
			}
			t.Logf("%+v", res)
		})
	}
}

func TestCallbackIteration(t *testing.T) {
	var its []Iteration
	x := rosenbrockStart(2)
	res, err := Minimize(context.Background(), x, rosenbrock, Settings{Callback: func(it Iteration) bool {
		it.X = slices.Clone(it.X)
		its = append(its, it)
		return false
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(its) != res.Iterations {
		t.Fatalf("%d callbacks for %d iterations", len(its), res.Iterations)
	}
	g := make([]float64, 2)
	for i, it := range its {
		if it.K != i+1 {
			t.Errorf("callback %d has K = %d", i, it.K)
		}
		if f := rosenbrock(it.X, g); f != it.F || norm2(it.X) != it.XNorm || norm2(g) != it.GNorm {
			t.Errorf("iteration %d: F, XNorm, GNorm = %g, %g, %g; recomputed %g, %g, %g", it.K, it.F, it.XNorm, it.GNorm, f, norm2(it.X), norm2(g))
		}
		if i > 0 && !(it.F <= its[i-1].F) {
			t.Errorf("objective increased at iteration %d", it.K)
		}
	}
	if last := its[len(its)-1]; last.Evaluations != res.Evaluations || last.F != res.F {
		t.Errorf("last callback %+v disagrees with result %+v", last, res)
	}
}

func TestContext(t *testing.T) {
	t.Run("cancelled during run", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		calls := 0
		f := func(x, grad []float64) float64 {
			calls++
			if calls == 3 {
				cancel()
			}
			return rosenbrock(x, grad)
		}
		x := rosenbrockStart(4)
		res, err := Minimize(ctx, x, f, Settings{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if calls != 3 || res.Evaluations != 3 {
			t.Errorf("%d calls, %d reported evaluations; want 3", calls, res.Evaluations)
		}
		g := make([]float64, len(x))
		if fx := rosenbrock(x, g); fx != res.F {
			t.Errorf("x is not the last accepted point: Result.F = %g, f(x) = %g", res.F, fx)
		}
	})
	t.Run("cancelled before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		calls := 0
		_, err := Minimize(ctx, rosenbrockStart(2), func(x, grad []float64) float64 {
			calls++
			return rosenbrock(x, grad)
		}, Settings{})
		if !errors.Is(err, context.Canceled) || calls != 0 {
			t.Errorf("err = %v after %d calls, want context.Canceled after none", err, calls)
		}
	})
}

func TestInvalid(t *testing.T) {
	tests := []struct {
		name string
		s    Settings
		f    Func
		x    []float64
	}{
		{"negative memory", Settings{Memory: -1}, rosenbrock, rosenbrockStart(2)},
		{"negative L1", Settings{L1: -1}, rosenbrock, rosenbrockStart(2)},
		{"NaN L1", Settings{L1: math.NaN()}, rosenbrock, rosenbrockStart(2)},
		{"negative epsilon", Settings{Epsilon: -1}, rosenbrock, rosenbrockStart(2)},
		{"negative past", Settings{Past: -1}, rosenbrock, rosenbrockStart(2)},
		{"NaN delta", Settings{Delta: math.NaN()}, rosenbrock, rosenbrockStart(2)},
		{"negative max iterations", Settings{MaxIterations: -1}, rosenbrock, rosenbrockStart(2)},
		{"negative max line search", Settings{MaxLinesearch: -1}, rosenbrock, rosenbrockStart(2)},
		{"float32 history with L1", Settings{L1: 1, Float32History: true}, rosenbrock, rosenbrockStart(2)},
		{"nil func", Settings{}, nil, rosenbrockStart(2)},
		{"NaN at start", Settings{}, rosenbrock, []float64{math.NaN(), 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Minimize(context.Background(), tt.x, tt.f, tt.s); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestStatusString(t *testing.T) {
	tests := []struct {
		s    Status
		want string
	}{
		{Converged, "converged"},
		{DeltaReached, "no further improvement"},
		{MaxIterations, "maximum iterations"},
		{Stopped, "stopped by callback"},
		{LinesearchFailed, "line search failed"},
		{Status(0), "Status(0)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.s.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRecall checks the repeated-point detection directly: trial steps
// that round to the same point share one evaluation's outcome, and a step
// that rounds back to the start is reported as such.
func TestRecall(t *testing.T) {
	m := newMinimizer([]float64{0}, rosenbrock, Settings{Memory: 1, Past: 1, MaxLinesearch: 4})
	m.xp[0], m.d[0] = 1, 1
	m.tried[0], m.outcome[0] = 3e-16, inc // x = 1 + 2⁻⁵²
	tests := []struct {
		name          string
		step          float64
		width         float64
		seen, atStart bool
	}{
		{"same step", 3e-16, inc, true, false},
		{"rounds to the same point", 2.5e-16, inc, true, false},
		{"rounds to the start", 1e-16, 0, false, true},
		{"new point", 4e-16, 0, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m.trialPoint(tt.step)
			width, seen, atStart := m.recall(tt.step, 1)
			if width != tt.width || seen != tt.seen || atStart != tt.atStart {
				t.Errorf("recall(%g) = %g, %v, %v; want %g, %v, %v", tt.step, width, seen, atStart, tt.width, tt.seen, tt.atStart)
			}
		})
	}
}

// TestAllocations checks that Minimize allocates only up front: the count
// must not grow with the number of iterations.
func TestAllocations(t *testing.T) {
	const n = 200
	a, c := make([]float64, n), make([]float64, n)
	for i := range n {
		a[i] = math.Pow(10, 4*float64(i)/n) // ill-conditioned, so it takes many iterations
		c[i] = math.Sin(float64(i))
	}
	f := separable(a, c)
	x := make([]float64, n)
	for _, c := range []struct {
		l1  float64
		f32 bool
	}{{0, false}, {0.01, false}, {0, true}} {
		t.Run(fmt.Sprintf("L1=%v/float32=%v", c.l1, c.f32), func(t *testing.T) {
			allocs := func(iters int) float64 {
				s := Settings{L1: c.l1, Epsilon: 1e-30, Delta: -1, MaxIterations: iters, Float32History: c.f32}
				var res Result
				got := testing.AllocsPerRun(5, func() {
					clear(x)
					res, _ = Minimize(context.Background(), x, f, s)
				})
				if res.Iterations != iters {
					t.Fatalf("%d iterations (%v), want %d", res.Iterations, res.Status, iters)
				}
				return got
			}
			few, many := allocs(5), allocs(50)
			t.Logf("%v allocations", many)
			if few != many || many > 4 {
				t.Errorf("allocations: %v for 5 iterations, %v for 50; want equal and small", few, many)
			}
		})
	}
}

// benchSeparable is the benchmarks' separable problem in n variables,
// with curvatures from 1 to 1000.
func benchSeparable(n int) Func {
	a, c := make([]float64, n), make([]float64, n)
	for i := range n {
		a[i] = 1 + float64(i%1000)
		c[i] = math.Cos(float64(i))
	}
	return separable(a, c)
}

func BenchmarkSeparable100k(b *testing.B) {
	const n = 100_000
	f := benchSeparable(n)
	x := make([]float64, n)
	for _, l1 := range []float64{0, 1} {
		b.Run("L1="+formatFloat(l1), func(b *testing.B) {
			var res Result
			for b.Loop() {
				clear(x)
				var err error
				if res, err = Minimize(context.Background(), x, f, Settings{L1: l1, MaxIterations: 100}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.Evaluations), "evals/op")
			b.ReportMetric(float64(res.Iterations), "iters/op")
		})
	}
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// cloneState deep-copies a checkpointed state, as serializing it would.
func cloneState(st *State) *State {
	c := *st
	c.X, c.G, c.D = slices.Clone(st.X), slices.Clone(st.G), slices.Clone(st.D)
	c.SY, c.YS, c.YY, c.PastF = slices.Clone(st.SY), slices.Clone(st.YS), slices.Clone(st.YY), slices.Clone(st.PastF)
	c.SY32 = slices.Clone(st.SY32)
	return &c
}

// TestResume: a minimization resumed from any checkpoint ends exactly —
// to the bit, with the same iteration and evaluation counts — where the
// uninterrupted one does, for L-BFGS and OWL-QN, also with the Past/Delta
// stopping rule in play.
func TestResume(t *testing.T) {
	xs, ys := logisticData(rand.New(rand.NewPCG(7, 8)), 200, 30)
	tests := []struct {
		name  string
		f     Func
		start []float64
		s     Settings
	}{
		{"lbfgs", rosenbrock, rosenbrockStart(10), Settings{Epsilon: 1e-12, Delta: -1}},
		{"lbfgs delta", rosenbrock, rosenbrockStart(10), Settings{Epsilon: 1e-12, Delta: 1e-9, Past: 4}},
		{"lbfgs float32 history", rosenbrock, rosenbrockStart(10), Settings{Epsilon: 1e-12, Delta: 1e-9, Past: 4, Float32History: true}},
		{"owlqn", logistic(xs, ys), make([]float64, 30), Settings{L1: 2, Epsilon: 1e-12, Delta: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var states []*State
			s := tt.s
			s.CheckpointEvery = 3
			s.Checkpoint = func(st *State) error {
				states = append(states, cloneState(st))
				return nil
			}
			want := slices.Clone(tt.start)
			wantRes, err := Minimize(context.Background(), want, tt.f, s)
			if err != nil {
				t.Fatal(err)
			}
			if len(states) < 3 {
				t.Fatalf("%d checkpoints in %d iterations", len(states), wantRes.Iterations)
			}
			for _, st := range states {
				if st.K%3 != 0 {
					t.Errorf("checkpoint after iteration %d, want every 3rd", st.K)
				}
				r := tt.s
				r.Resume = st
				x := make([]float64, len(tt.start)) // overwritten from the state
				res, err := Minimize(context.Background(), x, tt.f, r)
				if err != nil {
					t.Fatal(err)
				}
				if res != wantRes {
					t.Errorf("resumed after iteration %d: %+v, want %+v", st.K, res, wantRes)
				}
				for i := range x {
					if math.Float64bits(x[i]) != math.Float64bits(want[i]) {
						t.Fatalf("resumed after iteration %d: x[%d] = %v, want %v", st.K, i, x[i], want[i])
					}
				}
			}
		})
	}

	// A failing checkpoint stops the minimization with its error; a state
	// of another shape is refused.
	boom := errors.New("disk full")
	_, err := Minimize(context.Background(), rosenbrockStart(4), rosenbrock, Settings{CheckpointEvery: 2, Checkpoint: func(*State) error { return boom }})
	if !errors.Is(err, boom) {
		t.Errorf("checkpoint error: got %v", err)
	}
	var st *State
	Minimize(context.Background(), rosenbrockStart(4), rosenbrock, Settings{CheckpointEvery: 2, Checkpoint: func(s *State) error { st = cloneState(s); return nil }})
	if _, err := Minimize(context.Background(), make([]float64, 5), rosenbrock, Settings{Resume: st}); err == nil {
		t.Error("resumed a 4-variable state with 5 variables")
	}
}

// TestRememberInSlot checks the history when plain L-BFGS keeps the line
// search's start in the next pair's slot (startSearch): an accepted pair
// becomes s = x - xp, y = g - gp in place; a rejected one (s·y <= 0) with
// a full history drops the oldest pair and leaves the others as they were.
func TestRememberInSlot(t *testing.T) {
	m := newMinimizer(make([]float64, 2), rosenbrock, Settings{Memory: 2, Past: 1, MaxLinesearch: 4})
	if !m.inSlot {
		t.Fatal("plain L-BFGS should keep xp and gp in the history")
	}
	step := func(xp, gp, x, g []float64) {
		copy(m.x, xp)
		copy(m.g, gp)
		m.startSearch()
		copy(m.x, x)
		copy(m.g, g)
		m.remember()
	}
	step([]float64{0, 0}, []float64{1, 1}, []float64{1, 0}, []float64{3, 1}) // s = (1, 0), y = (2, 0)
	step([]float64{1, 0}, []float64{3, 1}, []float64{1, 2}, []float64{3, 2}) // s = (0, 2), y = (0, 1)
	if m.cnt != 2 || m.end != 0 {
		t.Fatalf("after two pairs: count %d, end %d; want 2, 0", m.cnt, m.end)
	}
	want := []float64{1, 0, 0, 2, 2, 0, 0, 1} // s0, s1, y0, y1
	if !slices.Equal(m.sy, want) || m.ys[0] != 2 || m.ys[1] != 2 || m.yy[0] != 4 || m.yy[1] != 1 {
		t.Fatalf("history %v ys %v yy %v; want %v ys [2 2] yy [4 1]", m.sy, m.ys, m.yy, want)
	}
	step([]float64{1, 2}, []float64{3, 2}, []float64{2, 2}, []float64{2, 2}) // s·y = -1: rejected
	if m.cnt != 1 || m.end != 0 {
		t.Fatalf("after a rejected pair: count %d, end %d; want 1, 0", m.cnt, m.end)
	}
	if s1, y1 := m.sVec(1), m.yVec(1); !slices.Equal(s1, []float64{0, 2}) || !slices.Equal(y1, []float64{0, 1}) {
		t.Fatalf("the newest pair changed: s %v y %v", s1, y1)
	}
	// The direction uses the newest pair only, not the emptied slot: with
	// g = (2, 2) and s = (0, 2), y = (0, 1): alpha = s·g / s·y = 2,
	// q = g - 2y = (2, 0), r = (s·y / y·y) q = (4, 0), beta = y·r / s·y = 0,
	// r += (alpha - beta) s = (4, 4), d = -r.
	m.direction()
	if want := []float64{-4, -4}; !slices.Equal(m.d, want) {
		t.Fatalf("direction %v, want %v", m.d, want)
	}
}

// TestFloat32HistoryState: under Float32History the pairs live in SY32
// (2·Memory·n values) and SY is empty, so a checkpoint carries half the
// bytes per pair; a state of the other precision is refused on resume.
func TestFloat32HistoryState(t *testing.T) {
	var st *State
	s := Settings{Memory: 5, Float32History: true, CheckpointEvery: 2, Checkpoint: func(c *State) error { st = cloneState(c); return nil }}
	if _, err := Minimize(context.Background(), rosenbrockStart(4), rosenbrock, s); err != nil {
		t.Fatal(err)
	}
	if st == nil || len(st.SY) != 0 || len(st.SY32) != 2*5*4 {
		t.Fatalf("checkpoint: %d float64 and %d float32 pair values, want 0 and %d", len(st.SY), len(st.SY32), 2*5*4)
	}
	if _, err := Minimize(context.Background(), make([]float64, 4), rosenbrock, Settings{Memory: 5, Resume: st}); err == nil {
		t.Error("a float64 minimization resumed from a float32 state")
	}
}

// BenchmarkHistory is the optimizer's own work per iteration at the size
// of CoNLL-2000's CRF (452,610 weights) on a separable problem, whose
// evaluation is cheap beside it: float64 pairs (memory 6, CRFsuite's) and
// float32 pairs (memory 10).
func BenchmarkHistory(b *testing.B) {
	const n, iters = 452_610, 40
	f := benchSeparable(n)
	x := make([]float64, n)
	for _, s := range []struct {
		name string
		s    Settings
	}{
		{"float64/memory=6", Settings{}},
		{"float32/memory=10", Settings{Memory: 10, Float32History: true}},
	} {
		b.Run(s.name, func(b *testing.B) {
			set := s.s
			set.Epsilon, set.Delta, set.MaxIterations = 1e-30, -1, iters
			for b.Loop() {
				clear(x)
				if res, err := Minimize(context.Background(), x, f, set); err != nil || res.Iterations != iters {
					b.Fatal(res, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*iters), "ns/iteration")
		})
	}
}

// TestDirection32: the float32 history's fused two-loop recursion and
// remember32 give the float64 ones' directions and ring, on pairs that
// float32 holds exactly (multiples of 1/1024), with every fourth pair
// rejected (s·y < 0), for histories that fill and wrap.
func TestDirection32(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	const n = 37
	exact := func() float64 { return float64(r.IntN(8193)-4096) / 1024 }
	for _, mem := range []int{1, 2, 3, 5} {
		t.Run(fmt.Sprintf("memory=%d", mem), func(t *testing.T) {
			var ms [2]*minimizer
			for k, f32 := range []bool{false, true} {
				s := Settings{Memory: mem, Float32History: f32}
				if err := s.fill(); err != nil {
					t.Fatal(err)
				}
				ms[k] = newMinimizer(make([]float64, n), rosenbrock, s)
			}
			x, g := make([]float64, n), make([]float64, n)
			for i := range x {
				x[i], g[i] = exact(), exact()
			}
			for it := 0; it < 12; it++ {
				sv, yv := make([]float64, n), make([]float64, n)
				for i := range sv {
					sv[i] = exact()
					yv[i] = sv[i] + exact()/8 // s·y > 0, mostly
					if it%4 == 3 {
						yv[i] = -sv[i] // rejected
					}
				}
				for _, m := range ms {
					copy(m.x, x)
					copy(m.g, g)
					m.startSearch()
					for i := range sv {
						m.x[i], m.g[i] = x[i]+sv[i], g[i]+yv[i]
					}
					m.remember()
					m.direction()
				}
				if ms[0].cnt != ms[1].cnt || ms[0].end != ms[1].end {
					t.Fatalf("iteration %d: float64 ring (%d pairs, end %d), float32 (%d, %d)", it, ms[0].cnt, ms[0].end, ms[1].cnt, ms[1].end)
				}
				for i := range ms[0].d {
					if d0, d1 := ms[0].d[i], ms[1].d[i]; math.Abs(d0-d1) > 1e-9*(1+math.Abs(d0)) {
						t.Fatalf("iteration %d: d[%d] = %v in float32, %v in float64", it, i, d1, d0)
					}
				}
				copy(x, ms[0].x)
				copy(g, ms[0].g)
			}
		})
	}
}
