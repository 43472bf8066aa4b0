package optim

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Func returns f(x) and writes the gradient of f at x into grad (len(x)).
// For OWL-QN, f and grad EXCLUDE the L1 term; the minimizer adds
// L1*||x||_1 itself.
type Func func(x, grad []float64) float64

// Settings configure Minimize. The zero value gives CRFsuite's defaults.
type Settings struct {
	Memory        int     // L-BFGS history pairs; 0 → 6 (CRFsuite default)
	L1            float64 // > 0 switches to OWL-QN, minimizing f(x) + L1*Σ|x_i|
	Epsilon       float64 // stop when ||g|| / max(1, ||x||) <= Epsilon; 0 → 1e-5 (g is the pseudo-gradient under OWL-QN)
	Past          int     // stop when (f[k-Past] - f[k]) / |f[k]| < Delta; 0 → 10
	Delta         float64 // 0 → 1e-5; negative disables this test
	MaxIterations int     // 0 → unlimited
	MaxLinesearch int     // 0 → 20 trial points per line search
	// Callback is called after each accepted iteration; returning true
	// stops the minimization (e.g. dev-score early stopping). x is the
	// current point (do not retain).
	Callback func(it Iteration) bool
	// Checkpoint, when set, is called after every CheckpointEvery-th
	// accepted iteration (after Callback) with the minimizer's whole
	// state, which it must copy or serialize before returning (the slices
	// are the minimizer's own). An error stops the minimization and is
	// returned.
	Checkpoint      func(st *State) error
	CheckpointEvery int
	// Resume, when set, continues a minimization from a State that an
	// earlier Minimize with the same Func and Settings handed to
	// Checkpoint: the iterations that follow are exactly those the
	// uninterrupted minimization would have made. x is overwritten with
	// the State's point.
	Resume *State
	// Float32History stores the correction pairs in float32: half the
	// memory per pair, and two float64 vectors more (the point and gradient
	// a line search starts from, kept apart), so Memory = 10 costs what 6
	// cost in float64. A change of arithmetic — every
	// direction differs in its low bits — so off by default. Plain L-BFGS
	// only (not with L1).
	Float32History bool
}

// State is a minimization paused after an accepted iteration: the point,
// its objective and gradient, the next search direction and step, the
// L-BFGS history and the stopping test's window. Vectors are length n,
// except SY (2·Memory·n: the s vectors, then the y vectors), YS and YY
// (Memory) and PastF (Past).
type State struct {
	K           int // accepted iterations so far
	Evaluations int
	F, Step     float64
	X, G, D     []float64
	SY          []float64
	SY32        []float32 // SY under Float32History (SY is then empty)
	YS, YY      []float64
	PastF       []float64
	End, Count  int
}

// Iteration describes one accepted iteration, as passed to
// Settings.Callback.
type Iteration struct {
	K            int     // 1-based iteration number
	F            float64 // objective (including the L1 term)
	XNorm, GNorm float64
	Step         float64
	Evaluations  int // function evaluations so far
	X            []float64
}

// Status tells why Minimize stopped.
type Status int

const (
	// Converged: ||g|| / max(1, ||x||) <= Epsilon.
	Converged Status = iota + 1 // zero is left invalid so an unset Result is not "converged"
	// DeltaReached: the relative improvement over Past iterations fell below Delta.
	DeltaReached
	// MaxIterations: MaxIterations iterations were done.
	MaxIterations
	// Stopped: the callback asked to stop, or the context was cancelled.
	Stopped
	// LinesearchFailed: no acceptable step was found; x is the last
	// accepted point, which is still the best found.
	LinesearchFailed
)

func (s Status) String() string {
	switch s {
	case Converged:
		return "converged"
	case DeltaReached:
		return "no further improvement"
	case MaxIterations:
		return "maximum iterations"
	case Stopped:
		return "stopped by callback"
	case LinesearchFailed:
		return "line search failed"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Result summarizes a minimization.
type Result struct {
	F           float64 // objective at the returned x (including the L1 term)
	Iterations  int     // accepted iterations
	Evaluations int     // calls of the Func
	Status      Status
}

// liblbfgs's line-search constants (lbfgs_parameter_t defaults).
const (
	ftol    = 1e-4  // sufficient-decrease (Armijo) coefficient
	wolfe   = 0.9   // curvature coefficient
	dec     = 0.5   // step factor when the Armijo test fails
	inc     = 2.1   // step factor when the curvature test fails
	minStep = 1e-20 // liblbfgs min_step
	maxStep = 1e20  // liblbfgs max_step
)

// Minimize minimizes f starting from x, overwriting x with the solution.
// It returns ctx.Err() promptly when ctx is cancelled (checked between
// evaluations); x then holds the last accepted point and the Result
// describes it, with Status Stopped. It allocates O(Memory*len(x)) once,
// up front, and nothing per iteration.
//
// A failed line search is not an error: x is restored to the last
// accepted point and Status is LinesearchFailed, as CRFsuite treats it.
// Errors are reserved for invalid settings, a non-finite objective at the
// starting point, and cancellation.
func Minimize(ctx context.Context, x []float64, f Func, s Settings) (Result, error) {
	if err := s.fill(); err != nil {
		return Result{}, err
	}
	if f == nil {
		return Result{}, errors.New("optim: nil Func")
	}
	m := newMinimizer(x, f, s)
	return m.run(ctx)
}

// fill validates s and replaces zero values with the defaults.
func (s *Settings) fill() error {
	switch {
	case s.Memory < 0:
		return fmt.Errorf("optim: Memory = %d, want >= 0", s.Memory)
	case !(s.L1 >= 0) || math.IsInf(s.L1, 1):
		return fmt.Errorf("optim: L1 = %g, want a finite value >= 0", s.L1)
	case !(s.Epsilon >= 0):
		return fmt.Errorf("optim: Epsilon = %g, want >= 0", s.Epsilon)
	case s.Past < 0:
		return fmt.Errorf("optim: Past = %d, want >= 0", s.Past)
	case math.IsNaN(s.Delta):
		return errors.New("optim: Delta is NaN")
	case s.MaxIterations < 0:
		return fmt.Errorf("optim: MaxIterations = %d, want >= 0", s.MaxIterations)
	case s.MaxLinesearch < 0:
		return fmt.Errorf("optim: MaxLinesearch = %d, want >= 0", s.MaxLinesearch)
	case s.Float32History && s.L1 > 0:
		return errors.New("optim: Float32History is for plain L-BFGS, not OWL-QN (L1 > 0)")
	case s.CheckpointEvery < 0:
		return fmt.Errorf("optim: CheckpointEvery = %d, want >= 0", s.CheckpointEvery)
	}
	if s.Memory == 0 {
		s.Memory = 6
	}
	if s.Epsilon == 0 {
		s.Epsilon = 1e-5
	}
	if s.Past == 0 {
		s.Past = 10
	}
	if s.Delta == 0 {
		s.Delta = 1e-5
	}
	if s.MaxLinesearch == 0 {
		s.MaxLinesearch = 20
	}
	return nil
}
