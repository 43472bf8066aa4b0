// Package optim minimizes smooth objectives with L-BFGS and, when an L1
// penalty is requested, with OWL-QN (Andrew & Gao, "Scalable training of
// L1-regularized log-linear models", ICML 2007). It exists to train
// linear-chain CRFs: millions of parameters, and every function evaluation
// is a full pass over the training corpus.
//
// We carry our own implementation because nothing in the Go ecosystem does
// OWL-QN well (gonum's optim has L-BFGS but no orthant-wise variant), and
// because trellis is compared against CRFsuite, whose optimizer is
// liblbfgs. Minimize therefore mirrors liblbfgs step for step:
//
//   - the first step is 1/||d|| along d = -g, later steps start at 1;
//   - plain L-BFGS uses liblbfgs's LBFGS_LINESEARCH_BACKTRACKING_WOLFE
//     (Armijo with ftol = 1e-4, curvature with wolfe = 0.9; the step is
//     halved when Armijo fails and multiplied by 2.1 when curvature fails);
//   - OWL-QN uses liblbfgs's line_search_backtracking_owlqn: every trial
//     point is projected onto the orthant of the current point (or of the
//     negative pseudo-gradient where a coordinate is zero), accepted when
//     F(x') <= F(x) + ftol * pg·(x' - x), and otherwise the step is halved;
//   - the search direction is the two-loop recursion applied to the
//     (pseudo-)gradient, scaled by gamma = s·y / y·y of the newest pair;
//     under OWL-QN it is then zeroed wherever it disagrees in sign with the
//     negative pseudo-gradient, while the (s, y) pairs use the plain
//     gradients of f, as in the paper;
//   - the stopping tests (progress callback, ||g||/max(1,||x||) <= epsilon,
//     relative improvement over the last Past iterations below Delta,
//     iteration limit) run in liblbfgs's order, and a failed line search
//     leaves x at the last accepted point.
//
// Deliberate departures from liblbfgs, all for robustness:
//
//   - A pair with s·y <= 0 is not stored (liblbfgs stores it and can lose
//     positive definiteness, which OWL-QN in particular can trigger). While
//     the history is empty the next step is again 1/||d|| along -g. Plain
//     L-BFGS keeps the line search's start point and gradient in the slot
//     the next pair is written to, two vectors of n fewer; so there a
//     rejected pair with a full history also drops the oldest pair. The
//     Wolfe curvature test makes s·y > 0 in exact arithmetic, so this is a
//     guard against rounding, not a path CRF training takes; OWL-QN, whose
//     line search has no curvature test, keeps separate copies.
//   - No point is ever evaluated twice. A trial point is compared
//     coordinate by coordinate with the points already evaluated in the
//     same line search (cheap: they are recomputed from their steps, not
//     stored). A repeat of an earlier trial is known to fail the same
//     test, so its outcome is reused without calling the objective; a trial
//     that rounds back to the starting point means the step can no longer
//     move x, and the line search fails. For a CRF an evaluation is a pass
//     over the corpus, so it is the only cost worth saving.
//   - A NaN objective at a trial point fails the Armijo test instead of
//     being accepted, and on a failed line search the objective value
//     reported is that of the restored point, not of the last trial.
//   - The relative-improvement test divides by |f| rather than f, so that
//     objectives whose minimum is negative do not stop at once; for the
//     positive objectives of CRF training the two are identical.
//
// Minimize allocates its O(Memory·len(x)) working storage — 2·Memory + 2
// vectors of len(x) under L-BFGS, 2·Memory + 5 under OWL-QN — once, up front,
// and nothing per iteration; it uses no goroutines and no randomness, and
// all floating-point reductions are written so the compiler cannot fuse
// them, so the same inputs give bit-identical results on every platform.
package optim
