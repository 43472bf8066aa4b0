// This file holds the tagging of a transition model (model.Header.Search):
// sentences are decoded by framework/transition's greedy or beam search
// over the lattice's static scores plus the model's history weights, each
// sentence's labels committed to its document's history, as dev scoring
// (framework/run) decodes the model in training.

package tagger

import (
	"errors"
	"fmt"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/transition"
)

// ErrTransitionDetail is returned by the calls that describe more than
// the one labelling a transition model's search finds: n-best lists,
// marginals and explanations read the lattice, which does not hold the
// model's history features.
var ErrTransitionDetail = errors.New("a transition model decodes by its own search over the decision history; n-best lists, marginals and explanations are not available for it")

// ErrTransitionDecode is the error of a decoding method or joint decoding
// asked of a transition model, which decodes only by its own search.
var ErrTransitionDecode = errors.New("a transition model decodes by its own search (greedy or beam, its width in the model); it takes no other decoding method or joint decoding")

// transModel is what a transition model's taggers share, read only: the
// history layout, the history weights (an [H][L] matrix, element h*L+y
// the weight of history attribute h with label y), the search width and
// the column the document features read (-1 without).
type transModel struct {
	lay    *transition.Layout
	hist   []float64
	width  int
	column int
}

// transState is one tagger's search and document history.
type transState struct {
	*transModel
	srch   *transition.Search
	in     transition.Sentence
	doc    transition.Document
	keys   transition.Keys
	keyBuf []int32
}

// newTransition prepares t to decode a transition model: the layout from
// its decisions template and labels, and the history weights found by
// their names in its attribute list.
func (t *Tagger) newTransition(opt Options) error {
	s := t.Model.Search
	if s == nil {
		return nil
	}
	if opt.Decode != lattice.DecodeViterbi || opt.Joint.Enabled() {
		return fmt.Errorf("%w (this one: beam %d)", ErrTransitionDecode, s.Beam)
	}
	tm := &transModel{width: s.Beam, column: -1}
	if name, d, x, ok := t.mapper.DecisionsOf(); ok {
		lay, err := transition.NewLayout(name, d, t.Model.Labels)
		if err != nil {
			return fmt.Errorf("model history: %w", err)
		}
		attrs := make([]int32, lay.H())
		for h, n := range lay.Names() {
			a, ok := t.mapper.Attrs().LookupString(n)
			if !ok {
				return fmt.Errorf("corrupted model: history attribute %q is not among its attributes", n)
			}
			attrs[h] = a
		}
		tm.lay, tm.hist = lay, transition.Weights(nil, t.Model.Linear, attrs)
		if dc, ok := x.(feature.DecisionColumn); ok && d.Document {
			tm.column = dc.DecisionColumn()
		}
	}
	t.trans = newTransState(tm)
	return nil
}

// newTransState is a tagger's own search over the shared tm.
func newTransState(tm *transModel) *transState {
	ts := &transState{transModel: tm, srch: transition.New(tm.lay, tm.width)}
	ts.in.History = tm.hist
	ts.in.Context.Doc = &ts.doc
	return ts
}

// decodeTransition decodes sentence k of the batch sents (encoded as
// data) by transition search and commits its labels to the document's
// history; a sentence that begins a document (the batch's first, which
// EndsBatch makes one for a model with document features) empties the
// history first. It returns the label IDs (a view into a reused buffer).
func (t *Tagger) decodeTransition(sents []*corpus.Sentence, data *feature.Dataset, k int) []int32 {
	ts := t.trans
	if k == 0 || !corpus.SameDocument(sents[k-1], sents[k]) {
		ts.doc.Reset()
		ts.keys.Reset()
	}
	t.lattice(&t.scores, data, k)
	n := t.scores.N
	if cap(t.path) < n {
		t.path = make([]int32, n)
	}
	t.path = t.path[:n]
	ts.in.Scores = &t.scores
	if ts.column >= 0 {
		ts.keyBuf = ts.keys.Sentence(ts.keyBuf[:0], sents[k].Tokens, ts.column)
		ts.in.Context.SetKeys(ts.keyBuf)
	}
	ts.srch.Decode(t.path, &ts.in)
	ts.doc.Commit(ts.lay, ts.in.Context.Keys, t.path)
	return t.path
}
