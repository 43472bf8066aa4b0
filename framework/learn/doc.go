// Package learn defines what a learner is: something that turns an encoded
// training Dataset into a linear.Model. The HMM, the online learners
// (perceptron, pa, arow, on the engine in package online) and the CRF
// family (crf, and maxent and memm, its per-token and locally normalized
// forms) live in subpackages and are registered by name in package builtin.
//
// A new learner is one subpackage plus one registration line in
// builtin.RegisterLearners. What it shares with the others lives here:
// NewModel and CompleteSentences to set up, and Loop, which runs epochs or
// iterations with resumption, the learning curve, progress, cancellation,
// the non-finite stop and checkpoints, so that the learner itself writes
// only one step, its dev scoring and its checkpoint state.
package learn
