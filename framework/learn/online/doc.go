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
//
// With shards = S ≥ 2 the epochs are iterative parameter mixing (McDonald,
// Hall and Mann 2010): the sentences are dealt into S fixed shards (Deal),
// every epoch each shard trains one epoch from the mixed weights on a
// Replica of its own (its order shuffled by a seeded source of its own),
// and a Mixer averages the shards' weights — uniformly or in proportion to
// their updates — and the rule's state (AROW's variances) the same way,
// in shard order, so the bytes never depend on Problem.Threads. The
// averaged weights are the mean over every sentence step of every shard
// of the weights that shard held, which for one shard is the serial
// learner's average bit for bit (mix.go has the arithmetic; ipm.go the
// driver). Replica.Epoch is a function of its ShardInput alone, so a
// distributed driver can run shards on any worker.
package online
