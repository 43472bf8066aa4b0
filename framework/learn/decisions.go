// This file holds what learners that search left to right (transition
// labeling) need beyond other learners: the capability the spec and the
// run ask of them, and the decision history's inputs.

package learn

import "github.com/trellis-nlp/trellis/framework/feature"

// DecisionLearner is implemented by learners whose model decodes by a
// left-to-right search that reads the decision history (transition):
// only they may train on a template that reads the history
// (feature.DecisionTemplate); the spec refuses one on any other learner
// with a diagnostic naming these. SearchBeam is the width the model
// decodes with (1 is greedy): dev scoring and the model header use it.
type DecisionLearner interface {
	SearchBeam() int
}

// SearchBeam returns the search width of a DecisionLearner, 0 for any
// other learner (its model decodes on the lattice).
func SearchBeam(l Learner) int {
	if dl, ok := l.(DecisionLearner); ok {
		return dl.SearchBeam()
	}
	return 0
}

// History is what a DecisionLearner reads of the decision history beside
// the Dataset: the decisions template and, per training sentence, its
// document and its tokens' word keys.
type History struct {
	// Name and Decisions are the decisions template's block name and
	// settings; Name is "" when the spec has none (the history is then
	// the transitions alone).
	Name      string
	Decisions feature.Decisions
	// Labels are the label names, in ID order (the layout's types).
	Labels []string
	// Documents[s] numbers training sentence s's document: sentences of
	// one document are consecutive and share a number. Nil: every
	// sentence is a document of its own.
	Documents []int32
	// Keys[t] identifies training token t's word in its document
	// (transition.Keys), -1 for none; nil without document features.
	Keys []int32
}
