// This file holds what a run does for a transition learner: the training
// data's decision-history inputs (documents and word keys) and dev
// scoring by transition search, as framework/tagger decodes the model.

package run

import (
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/linear"
	"github.com/trellis-nlp/trellis/framework/spec"
	"github.com/trellis-nlp/trellis/framework/transition"
)

// newTrainHistory is the decision-history input of the training
// sentences sents (the Dataset's, in order): the decisions template, the
// document of each sentence (runs of corpus.SameDocument) and, with
// document features, each token's word key (keys restart with each
// document). Without a decisions template only the documents are set.
func newTrainHistory(mp *feature.Mapper, sents []*corpus.Sentence) *learn.History {
	b := newHistoryBuilder(mp)
	b.add(sents)
	return b.h
}

// historyBuilder builds a training History batch by batch, in corpus
// order (the streamed encoding, dataset.go).
type historyBuilder struct {
	h    *learn.History
	col  int // the column the document features read, -1 without
	keys transition.Keys
	last *corpus.Sentence // the sentence before the next batch's first
}

func newHistoryBuilder(mp *feature.Mapper) *historyBuilder {
	// The labels are the fitted mapper's: the caller sets them once the
	// mapper is fitted (newTrainHistory's is already).
	b := &historyBuilder{h: &learn.History{Labels: mp.Labels().Names()}}
	name, d, x, ok := mp.DecisionsOf()
	if ok {
		b.h.Name, b.h.Decisions = name, d
	}
	b.col = decisionColumn(x, d)
	return b
}

// add appends sents' documents (and word keys) to the history.
func (b *historyBuilder) add(sents []*corpus.Sentence) {
	h := b.h
	for _, s := range sents {
		doc := int32(0)
		if n := len(h.Documents); n > 0 {
			doc = h.Documents[n-1]
			if !corpus.SameDocument(b.last, s) {
				doc++
				b.keys.Reset()
			}
		}
		h.Documents = append(h.Documents, doc)
		if b.col >= 0 {
			h.Keys = b.keys.Sentence(h.Keys, s.Tokens, b.col)
		}
		b.last = s
	}
}

// decisionColumn is the column a decisions extractor's document features
// read, -1 without them.
func decisionColumn(x feature.Extractor, d feature.Decisions) int {
	if dc, ok := x.(feature.DecisionColumn); ok && d.Document {
		return dc.DecisionColumn()
	}
	return -1
}

// devTransition is dev scoring's transition search: the layout, the
// search width, the dev documents ([start, end) runs of sentences) and
// the column the document features read (-1 without).
type devTransition struct {
	lay    *transition.Layout
	width  int
	docs   [][2]int
	column int
	// numAttrs is the mapper's attribute count: history attribute h is
	// model attribute numAttrs+h (learn.Result.ExtraAttrs).
	numAttrs int
}

// setTransition makes d decode by transition search when li's learner
// does (learn.DecisionLearner).
func (d *devDecoder) setTransition(li *spec.LearnerInstance) {
	width := learn.SearchBeam(li.Learner)
	if width == 0 {
		return
	}
	t := &devTransition{width: width, column: -1, numAttrs: d.enc.mapper.Attrs().Len()}
	if name, dec, x, ok := d.enc.mapper.DecisionsOf(); ok {
		lay, err := transition.NewLayout(name, dec, d.enc.mapper.Labels().Names())
		if err != nil {
			panic(err) // the learner built the same layout before any dev score
		}
		t.lay, t.column = lay, decisionColumn(x, dec)
	}
	sents := d.enc.devSents
	for k := range sents {
		if k == 0 || !corpus.SameDocument(sents[k-1], sents[k]) {
			t.docs = append(t.docs, [2]int{k, k})
		}
		t.docs[len(t.docs)-1][1] = k + 1
	}
	d.trans = t
}

// decodeTransitionShare decodes the dev documents w, w+threads, … with m
// by transition search, sentence after sentence, committing each one's
// labels to its document's history, as tagger.Tagger does.
func (d *devDecoder) decodeTransitionShare(m *linear.Model, chain *lattice.Chain, w int) {
	t := d.trans
	labels := d.enc.mapper.Labels().Names()
	attrs := make([]int32, t.lay.H())
	for h := range attrs {
		attrs[h] = int32(t.numAttrs + h)
	}
	var sc lattice.Scores
	chain.Attach(&sc)
	in := transition.Sentence{Scores: &sc, History: transition.Weights(nil, m, attrs)}
	var doc transition.Document
	var keys transition.Keys
	var keyBuf, path []int32
	in.Context.Doc = &doc
	srch := transition.New(t.lay, t.width)
	for r := w; r < len(t.docs); r += d.threads {
		doc.Reset()
		keys.Reset()
		for k := t.docs[r][0]; k < t.docs[r][1]; k++ {
			d.scorer.Lattice(&sc, d.enc.dev, k)
			if t.column >= 0 {
				keyBuf = keys.Sentence(keyBuf[:0], d.enc.devSents[k].Tokens, t.column)
				in.Context.SetKeys(keyBuf)
			}
			if cap(path) < sc.N {
				path = make([]int32, sc.N)
			}
			path = path[:sc.N]
			srch.Decode(path, &in)
			doc.Commit(t.lay, in.Context.Keys, path)
			for i, y := range path {
				d.sents[k].Pred[i] = labels[y]
			}
		}
	}
}
