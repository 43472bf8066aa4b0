// Package online is the engine the online structured learners share — the
// averaged perceptron, passive-aggressive and AROW: every epoch it visits
// the training sentences in a seeded shuffled order, decodes each with the
// current weights (Viterbi on the shared lattice core, under the scheme's
// constraints), and where the best sequence differs from the gold one
// hands both to the learner's Rule, which changes the weights. It keeps
// the average of the weights over all steps with the timestamp trick,
// scores the dev corpus after every epoch (learn.Best keeps the best
// epoch) and saves and restores checkpoints; the epochs themselves run on
// learn.Loop.
//
// A learner is then its configuration plus a Rule: the perceptron adds
// the gold features and subtracts the predicted ones; passive-aggressive
// scales that difference, Δ = Φ(gold) − Φ(predicted), by a step size from
// the margin, the cost and ‖Δ‖²; AROW scales each coordinate by its own
// variance and shrinks the variance of what it updates.
//
// Training decodes through the same kernel as tagging: state scores from
// a linear.Scorer reading the current weights in place, transitions from
// a lattice.Chain (constraints applied) kept in step with the weights by
// Trainer.Add.
package online
