package eval

import (
	"encoding/json"
	"fmt"

	"github.com/trellis-nlp/trellis/framework/scheme"
)

// Partial holds Evaluate's counts over part of a corpus, so that a corpus
// scored in pieces (by parallel workers, in any order) gives exactly the
// Result that Evaluate gives on the whole: Add the sentences of each piece
// to its own Partial, Merge the Partials in any order and grouping, and
// call Result. Every figure of a Result is a sum of per-sentence counts
// (the per-label and confusion figures are sums over label pairs, sorted
// when the Result is made), which is what makes this exact.
//
// A Partial serializes to JSON (MarshalJSON / UnmarshalJSON) to travel
// between processes, with its scheme. Options.Vocabulary does not travel:
// to Add more sentences with a vocabulary after decoding, Merge the decoded
// Partial into one made by NewPartial with that vocabulary.
type Partial struct {
	e *evaluator
}

// NewPartial returns empty counts for sentences scored with o.
func NewPartial(o Options) *Partial {
	return &Partial{e: newEvaluator(nil, o)}
}

// Add counts one sentence. Like Evaluate it panics if the sentence's Pred,
// OOV or Chars length differs from its Gold length.
func (p *Partial) Add(s Sentence) {
	e := p.e
	check(e.r.Sentences, &s)
	if s.Chars == nil {
		// Evaluate splits words into in- and out-of-vocabulary only when
		// every sentence has Chars.
		e.withVocab = false
	}
	e.r.Sentences++
	e.addTokens(&s)
	if e.spans {
		e.addSpans(&s)
	}
	if e.seg {
		e.addWords(&s)
	}
}

// Merge adds q's counts to p. p and q must have been made with the same
// Options.
func (p *Partial) Merge(q *Partial) {
	a, b := p.e, q.e
	ra, rb := a.r, b.r
	ra.Sentences += rb.Sentences
	ra.Tokens += rb.Tokens
	ra.Correct += rb.Correct
	ra.IVTokens += rb.IVTokens
	ra.OOVTokens += rb.OOVTokens
	a.ivCorrect += b.ivCorrect
	a.oovCorrect += b.oovCorrect
	a.sentCorrect += b.sentCorrect
	ids := make([]int, len(b.labels.names))
	for k, l := range b.labels.names {
		ids[k] = a.labels.id(l)
	}
	for gi, row := range b.labels.conf {
		for pi, n := range row {
			a.labels.conf[ids[gi]][ids[pi]] += n
		}
	}
	ra.GoldSpans += rb.GoldSpans
	ra.PredSpans += rb.PredSpans
	for typ, c := range rb.PerType {
		t := typeStats(ra.PerType, typ)
		t.Gold += c.Gold
		t.Pred += c.Pred
		t.Correct += c.Correct
	}
	a.words.GoldWords += b.words.GoldWords
	a.words.PredWords += b.words.PredWords
	a.words.CorrectWords += b.words.CorrectWords
	a.words.IVWords += b.words.IVWords
	a.words.OOVWords += b.words.OOVWords
	a.ivFound += b.ivFound
	a.oovFound += b.oovFound
	a.withVocab = a.withVocab && b.withVocab
}

// Result returns the scores of everything added and merged so far, equal
// to Evaluate's over the same sentences. p is unchanged.
func (p *Partial) Result() *Result {
	c := NewPartial(p.e.o)
	c.e.withVocab = true // becomes p's by Merge
	c.Merge(p)
	e := c.e
	if !e.withVocab {
		// Counted for the sentences before one without Chars; Evaluate
		// counts none.
		e.words.IVWords, e.words.OOVWords = 0, 0
	}
	return e.finish()
}

// partialJSON is a Partial's wire form: plain counts.
type partialJSON struct {
	Scheme      scheme.Scheme     `json:"scheme"`
	Sentences   int               `json:"sentences"`
	Tokens      int               `json:"tokens"`
	Correct     int               `json:"correct"`
	SentCorrect int               `json:"sentence_correct"`
	IVTokens    int               `json:"iv_tokens"`
	OOVTokens   int               `json:"oov_tokens"`
	IVCorrect   int               `json:"iv_correct"`
	OOVCorrect  int               `json:"oov_correct"`
	Labels      []string          `json:"labels"`
	Confusion   [][]int           `json:"confusion"`
	GoldSpans   int               `json:"gold_spans"`
	PredSpans   int               `json:"pred_spans"`
	PerType     map[string][3]int `json:"per_type"` // gold, pred, correct
	Words       [5]int            `json:"words"`    // gold, pred, correct, IV, OOV
	IVFound     int               `json:"iv_found"`
	OOVFound    int               `json:"oov_found"`
	WithVocab   bool              `json:"with_vocab"`
}

// MarshalJSON writes the counts.
func (p *Partial) MarshalJSON() ([]byte, error) {
	e := p.e
	w := partialJSON{
		Scheme:    e.o.Scheme,
		Sentences: e.r.Sentences, Tokens: e.r.Tokens, Correct: e.r.Correct, SentCorrect: e.sentCorrect,
		IVTokens: e.r.IVTokens, OOVTokens: e.r.OOVTokens, IVCorrect: e.ivCorrect, OOVCorrect: e.oovCorrect,
		Labels: e.labels.names, Confusion: e.labels.conf,
		GoldSpans: e.r.GoldSpans, PredSpans: e.r.PredSpans, PerType: map[string][3]int{},
		Words:   [5]int{e.words.GoldWords, e.words.PredWords, e.words.CorrectWords, e.words.IVWords, e.words.OOVWords},
		IVFound: e.ivFound, OOVFound: e.oovFound, WithVocab: e.withVocab,
	}
	for typ, c := range e.r.PerType {
		w.PerType[typ] = [3]int{c.Gold, c.Pred, c.Correct}
	}
	return json.Marshal(w)
}

// UnmarshalJSON replaces p's counts and scheme with data's (p keeps its
// Options.Vocabulary, if any).
func (p *Partial) UnmarshalJSON(data []byte) error {
	var w partialJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if len(w.Confusion) != len(w.Labels) {
		return fmt.Errorf("eval: partial counts with %d labels but %d confusion rows", len(w.Labels), len(w.Confusion))
	}
	var o Options
	if p.e != nil {
		o = p.e.o
	}
	o.Scheme = w.Scheme
	e := newEvaluator(nil, o)
	r := e.r
	r.Sentences, r.Tokens, r.Correct, e.sentCorrect = w.Sentences, w.Tokens, w.Correct, w.SentCorrect
	r.IVTokens, r.OOVTokens, e.ivCorrect, e.oovCorrect = w.IVTokens, w.OOVTokens, w.IVCorrect, w.OOVCorrect
	for gi, g := range w.Labels {
		if len(w.Confusion[gi]) != len(w.Labels) {
			return fmt.Errorf("eval: partial counts: confusion row %d has %d entries, want %d", gi, len(w.Confusion[gi]), len(w.Labels))
		}
		for pi, pl := range w.Labels {
			e.labels.conf[e.labels.id(g)][e.labels.id(pl)] += w.Confusion[gi][pi]
		}
	}
	r.GoldSpans, r.PredSpans = w.GoldSpans, w.PredSpans
	if e.spans {
		for typ, c := range w.PerType {
			t := typeStats(r.PerType, typ)
			t.Gold, t.Pred, t.Correct = c[0], c[1], c[2]
		}
	}
	e.words.GoldWords, e.words.PredWords, e.words.CorrectWords = w.Words[0], w.Words[1], w.Words[2]
	e.words.IVWords, e.words.OOVWords = w.Words[3], w.Words[4]
	e.ivFound, e.oovFound = w.IVFound, w.OOVFound
	e.withVocab = w.WithVocab
	p.e = e
	return nil
}
