// rerank.go tags with a model that carries a reranker (model.Rerank): each
// batch (whole documents) is decoded to its k best paths, which become
// rerank.Lists, and the reranker picks one path per sentence.

package tagger

import (
	"errors"
	"fmt"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/rerank"
)

// ErrRerankDetail is returned by the calls that describe the model's own
// paths (n-best, marginals, explain) for a reranked model: they would
// describe the first pass, not the labels tagging gives.
var ErrRerankDetail = errors.New("a reranked model's labels are the reranker's choice among the first pass's k best; n-best lists, marginals and explanations describe the first pass only and are not available for it")

// rerankState is a reranked model's tagging: the reranker and the
// candidates per sentence.
type rerankState struct {
	model *rerank.Model
	k     int
}

// newRerank sets up reranking for a model with a reranker: Viterbi
// n-best only (the reranker was trained on n-best Viterbi lists), and
// batches of whole documents, since the reranker's document features read
// a document's other sentences.
func (t *Tagger) newRerank(m *model.Model, opt Options) error {
	if m.Reranker == nil {
		return nil
	}
	switch {
	case m.Rerank == nil:
		return fmt.Errorf("model: a reranker without its header")
	case t.trans != nil:
		return fmt.Errorf("model: a transition model cannot be reranked (no k-best lists)")
	case opt.Joint.Enabled():
		return fmt.Errorf("a reranked model cannot decode jointly (consistency, constraints): reranking needs the first pass's k-best lists")
	case opt.Decode != lattice.DecodeViterbi:
		return fmt.Errorf("a reranked model reranks the first pass's k best viterbi paths; it cannot decode with %s", opt.Decode)
	case t.WordColumn() < 0:
		return fmt.Errorf("a reranked model needs a word column; format %s has none", t.Format.Name())
	}
	t.rr = &rerankState{model: m.Reranker, k: m.Rerank.K}
	// Document features read the batch's other sentences of a document;
	// without them a file without boundaries need not be one batch.
	t.documents = t.documents || m.Reranker.ReadsDocuments()
	return nil
}

// Lists decodes a batch of whole documents with the model's k best paths
// (the first pass's, for a reranked model) and returns them as rerank
// lists: list j is sents[j]'s, in the scheme the tagger emits, with its
// words and its document's key within the batch (rerank.DocKeys), no gold.
func (t *Tagger) Lists(sents []*corpus.Sentence, k int) ([]rerank.List, error) {
	if t.joint != nil {
		return nil, ErrJointDetail
	}
	if t.trans != nil {
		return nil, ErrTransitionDetail
	}
	word := t.WordColumn()
	if word < 0 {
		return nil, fmt.Errorf("k-best lists need a word column; format %s has none", t.Format.Name())
	}
	decoded, err := t.detailed(sents, k, false)
	if err != nil {
		return nil, err
	}
	docs := rerank.DocKeys(sents)
	out := make([]rerank.List, len(sents))
	for j, s := range sents {
		l := rerank.List{Words: make([]string, s.Len()), Doc: docs[j], Labels: decoded[j].Paths, Scores: decoded[j].Scores}
		for i, tok := range s.Tokens {
			l.Words[i] = tok[word]
		}
		if err := l.Check(); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", s.File, s.Line, err)
		}
		out[j] = l
	}
	return out, nil
}

// tagReranked is tag for a reranked model: the batch's lists, reranked
// together, and each sentence's chosen path as its labels (already in the
// scheme the tagger emits). out is reused when large enough.
func (t *Tagger) tagReranked(sents []*corpus.Sentence, out [][]string) ([][]string, error) {
	lists, err := t.Lists(sents, t.rr.k)
	if err != nil {
		return nil, err
	}
	choice, err := t.rr.model.Rerank(lists)
	if err != nil {
		return nil, fmt.Errorf("reranking: %w", err)
	}
	if cap(out) < len(sents) {
		out = make([][]string, len(sents))
	}
	out = out[:len(sents)]
	for j := range sents {
		out[j] = lists[j].Labels[choice[j]]
	}
	return out, nil
}
