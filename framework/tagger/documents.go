package tagger

import "github.com/trellis-nlp/trellis/framework/corpus"

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
