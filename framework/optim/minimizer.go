package optim

import (
	"context"
	"fmt"
	"math"
)

// minimizer holds the state of one Minimize call. Its float64 slices are
// carved out of a single allocation made by newMinimizer (the float32
// history and its slot order are two more).
type minimizer struct {
	f      Func
	s      Settings
	n, mem int
	x      []float64 // current point; the caller's slice
	g      []float64 // gradient of f at x
	pg     []float64 // pseudo-gradient at x under OWL-QN; aliases g otherwise
	// xp, gp are the point and gradient at the start of the line search.
	// Under plain L-BFGS they are no vectors of their own but the s and y
	// vectors of the history slot the next pair goes to (inSlot): see
	// startSearch.
	xp, gp   []float64
	inSlot   bool
	d        []float64 // search direction
	sy       []float64 // mem s vectors followed by mem y vectors, n each
	sy32     []float32 // the same in float32 (Settings.Float32History); sy is then nil
	partial  []float64 // per-chunk sums of the float32 history's loops (history32.go)
	order    []int     // the float32 history's slots, newest first (history32.go)
	ys, yy   []float64 // s·y and y·y per history slot
	alpha    []float64 // two-loop coefficients per history slot
	pf       []float64 // objective of the last Past iterations, ring buffer
	tried    []float64 // steps evaluated in the current line search
	outcome  []float64 // step factor each tried step led to
	end, cnt int       // next history slot, number of stored pairs
	fx       float64   // objective at x (including the L1 term)
	evals    int
}

func newMinimizer(x []float64, f Func, s Settings) *minimizer {
	n, mem := len(x), s.Memory
	// g, d, the s and y pairs; under OWL-QN also pg, xp and gp (a pair is
	// rejected there often enough that the oldest one must survive the
	// line search: see startSearch).
	// In float32 the pairs cannot hold xp and gp, which need every bit
	// (s = x − xp is a small difference of large values): they get
	// vectors of their own.
	f32 := s.Float32History
	vecs := 2
	switch {
	case s.L1 > 0:
		vecs += 3
	case f32:
		vecs += 2
	}
	if !f32 {
		vecs += 2 * mem
	}
	buf := make([]float64, vecs*n+3*mem+s.Past+2*s.MaxLinesearch+2*chunks)
	take := func(k int) []float64 {
		v := buf[:k:k]
		buf = buf[k:]
		return v
	}
	m := &minimizer{f: f, s: s, n: n, mem: mem, x: x}
	m.g, m.d = take(n), take(n)
	m.pg = m.g
	m.inSlot = s.L1 == 0 && !f32
	switch {
	case s.L1 > 0:
		m.pg, m.xp, m.gp = take(n), take(n), take(n)
	case f32:
		m.xp, m.gp = take(n), take(n)
	}
	if f32 {
		m.sy32 = make([]float32, 2*mem*n)
		m.partial, m.order = take(2*chunks), make([]int, 0, mem)
	} else {
		m.sy = take(2 * mem * n)
	}
	if m.inSlot {
		m.xp, m.gp = m.sVec(0), m.yVec(0)
	}
	m.ys, m.yy, m.alpha = take(mem), take(mem), take(mem)
	m.pf = take(s.Past)
	m.tried, m.outcome = take(s.MaxLinesearch), take(s.MaxLinesearch)
	return m
}

func (m *minimizer) sVec(j int) []float64 { return m.sy[j*m.n : (j+1)*m.n] }
func (m *minimizer) yVec(j int) []float64 { return m.sy[(m.mem+j)*m.n : (m.mem+j+1)*m.n] }

// evaluate calls the objective at x, writing its gradient into g, and
// returns the objective including the L1 term.
func (m *minimizer) evaluate(x, g []float64) float64 {
	m.evals++
	fx := m.f(x, g)
	if m.s.L1 > 0 {
		fx += norm1(x) * m.s.L1
	}
	return fx
}

func (m *minimizer) result(k int, st Status) Result {
	return Result{F: m.fx, Iterations: k, Evaluations: m.evals, Status: st}
}

// state returns the minimizer's state after iteration k, whose line
// search is to start with step (views of the minimizer's slices).
func (m *minimizer) state(k int, step float64) *State {
	return &State{K: k, Evaluations: m.evals, F: m.fx, Step: step, X: m.x, G: m.g, D: m.d,
		SY: m.sy, SY32: m.sy32, YS: m.ys, YY: m.yy, PastF: m.pf, End: m.end, Count: m.cnt}
}

// restore loads st (see Settings.Resume) and returns the iteration to
// continue after and the step of its line search.
func (m *minimizer) restore(st *State) (int, float64, error) {
	n := m.n
	if len(st.X) != n || len(st.G) != n || len(st.D) != n || len(st.SY) != len(m.sy) || len(st.SY32) != len(m.sy32) ||
		len(st.YS) != m.mem || len(st.YY) != m.mem || len(st.PastF) != len(m.pf) ||
		st.End < 0 || st.End >= m.mem || st.Count < 0 || st.Count > m.mem || st.K < 1 {
		return 0, 0, fmt.Errorf("optim: the state to resume from does not fit these settings (%d variables, memory %d, past %d)", n, m.mem, len(m.pf))
	}
	copy(m.x, st.X)
	copy(m.g, st.G)
	copy(m.d, st.D)
	copy(m.sy, st.SY)
	copy(m.sy32, st.SY32)
	copy(m.ys, st.YS)
	copy(m.yy, st.YY)
	copy(m.pf, st.PastF)
	m.end, m.cnt, m.fx, m.evals = st.End, st.Count, st.F, st.Evaluations
	if m.s.L1 > 0 {
		pseudoGradient(m.pg, m.x, m.g, m.s.L1)
	}
	return st.K, st.Step, nil
}

func (m *minimizer) run(ctx context.Context) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{Status: Stopped}, err
	}
	if m.s.Resume != nil {
		k, step, err := m.restore(m.s.Resume)
		if err != nil {
			return Result{}, err
		}
		return m.loop(ctx, k+1, step)
	}
	m.fx = m.evaluate(m.x, m.g)
	if m.s.L1 > 0 {
		pseudoGradient(m.pg, m.x, m.g, m.s.L1)
	}
	xnorm, gnorm := norm2(m.x), norm2(m.pg)
	if !finite(m.fx) || !finite(gnorm) {
		return m.result(0, 0), fmt.Errorf("optim: objective %g, gradient norm %g at the starting point", m.fx, gnorm)
	}
	m.pf[0] = m.fx
	if gnorm/math.Max(xnorm, 1) <= m.s.Epsilon {
		return m.result(0, Converged), nil
	}
	// Without curvature information H0 = I, and the first trial moves x by
	// a unit distance, as liblbfgs does.
	negate(m.d, m.pg)
	return m.loop(ctx, 1, 1/gnorm)
}

// loop runs iterations k0, k0+1, … from the current point, direction d
// and initial step.
func (m *minimizer) loop(ctx context.Context, k0 int, step float64) (Result, error) {
	for k := k0; ; k++ {
		m.startSearch()
		var (
			out lsOutcome
			err error
		)
		step, out, err = m.lineSearch(ctx, step)
		if out != lsAccepted {
			// Back to the last accepted point: it is the best one found, and
			// its objective and gradients are still known.
			copy(m.x, m.xp)
			copy(m.g, m.gp)
			if out == lsCancelled {
				return m.result(k-1, Stopped), err
			}
			return m.result(k-1, LinesearchFailed), nil
		}
		if m.s.L1 > 0 {
			pseudoGradient(m.pg, m.x, m.g, m.s.L1)
		}
		xnorm, gnorm := norm2(m.x), norm2(m.pg)

		if m.s.Callback != nil && m.s.Callback(Iteration{
			K: k, F: m.fx, XNorm: xnorm, GNorm: gnorm, Step: step, Evaluations: m.evals, X: m.x,
		}) {
			return m.result(k, Stopped), nil
		}
		if gnorm/math.Max(xnorm, 1) <= m.s.Epsilon {
			return m.result(k, Converged), nil
		}
		if past := m.s.Past; m.s.Delta >= 0 {
			if k >= past {
				// |f| rather than f: see doc.go.
				if rate := (m.pf[k%past] - m.fx) / math.Abs(m.fx); rate < m.s.Delta {
					return m.result(k, DeltaReached), nil
				}
			}
			m.pf[k%past] = m.fx
		}
		if m.s.MaxIterations != 0 && k >= m.s.MaxIterations {
			return m.result(k, MaxIterations), nil
		}
		m.remember()
		step = m.direction()
		if m.s.Checkpoint != nil && m.s.CheckpointEvery > 0 && k%m.s.CheckpointEvery == 0 {
			if err := m.s.Checkpoint(m.state(k, step)); err != nil {
				return m.result(k, Stopped), err
			}
		}
	}
}

// startSearch saves the point and gradient the line search starts from.
// Under plain L-BFGS they go into the s and y vectors of the slot the
// iteration's pair will take, which remember then turns into s = x - xp
// and y = g - gp in place: two vectors fewer (docs/results.md,
// "Measurements behind design choices in the code"). The slot is free, or holds the oldest pair, which
// the direction of this iteration has already used; it is needed again
// only if the new pair is rejected, and then it is dropped with it (see
// remember). The Wolfe curvature test that plain L-BFGS's line search
// applies makes s·y > 0 in exact arithmetic, so this does not happen in
// practice; OWL-QN's line search has no such test and keeps its own xp
// and gp.
func (m *minimizer) startSearch() {
	if m.inSlot {
		m.xp, m.gp = m.sVec(m.end), m.yVec(m.end)
	}
	copy(m.xp, m.x)
	copy(m.gp, m.g)
}

// remember stores the pair s = x - xp, y = g - gp, unless s·y <= 0: such a
// pair would make the implicit inverse Hessian indefinite. The products are
// computed before anything is written so that, with xp and gp stored
// apart, a rejected pair does not overwrite the oldest stored one; with
// them in the slot (startSearch), a rejected pair leaves the slot empty,
// and if it held the oldest pair, that pair is forgotten.
func (m *minimizer) remember() {
	if m.sy32 != nil {
		m.remember32()
		return
	}
	var ys, yy float64
	for i := range m.n {
		s, y := m.x[i]-m.xp[i], m.g[i]-m.gp[i]
		ys += float64(s * y)
		yy += float64(y * y)
	}
	if !(ys > 0) || !finite(yy) {
		if m.inSlot && m.cnt == m.mem {
			m.cnt--
		}
		return
	}
	j := m.end
	sv, yv := m.sVec(j), m.yVec(j)
	for i := range m.n {
		sv[i] = m.x[i] - m.xp[i]
		yv[i] = m.g[i] - m.gp[i]
	}
	m.keep(ys, yy)
}

// keep records the products of the pair just stored in slot end and
// advances the ring.
func (m *minimizer) keep(ys, yy float64) {
	j := m.end
	m.ys[j], m.yy[j] = ys, yy
	m.end = (j + 1) % m.mem
	m.cnt = min(m.cnt+1, m.mem)
}

// direction writes the quasi-Newton direction -H·pg into d by the two-loop
// recursion and returns the initial step for the line search.
func (m *minimizer) direction() float64 {
	if m.sy32 != nil && m.cnt > 0 {
		m.direction32()
		return 1
	}
	negate(m.d, m.pg)
	if m.cnt == 0 {
		// Every pair so far was rejected: no curvature information, so
		// start over as in the first iteration.
		return 1 / norm2(m.d)
	}
	j := m.end
	for range m.cnt {
		j = (j + m.mem - 1) % m.mem
		m.alpha[j] = dot(m.sVec(j), m.d) / m.ys[j]
		axpy(-m.alpha[j], m.yVec(j), m.d)
	}
	newest := (m.end + m.mem - 1) % m.mem
	scale(m.ys[newest]/m.yy[newest], m.d)
	for range m.cnt {
		beta := dot(m.yVec(j), m.d) / m.ys[j]
		axpy(m.alpha[j]-beta, m.sVec(j), m.d)
		j = (j + 1) % m.mem
	}
	if m.s.L1 > 0 {
		// OWL-QN: never move a coordinate against its steepest-descent
		// direction, so the step stays in the chosen orthant's descent cone.
		for i, pgi := range m.pg {
			if m.d[i]*pgi >= 0 {
				m.d[i] = 0
			}
		}
	}
	return 1
}
