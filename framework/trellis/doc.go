// Package trellis is the Go API for programs that embed trellis: train a
// sequence labeller from an experiment spec (a file or source in memory)
// or from sentences in memory, then tag token slices with it — no run
// directory, no logger and no command line needed.
//
// It is a thin facade over the packages `trellis run` and `trellis tag`
// use: a spec is decoded by framework/spec, the training data is encoded
// by the feature mapper and trained exactly as a run trains it
// (run.Train, run.TrainSentences), and a Model tags through
// framework/tagger, constrained decoding included. A model saved with
// Model.Save is the file `trellis run` writes, so `trellis tag`,
// `trellis eval`, `trellis explain` and `trellis inspect` read it, and
// Load reads the models of `trellis run`.
//
// Training from a spec:
//
//	m, err := trellis.TrainSpecFile(ctx, "specs/quickstart.hcl", trellis.SpecOptions{Learner: "crf"})
//	var se *trellis.SpecError
//	if errors.As(err, &se) {
//		// se.Diagnostics are the spec's hcl.Diagnostics; err.Error()
//		// renders them with file:line:col and the source line.
//	}
//
// Training from sentences in memory:
//
//	m, err := trellis.Train(ctx, sentences, trellis.Options{Learner: trellis.Learner{Type: "perceptron"}})
//	labels, err := m.Tag([]string{"The", "cat", "sat", "."})
//
// Errors are returned, never logged or printed; Options.Log and
// SpecOptions.Log receive the training progress records when set.
//
// Plugin templates (framework/plugin) are not available through this
// package: it registers the builtin templates and learners only.
package trellis
