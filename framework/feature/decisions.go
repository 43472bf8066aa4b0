// This file holds the marker of templates that read the decision history
// (the labels a transition-based labeler has already assigned) instead of
// the input: their settings, and how a mapper finds its one such template.

package feature

// Decisions are the settings of a template that reads the decision
// history (builtin/decisions). Its attributes are not extracted from the
// input: a learner that searches left to right (learn.DecisionLearner)
// computes them from the labels it has assigned so far.
type Decisions struct {
	// Previous is how many previous labels are read as an n-gram with the
	// predicted label (1–3); n-grams of 2 previous labels and up are
	// history features (one previous label is the transition weight).
	Previous int `json:"previous,omitempty"`
	// Span adds the open span's type and its length bucket (1, 2, 3, 4+).
	Span bool `json:"span,omitempty"`
	// Document adds the types already given to earlier occurrences of the
	// token's value of Column in the document.
	Document bool `json:"document,omitempty"`
	// Column is the column Document reads (default "word").
	Column string `json:"column,omitempty"`
}

// DecisionTemplate is implemented by templates (and their compiled
// extractors) that read the decision history. Only learners that
// implement learn.DecisionLearner can train on them; the spec refuses
// them on any other learner.
type DecisionTemplate interface {
	Decisions() Decisions
}

// DecisionColumn is implemented by the compiled extractor of a
// DecisionTemplate with Document set: the index, into the Columns it was
// compiled against, of the column whose values identify a word.
type DecisionColumn interface {
	DecisionColumn() int
}

// DecisionsOf returns the name, settings and extractor of m's template
// that reads the decision history; ok is false when it has none. A spec
// holds at most one (the spec refuses a second).
func (m *Mapper) DecisionsOf() (name string, d Decisions, x Extractor, ok bool) {
	for g, ex := range m.extractors {
		if dt, is := ex.(DecisionTemplate); is {
			return m.names[g], dt.Decisions(), ex, true
		}
	}
	return "", Decisions{}, nil, false
}
