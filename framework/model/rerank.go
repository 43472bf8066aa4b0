// rerank.go holds how a model file carries a reranker (Header.Rerank,
// Model.Reranker): its description and pin in the JSON header, its bytes
// (rerank.Model's binary form) last, after the network.

package model

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/trellis-nlp/trellis/framework/rerank"
)

// Rerank is what a reranked model's header records of its reranker: the
// candidates per sentence the first pass lists (K), how the reranker's
// training lists were jackknifed (Folds of whole train documents, or of
// sentences when By is "sentence", dealt by Seed), and the reranker's
// bytes' size and SHA-256, checked when the model is read.
type Rerank struct {
	K     int `json:"k"`
	Folds int `json:"folds"`
	// By is "" for folds of documents (so older headers keep their bytes)
	// or "sentence".
	By     string `json:"by,omitempty"`
	Seed   uint64 `json:"seed"`
	Bytes  int    `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// maxRerankK bounds a model file's k, so that a corrupted header cannot
// ask for huge n-best lists.
const maxRerankK = 1 << 12

// encodeRerank records m's reranker in h (its pin) and returns its bytes,
// nil without a reranker.
func (m *Model) encodeRerank(h *Header) ([]byte, error) {
	if m.Reranker == nil {
		h.Rerank = nil
		return nil, nil
	}
	if h.Rerank == nil || h.Rerank.K < 2 || h.Rerank.K > maxRerankK {
		return nil, fmt.Errorf("model: a reranker needs Header.Rerank with k in [2, %d]", maxRerankK)
	}
	b, err := m.Reranker.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("model: reranker: %w", err)
	}
	rr := *h.Rerank
	sum := sha256.Sum256(b)
	rr.Bytes, rr.SHA256 = len(b), hex.EncodeToString(sum[:])
	h.Rerank = &rr
	return b, nil
}

// decodeRerank reads the reranker's bytes that follow the network,
// checking them against the header's size and SHA-256.
func decodeRerank(r *reader, h *Rerank) (*rerank.Model, error) {
	if h.K < 2 || h.K > maxRerankK {
		return nil, fmt.Errorf("corrupted model: a reranker of k = %d", h.K)
	}
	n := r.count(1, "reranker")
	b := r.take(uint64(n), "reranker")
	if r.err != nil {
		return nil, r.err
	}
	sum := sha256.Sum256(b)
	if n != h.Bytes || hex.EncodeToString(sum[:]) != h.SHA256 {
		return nil, fmt.Errorf("corrupted model: the reranker is not the one its header pins (%d bytes, sha256 %s)", h.Bytes, h.SHA256)
	}
	var m rerank.Model
	if err := m.UnmarshalBinary(b); err != nil {
		return nil, fmt.Errorf("corrupted model: %w", err)
	}
	return &m, nil
}
