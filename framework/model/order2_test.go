package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/lattice"
)

// sampleSecondOrderModel is sampleModel with three label trigrams.
func sampleSecondOrderModel() *Model {
	m := sampleModel()
	lm := m.Linear
	tb := lm.TrigramBase()
	lm.W = slices.Concat(lm.W[:tb], []float64{0.5, -1, 2}, lm.W[tb:])
	lm.Trigrams = []lattice.Trigram{{A: lattice.Boundary, B: 0, C: 1}, {A: lattice.Boundary, B: 1, C: lattice.Boundary}, {A: 0, B: 1, C: lattice.Boundary}}
	return m
}

// TestSecondOrder: a second-order model is written as format version 3
// with its trigrams, reads back the same and re-encodes to the same
// bytes; a first-order model's header does not mention trigrams, and a
// header whose trigram count disagrees with the file is refused.
func TestSecondOrder(t *testing.T) {
	if plain := encode(t, sampleModel()); bytes.Contains(plain, []byte("trigrams")) {
		t.Fatal("a first-order model's header mentions trigrams")
	}
	m := sampleSecondOrderModel()
	lm, ts := m.Linear, m.Linear.Trigrams
	b := encode(t, m)
	if v := binary.LittleEndian.Uint32(b[8:]); v != SecondOrderVersion {
		t.Fatalf("a second-order model is written as version %d, want %d", v, SecondOrderVersion)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Linear.Trigrams, ts) || !reflect.DeepEqual(got.Linear.W, lm.W) || got.Trigrams != 3 || got.Linear.Order2() == nil {
		t.Fatalf("read back trigrams %v, weights %v, header %d", got.Linear.Trigrams, got.Linear.W, got.Trigrams)
	}
	if !bytes.Equal(encode(t, got), b) {
		t.Errorf("re-encoding a loaded second-order model changes its bytes")
	}
	c := bytes.Replace(append([]byte(nil), b[:len(b)-32]...), []byte(`"trigrams":3`), []byte(`"trigrams":2`), 1)
	sum := sha256.Sum256(c)
	if _, err := Decode(append(c, sum[:]...)); err == nil || !strings.Contains(err.Error(), "trigrams") {
		t.Fatalf("got %v, want a trigrams error", err)
	}
	// Trigrams out of order are a corrupted model, not a panic.
	lm.Trigrams = []lattice.Trigram{ts[1], ts[0], ts[2]}
	if _, err := m.encode(); err == nil {
		t.Fatal("a model with unsorted trigrams was written")
	}
}
