package optim

import (
	"context"
	"math"
)

type lsOutcome int

const (
	lsAccepted lsOutcome = iota
	lsFailed
	lsCancelled
)

// accept is the outcome recorded for a trial step that ends the search.
const accept = 0

// lineSearch searches along d from xp (whose objective is m.fx and whose
// gradient is gp, pseudo-gradient pg), starting with the given step. On
// acceptance x, g and m.fx describe the new point and the accepted step is
// returned; otherwise x and g hold junk and m.fx is unchanged.
//
// It is liblbfgs's line_search_backtracking (Wolfe variant) for plain
// L-BFGS and line_search_backtracking_owlqn under OWL-QN, with one
// addition: a trial point bitwise equal to one already evaluated is not
// evaluated again (see recall).
func (m *minimizer) lineSearch(ctx context.Context, step float64) (float64, lsOutcome, error) {
	if !(step > 0) || math.IsInf(step, 1) {
		return step, lsFailed, nil
	}
	owl := m.s.L1 > 0
	finit := m.fx
	var dginit float64
	if !owl {
		dginit = dot(m.gp, m.d)
		if !(dginit <= 0) { // not a descent direction (liblbfgs: LBFGSERR_INCREASEGRADIENT)
			return step, lsFailed, nil
		}
	}
	ntried := 0
	for count := 0; ; {
		m.trialPoint(step)
		width, seen, atStart := m.recall(step, ntried)
		if atStart {
			// The step is too small to change x in floating point: no
			// trial can make progress any more.
			return step, lsFailed, nil
		}
		if !seen {
			if err := ctx.Err(); err != nil {
				return step, lsCancelled, err
			}
			fx := m.evaluate(m.x, m.g)
			if owl {
				width = m.testOWLQN(fx, finit)
			} else {
				width = m.testWolfe(fx, finit, dginit, step)
			}
			if width == accept {
				m.fx = fx
				return step, lsAccepted, nil
			}
			m.tried[ntried], m.outcome[ntried] = step, width
			ntried++
		}
		count++
		if step < minStep || step > maxStep || count >= m.s.MaxLinesearch {
			return step, lsFailed, nil
		}
		step *= width
	}
}

// testWolfe returns the step factor liblbfgs's backtracking Wolfe search
// applies after evaluating the objective fx (gradient in g) at step, or
// accept. The Armijo test is written so that a NaN objective fails it.
func (m *minimizer) testWolfe(fx, finit, dginit, step float64) float64 {
	if !(fx <= finit+step*(ftol*dginit)) {
		return dec
	}
	if dot(m.g, m.d) < wolfe*dginit {
		return inc
	}
	return accept
}

// testOWLQN is liblbfgs's sufficient-decrease test for OWL-QN: the
// predicted decrease uses the pseudo-gradient at xp and the actual
// (projected) displacement x - xp.
func (m *minimizer) testOWLQN(fx, finit float64) float64 {
	var dgtest float64
	for i, pgi := range m.pg {
		dgtest += float64((m.x[i] - m.xp[i]) * pgi)
	}
	if !(fx <= finit+ftol*dgtest) {
		return dec
	}
	return accept
}

// coord returns coordinate i of the trial point at step t. Every trial
// point is computed by this one expression, so recall can recompute an
// earlier trial point bit for bit instead of storing it.
func (m *minimizer) coord(i int, t float64) float64 {
	v := m.xp[i] + float64(t*m.d[i])
	if m.s.L1 > 0 {
		// Project onto the orthant of xp, or of -pg where xp is zero, so
		// that no coordinate crosses zero during the step.
		orth := m.xp[i]
		if orth == 0 {
			orth = -m.pg[i]
		}
		if v*orth <= 0 {
			v = 0
		}
	}
	return v
}

func (m *minimizer) trialPoint(t float64) {
	for i := range m.x {
		m.x[i] = m.coord(i, t)
	}
}

// same reports whether x equals the trial point at step t. Values are
// compared rather than bits so that +0 and -0 count as the same point.
func (m *minimizer) same(t float64) bool {
	for i, xi := range m.x {
		if xi != m.coord(i, t) {
			return false
		}
	}
	return true
}

// atStart reports whether x equals xp.
func (m *minimizer) atStart() bool {
	for i, xi := range m.x {
		if xi != m.xp[i] {
			return false
		}
	}
	return true
}

// recall checks whether the trial point now in x (at step t) was already
// evaluated in this line search, or is the starting point xp. Since every
// coordinate of the trial point is a monotone function of the step
// (rounding and projection are monotone), a point equal to some earlier
// one is equal to the earlier point with the nearest step below or above
// t, so two comparisons suffice. A repeated point gets the outcome it had
// before: the objective is deterministic, so evaluating it again would
// only cost a corpus pass to reach the same decision.
func (m *minimizer) recall(t float64, ntried int) (width float64, seen, atStart bool) {
	lo, hi := -1, -1
	for j, tj := range m.tried[:ntried] {
		switch {
		case tj == t:
			return m.outcome[j], true, false
		case tj < t && (lo < 0 || tj > m.tried[lo]):
			lo = j
		case tj > t && (hi < 0 || tj < m.tried[hi]):
			hi = j
		}
	}
	if lo < 0 {
		// No evaluated step between 0 and t: compare with xp itself.
		if m.atStart() {
			return 0, false, true
		}
	} else if m.same(m.tried[lo]) {
		return m.outcome[lo], true, false
	}
	if hi >= 0 && m.same(m.tried[hi]) {
		return m.outcome[hi], true, false
	}
	return 0, false, false
}
