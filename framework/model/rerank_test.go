package model

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/rerank"
)

func sampleReranker() *rerank.Model {
	return &rerank.Model{Settings: rerank.DefaultSettings(), Features: []string{"score", "ngram/B-PER|I-PER"}, Weights: []float64{1, 0.25}}
}

// TestRerankVersion: a model with a reranker is written as format 6, its
// reranker pinned in the header and carried last, and reads back to the
// same bytes; a plain model keeps version 1 (no rerank key); a reranker
// whose bytes are not the pinned ones, and a version-5 file whose header
// claims a reranker, are refused.
func TestRerankVersion(t *testing.T) {
	if plain := encode(t, sampleModel()); bytes.Contains(plain, []byte(`"rerank"`)) {
		t.Error("a plain model's header has a reranker")
	}
	m := sampleModel()
	m.Reranker = sampleReranker()
	m.Rerank = &Rerank{K: 20, Folds: 10, Seed: 3}
	data := encode(t, m)
	if v := binary.LittleEndian.Uint32(data[8:]); v != RerankVersion || RerankVersion != 6 {
		t.Fatalf("reranked model written as version %d, want 6", v)
	}
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if got.Rerank == nil || got.Rerank.K != 20 || got.Rerank.Folds != 10 || got.Rerank.Seed != 3 || got.Rerank.Bytes == 0 || got.Reranker == nil {
		t.Fatalf("after a round trip: rerank %+v, reranker %v", got.Rerank, got.Reranker)
	}
	if got.Reranker.Weights[1] != 0.25 || got.Reranker.Features[1] != "ngram/B-PER|I-PER" || !bytes.Equal(encode(t, got), data) {
		t.Errorf("after a round trip: reranker %+v", got.Reranker)
	}
	// The reranker's bytes are last: flip one, fix the trailer.
	b := append([]byte(nil), data[:len(data)-32]...)
	b[len(b)-1] ^= 1
	if _, err := Decode(withChecksum(b)); err == nil || !strings.Contains(err.Error(), "pins") {
		t.Errorf("a reranker that is not the pinned one: %v", err)
	}
	b = append([]byte(nil), data[:len(data)-32]...)
	binary.LittleEndian.PutUint32(b[8:], TransitionVersion)
	if _, err := Decode(withChecksum(b)); err == nil {
		t.Error("a version 5 file with a rerank header decoded")
	}
	m.Rerank = nil
	if _, err := m.encode(); err == nil {
		t.Error("a reranker without its header (k) encoded")
	}
}
