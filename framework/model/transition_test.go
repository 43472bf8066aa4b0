package model

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// TestSearchVersion: a model that decodes by transition search is written
// as format 5 with its search in the header and reads back the same; a
// plain model keeps version 1 (no search key); a version-4 file whose
// header claims a search, or a search of width 0, is refused.
func TestSearchVersion(t *testing.T) {
	if plain := encode(t, sampleModel()); bytes.Contains(plain, []byte(`"search"`)) {
		t.Error("a plain model's header has a search")
	}
	m := sampleModel()
	m.Search = &Search{Method: SearchTransition, Beam: 4}
	data := encode(t, m)
	if v := binary.LittleEndian.Uint32(data[8:]); v != TransitionVersion || TransitionVersion != 5 {
		t.Fatalf("transition model written as version %d, want 5", v)
	}
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if got.Search == nil || *got.Search != *m.Search || got.Version != TransitionVersion || !bytes.Equal(encode(t, got), data) {
		t.Errorf("after a round trip: search %+v, version %d", got.Search, got.Version)
	}
	b := append([]byte(nil), data[:len(data)-32]...)
	binary.LittleEndian.PutUint32(b[8:], NeuralVersion)
	if _, err := Decode(withChecksum(b)); err == nil {
		t.Error("a version 4 file with a search header decoded")
	}
	m.Search.Beam = 0
	if _, err := Decode(encode(t, m)); err == nil {
		t.Error("a search of width 0 decoded")
	}
}
