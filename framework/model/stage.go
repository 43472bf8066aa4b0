package model

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// Stage is what a second-stage model's header records of one first stage
// it carries: the column its predictions fill, how the second stage's
// training column was made, and the embedded model file's size and
// SHA-256, checked when the model is read.
//
// A jackknifed stage (Model empty) is a learner of the spec, trained by
// K-fold jackknifing (folds of whole documents or of sentences, seeded),
// and reads the second stage's format. A model stage (Model set: the
// shipped name or path the spec gave) is a model trained elsewhere, run on
// every sentence; it reads its own format, whose word column and other
// columns the tagger fills from the second stage's by name (no Folds, By).
type Stage struct {
	Column  string `json:"column"`
	Model   string `json:"model,omitempty"`
	Learner string `json:"learner"`
	Type    string `json:"type"`
	Folds   int    `json:"folds,omitempty"`
	By      string `json:"by,omitempty"`
	Seed    uint64 `json:"seed"`
	Bytes   int    `json:"bytes"`
	SHA256  string `json:"sha256"`
}

// Fed reports whether the stage reads a format of its own (a model
// stage), fed from the second stage's columns by name.
func (st Stage) Fed() bool { return st.Model != "" }

// encodeStages encodes m's first-stage models and records their sizes and
// digests in h.Stages, which must have one entry per model.
func (m *Model) encodeStages(h *Header) ([][]byte, error) {
	if len(h.Stages) != len(m.StageModels) {
		return nil, fmt.Errorf("model: %d stages described, %d stage models", len(h.Stages), len(m.StageModels))
	}
	h.Stages = append([]Stage(nil), h.Stages...)
	out := make([][]byte, len(m.StageModels))
	for i, sm := range m.StageModels {
		if len(sm.StageModels) > 0 {
			return nil, fmt.Errorf("model: stage %q is itself a second stage; two stages are supported", h.Stages[i].Column)
		}
		b, err := sm.encode()
		if err != nil {
			return nil, fmt.Errorf("model: stage %q: %w", h.Stages[i].Column, err)
		}
		sum := sha256.Sum256(b)
		h.Stages[i].Bytes, h.Stages[i].SHA256 = len(b), hex.EncodeToString(sum[:])
		out[i] = b
	}
	return out, nil
}

// decodeStages reads the embedded first-stage model files that follow the
// weights, checking each against its recorded size and SHA-256.
func decodeStages(r *reader, stages []Stage) ([]*Model, error) {
	var out []*Model
	for i, st := range stages {
		n := r.count(1, "stage model")
		b := r.take(uint64(n), "stage model")
		if r.err != nil {
			return nil, r.err
		}
		sum := sha256.Sum256(b)
		if n != st.Bytes || hex.EncodeToString(sum[:]) != st.SHA256 {
			return nil, fmt.Errorf("corrupted model: stage %d (%q) is not the model its header pins (%d bytes, sha256 %s)", i, st.Column, st.Bytes, st.SHA256)
		}
		sm, err := Decode(b)
		if err != nil {
			return nil, fmt.Errorf("stage %q: %w", st.Column, err)
		}
		if len(sm.Stages) > 0 {
			return nil, fmt.Errorf("stage %q is itself a second stage; two stages are supported", st.Column)
		}
		out = append(out, sm)
	}
	return out, nil
}
