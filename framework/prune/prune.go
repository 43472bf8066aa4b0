// Package prune makes a model file smaller without changing what it does:
// Model removes the features and attributes that can never change a score,
// so that tagging with the pruned model gives the same labels, n-best
// lists, marginals, explanations and evaluation figures, to the byte, on
// any input.
//
// What goes, and why that is exact:
//
//   - A state or pair feature of weight ±0. A token's score for a label
//     (or a bigram) is a sum that starts at +0, in attribute order; adding
//     ±0 to it changes no bit, and an explanation leaves zero
//     contributions out. (This assumes finite feature values, as every
//     built-in template's are: ∞·0 is NaN.)
//   - An attribute all of whose weights are zero, when looking its name up
//     afterwards gives zero too. An attribute string missing from the
//     dictionary maps to its template's unknown-value attribute
//     (Header.UnknownAttrs), and a model file does not record which
//     template an attribute belongs to; so attributes go only when no
//     template's unknown-value attribute has a non-zero weight (of the
//     built-in learners only the HMM gives them one). Then a dead
//     unknown-value attribute goes too, its template dropping unseen
//     values instead (-1), which adds the same nothing.
//
// What stays:
//
//   - attributes whose names are read besides their weights: the
//     vocabulary's words (tagger.Vocabulary, what eval's IV/OOV figures
//     are computed against), and every attribute of a transition model
//     (its history weights are looked up by name);
//   - a model's pair features when none has a non-zero weight (a model
//     with no pair features has no per-position transitions at all);
//   - the transition, start, stop and trigram weights, the network and
//     the reranker, as they are. First stages are pruned by these rules.
//
// A pruned model says so (Provenance.Pruned); its spec hash, data hashes
// and seed are the trained model's. It is for tagging: training continued
// from it (init_model) starts from fewer features than from the unpruned
// model, and inspection (`trellis inspect`, Python's attributes_) lists
// fewer attributes.
package prune

import (
	"fmt"

	"github.com/trellis-nlp/trellis/framework/linear"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// Names is what Model did with the attributes all of whose weights are
// zero.
type Names string

const (
	// NamesDropped: they went (but the vocabulary's).
	NamesDropped Names = "dropped"
	// NamesKeptUnknown: they stayed, since a template's unknown-value
	// attribute has weights that a dropped name would map to.
	NamesKeptUnknown Names = "kept: an unknown-value attribute has non-zero weights, which a dropped attribute's name would map to"
	// NamesKeptTransition: they stayed, since a transition model looks
	// its history weights up by name.
	NamesKeptTransition Names = "kept: a transition model looks its history attributes up by name"
)

// Counts are the sizes of a model's linear part.
type Counts struct {
	Attributes   int `json:"attributes"`
	Features     int `json:"features"`
	PairFeatures int `json:"pair_features,omitempty"`
}

func countsOf(lm *linear.Model) Counts {
	return Counts{Attributes: lm.NumAttrs(), Features: lm.NumFeatures(), PairFeatures: lm.NumPairs()}
}

// Report says what Model removed from one model.
type Report struct {
	Before Counts `json:"before"`
	After  Counts `json:"after"`
	Names  Names  `json:"zero_weight_attributes"`
	// Stages are the reports of the model's first stages, in its order.
	Stages []StageReport `json:"stages,omitempty"`
}

// StageReport is the report of one first stage.
type StageReport struct {
	Column string `json:"column"`
	Report
}

// Model returns m pruned, and what went. m is not changed; the result
// shares m's untouched parts (header slices, network, reranker).
func Model(m *model.Model) (*model.Model, Report, error) {
	vocab, err := tagger.VocabularyOf(m)
	if err != nil {
		return nil, Report{}, err
	}
	out, r := prune(m, vocab)
	for i, sm := range m.StageModels {
		ps, sr, err := Model(sm)
		if err != nil {
			return nil, Report{}, fmt.Errorf("stage %q: %w", m.Stages[i].Column, err)
		}
		out.StageModels[i] = ps
		r.Stages = append(r.Stages, StageReport{Column: m.Stages[i].Column, Report: sr})
	}
	return out, r, nil
}

// prune is Model for m's own linear part; vocab (nil: none) is the
// vocabulary to keep. The stage models are m's, in a slice of the result's
// own.
func prune(m *model.Model, vocab *tagger.Vocabulary) (*model.Model, Report) {
	lm := m.Linear
	r := Report{Before: countsOf(lm), Names: namesRule(m)}
	wholePairs := lm.PairOff != nil && !lm.AnyLivePair()
	keep := make([]bool, lm.NumAttrs())
	for a := range keep {
		keep[a] = r.Names != NamesDropped || lm.Live(a) ||
			wholePairs && lm.PairOff[a] < lm.PairOff[a+1] ||
			vocab != nil && vocab.Holds(m.Attrs[a])
	}
	ids := make([]int32, len(keep)) // new ID, -1 when dropped
	var attrs []string
	for a, k := range keep {
		ids[a] = -1
		if k {
			ids[a] = int32(len(attrs))
			attrs = append(attrs, m.Attrs[a])
		}
	}
	out := *m
	out.Attrs = attrs
	out.Linear = lm.Pruned(keep)
	out.StageModels = append([]*model.Model(nil), m.StageModels...)
	out.Provenance.Pruned = true
	if m.UnknownAttrs != nil {
		out.UnknownAttrs = make([]int32, len(m.UnknownAttrs))
		for g, u := range m.UnknownAttrs {
			out.UnknownAttrs[g] = -1
			if u >= 0 {
				out.UnknownAttrs[g] = ids[u]
			}
		}
	}
	r.After = countsOf(out.Linear)
	return &out, r
}

// namesRule says whether m's attributes of zero weight can go.
func namesRule(m *model.Model) Names {
	if m.Search != nil {
		return NamesKeptTransition
	}
	for _, u := range m.UnknownAttrs {
		if u >= 0 && m.Linear.Live(int(u)) {
			return NamesKeptUnknown
		}
	}
	return NamesDropped
}
