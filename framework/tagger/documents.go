package tagger

import (
	"context"
	"io"

	"github.com/trellis-nlp/trellis/framework/corpus"
)

// EndsBatch reports whether a caller collecting sentences into batches of
// about BatchSize for Tag, TagDetailed or Stream must tag batch before
// adding next to it. Without document features a batch ends at BatchSize
// sentences. With them (a feature.DocumentExtractor in the model) a
// document is never cut between batches, since its features would change
// with the cut: the batch ends only when it is full and next begins
// another document (corpus.SameDocument). A file without document
// boundaries is one document and so one batch: memory then grows with the
// file, but time stays linear (the extractors index a batch once).
func (t *Tagger) EndsBatch(batch []*corpus.Sentence, next *corpus.Sentence) bool {
	if len(batch) < BatchSize {
		return false
	}
	return !t.documents || !corpus.SameDocument(batch[len(batch)-1], next)
}

// ReadsDocuments reports whether the model has document features, whose
// values depend on the other sentences of a sentence's document.
func (t *Tagger) ReadsDocuments() bool { return t.documents }

// Batches reads r to its end and hands fn the sentences in batches as
// EndsBatch cuts them (about BatchSize sentences, never cutting a document
// when the model has document features), for callers that tag a batch
// otherwise than Stream does (TagDetailed, Explain). The batch slice is
// reused: fn must not keep it. It stops at the first error of r or fn, or
// when ctx is done.
func (t *Tagger) Batches(ctx context.Context, r corpus.Reader, fn func(batch []*corpus.Sentence) error) error {
	batch := make([]*corpus.Sentence, 0, BatchSize)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := fn(batch)
		batch = batch[:0]
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		s, err := r.Read()
		if err == io.EOF {
			return flush()
		}
		if err != nil {
			return err
		}
		if t.EndsBatch(batch, s) {
			if err := flush(); err != nil {
				return err
			}
		}
		batch = append(batch, s)
	}
}
