package tokenize

// This file holds the scoring of a tokenizer against gold text.

import (
	"fmt"
	"io"

	"github.com/trellis-nlp/trellis/framework/corpus"
)

// Counts tally spans for precision and recall: the gold ones, the
// predicted ones, and those in both.
type Counts struct {
	Gold      int `json:"gold"`
	Predicted int `json:"predicted"`
	Correct   int `json:"correct"`
}

// Precision is Correct/Predicted, 0 when nothing was predicted.
func (c Counts) Precision() float64 { return ratio(c.Correct, c.Predicted) }

// Recall is Correct/Gold, 0 when there is no gold span.
func (c Counts) Recall() float64 { return ratio(c.Correct, c.Gold) }

// F1 is the harmonic mean of precision and recall.
func (c Counts) F1() float64 { return ratio(2*c.Correct, c.Gold+c.Predicted) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Scores are a tokenizer's figures on gold documents: tokens match when
// both their offsets do; sentence ends match when their offsets do.
// Boundaries are the ends inside a document; Ends count each document's
// last one too, which every tokenizer gets right (the figures usually
// quoted for sentence splitting count them).
type Scores struct {
	Documents  int    `json:"documents"`
	Tokens     Counts `json:"tokens"`
	Boundaries Counts `json:"sentence_boundaries"`
	Ends       Counts `json:"sentence_ends"`
}

// Add scores the sentences pred that a tokenizer gave doc.Text.
func (sc *Scores) Add(doc *corpus.TextDocument, pred []Sentence) {
	sc.Documents++
	gold := make(map[corpus.TextSpan]bool, len(doc.Tokens))
	for _, t := range doc.Tokens {
		gold[t] = true
	}
	sc.Tokens.Gold += len(doc.Tokens)
	for _, s := range pred {
		for _, t := range s.Tokens {
			sc.Tokens.Predicted++
			if gold[corpus.TextSpan{Start: t.Start, End: t.End}] {
				sc.Tokens.Correct++
			}
		}
	}
	addEnds(&sc.Boundaries, doc.Sentences[:max(0, len(doc.Sentences)-1)], pred[:max(0, len(pred)-1)])
	addEnds(&sc.Ends, doc.Sentences, pred)
}

// addEnds counts the sentence ends of gold and pred, and those in both.
func addEnds(c *Counts, gold []corpus.TextSpan, pred []Sentence) {
	ends := make(map[int]bool, len(gold))
	for _, s := range gold {
		ends[s.End] = true
	}
	c.Gold += len(ends)
	for _, s := range pred {
		c.Predicted++
		if ends[s.End] {
			c.Correct++
		}
	}
}

// Score tokenizes every document that docs reads and scores it.
func Score(docs *corpus.TextDocumentReader, tok Tokenizer) (Scores, error) {
	var sc Scores
	for {
		doc, err := docs.Read()
		if err == io.EOF {
			return sc, nil
		}
		if err != nil {
			return sc, err
		}
		pred, err := tok.Tokenize(doc.Text)
		if err != nil {
			return sc, fmt.Errorf("%s:%d: %w", doc.File, doc.Line, err)
		}
		sc.Add(doc, pred)
	}
}
