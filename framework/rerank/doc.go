// Package rerank reranks the k-best lists of a first-pass sequence
// labeller with global features of whole labelings (Collins & Koo 2005).
//
// A List is one sentence's k candidates — label strings in the first
// pass's scheme, with its scores, best first — plus the sentence's words,
// its document and, for training, its gold labels. An Extractor turns a
// candidate into features no factored model can see: label bigrams and
// trigrams, span counts by type, each span's type with its length, shape
// and words, whether the document's other sentences give the same words
// and strings the same type (read from their first-pass 1-best, so that a
// candidate's features never depend on how the reranker chose elsewhere),
// the first pass's rank, and its score relative to the 1-best as the one
// real-valued feature. Keys are interned in a Dict; spans are decoded by
// scheme.Chunks, so they are the spans conlleval counts.
//
// Encode extracts a corpus of lists once into a Set (flat buffers, with
// each candidate's span counts against gold). The learners — the averaged
// perceptron and maxent over each list by L-BFGS (framework/optim) — aim
// at the oracle-best candidates, those of highest sentence F1. Oracle
// gives the best corpus F1 a choice of candidates reaches (exactly, by
// Dinkelbach's method), the bound reranking works under. Training lists
// must come from a first pass that never saw their sentences: framework/run
// builds them by K folds of whole documents (a learner's rerank block),
// DocKeys numbering the documents, or by folds of sentences for a corpus
// without document boundaries, whose lists then have no document (Doc −1):
// a document's other sentences would have been listed by fold models that
// trained on the sentence.
//
// A Model holds the settings, the features with a nonzero weight and
// their weights, and serializes to JSON or to a compact binary form, the
// same bytes for the same model. Everything is deterministic: the
// perceptron's shuffling is seeded by Settings.Seed, L-BFGS has no
// randomness, and feature IDs follow the order the lists are encoded in.
//
// A learner's rerank block (framework/spec) trains one in a run
// (framework/run), the model file carries it (framework/model) and the
// tagger reranks with it (framework/tagger);
// framework/rerank/experiment_test.go is the measurement on CoNLL-2003
// that docs/results.md reports.
package rerank
