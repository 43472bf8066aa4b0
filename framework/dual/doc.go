// Package dual decodes several chain lattices jointly, under constraints
// that tie them together or that no chain can express, by Lagrangian
// relaxation (dual decomposition; Rush, Sontag, Collins & Jaakkola 2010,
// Rush & Collins 2012).
//
// A Problem is the lattices of a document's sentences, each scored as the
// tagger scores it, plus two kinds of constraint:
//
//   - Groups (document consistency): every site (sentence, position) of a
//     group takes one type, e.g. every occurrence of "Lindsay" in a
//     document is a PER or none is. A state's type is Problem.Types[state]:
//     the entity type of a span label (B-PER and I-PER are PER), O its own.
//     Under Hard agreement the sites must agree; under Soft agreement a
//     site may take another type than its group at a cost (Soft.Penalty).
//   - Limits (per sentence): at least Min and at most Max spans of a type,
//     counted by the states that begin them (Limit.Starts).
//
// The joint problem is
//
//	max over y, z, v:  Σ_k θ_k(y_k) − c · #{sites s : v_s ≠ z_g(s)}
//	subject to         type(y at s) = v_s for every site s,
//	                   Min ≤ #starts(y_k) ≤ Max for every sentence k,
//
// where θ_k is sentence k's lattice score, z_g a group's type and v_s a
// site's; c is the penalty (infinite under Hard agreement: v_s = z_g).
// Relaxing the site and limit constraints with multipliers u and λ leaves
// two easy problems: Viterbi per sentence with the multipliers added to the
// state scores, and, per group, the best z and v (a loop over the types).
// Solver.Solve minimizes the dual by subgradient steps, α_t = Step/(1+d)
// where d counts the steps after which the dual rose (Rush & Collins'
// schedule), re-decoding only the sentences whose multipliers moved.
//
// When the sentences' labels agree with the groups' and the limits hold
// with complementary slackness, the labelling is a certificate: it is the
// exact optimum of the joint problem (Result.Certified). When the
// iterations run out first, Solve returns the iterate with the best primal
// objective that satisfies the hard constraints, or the last one when none
// does.
package dual
