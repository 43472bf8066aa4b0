// Package learn defines what a learner is: something that turns an encoded
// training Dataset into a linear.Model. The HMM, the averaged perceptron and
// the CRF live in subpackages and are registered by name in package builtin.
//
// A new learner is one subpackage plus one registration line in
// builtin.RegisterLearners. What it shares with the others lives here:
// NewModel and CompleteSentences to set up, and Loop, which runs epochs or
// iterations with resumption, the learning curve, progress, cancellation,
// the non-finite stop and checkpoints, so that the learner itself writes
// only one step, its dev scoring and its checkpoint state.
package learn
