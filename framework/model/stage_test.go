package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"strings"
	"testing"
)

// staged is sampleModel carrying sampleModel as its first stage.
func staged() *Model {
	m := sampleModel()
	m.Format.Columns = []string{"word", "chunk"}
	m.Stages = []Stage{{Column: "pred", Learner: "first", Type: "perceptron", Folds: 10, By: "document", Seed: 7}}
	m.StageModels = []*Model{sampleModel()}
	return m
}

func TestStageRoundTrip(t *testing.T) {
	m := staged()
	b := encode(t, m)
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != Version || len(got.Stages) != 1 || len(got.StageModels) != 1 {
		t.Fatalf("version %d, %d stages, %d stage models", got.Version, len(got.Stages), len(got.StageModels))
	}
	inner := encode(t, sampleModel())
	sum := sha256.Sum256(inner)
	st := got.Stages[0]
	if st.SHA256 != hex.EncodeToString(sum[:]) || st.Bytes != len(inner) || st.Column != "pred" || st.Folds != 10 || st.By != "document" {
		t.Errorf("stage header %+v; the embedded model is %d bytes, sha256 %x", st, len(inner), sum)
	}
	if !reflect.DeepEqual(got.StageModels[0].Linear, m.StageModels[0].Linear) || !reflect.DeepEqual(got.StageModels[0].Attrs, m.StageModels[0].Attrs) {
		t.Error("the stage model differs after the round trip")
	}
	// Encoding is exact-size and deterministic.
	if again := encode(t, got); !bytes.Equal(again, b) {
		t.Error("a decoded staged model encodes to other bytes")
	}
}

func TestStageRefused(t *testing.T) {
	t.Run("a stage that is itself staged", func(t *testing.T) {
		m := staged()
		m.StageModels[0] = staged()
		if err := m.Encode(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "two stages are supported") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("stages without models", func(t *testing.T) {
		m := staged()
		m.StageModels = nil
		if err := m.Encode(&bytes.Buffer{}); err == nil {
			t.Error("encoded")
		}
	})
	t.Run("an embedded model that is not the one pinned", func(t *testing.T) {
		b := encode(t, staged())
		// Change one weight of the embedded model (its last 8 bytes
		// before its own checksum) and fix the outer checksum: the pin
		// must catch it.
		inner := len(encode(t, sampleModel()))
		at := len(b) - sha256.Size - sha256.Size - 1
		if at < len(b)-sha256.Size-inner {
			t.Fatal("layout")
		}
		body := append([]byte(nil), b[:len(b)-sha256.Size]...)
		body[at] ^= 0xff
		_, err := Decode(withChecksum(body))
		if err == nil || !strings.Contains(err.Error(), "is not the model its header pins") {
			t.Errorf("err = %v", err)
		}
	})
}
