// Package feature turns sentences into the integer form every learner reads.
//
// Feature templates (builtin ones in package builtin, external ones served by
// plugins) implement Extractor and emit attribute strings per token into a
// Sink. The Encoder is the Sink that interns those strings into dense IDs
// through a Dictionary exactly once per corpus and packs them into a Dataset:
// compact arrays with, per token, a run of attribute IDs (and values), and per
// sentence the gold label IDs. Strings stop here: learners, the lattice core
// and the model only see integers and float slices.
//
// The Mapper is the fitted whole: templates and extractors, dictionaries,
// the unknown-value attribute of each template and the transitions flag.
// A run fits one on the training corpus (NewMapper, Fit) and encodes dev
// with it; the model file records it (Record) and the tagger rebuilds it
// (LoadMapper), so that tagging maps sentences to IDs exactly as training
// did.
package feature
