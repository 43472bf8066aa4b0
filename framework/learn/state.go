package learn

import (
	"bytes"
	"encoding/gob"
)

// EncodeState serializes a learner's checkpoint state (a pointer to a
// struct of exported fields). gob writes float64s by their bits, so the
// state comes back exactly, which exact resumption needs.
func EncodeState(state any) ([]byte, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(state); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// DecodeState reads what EncodeState wrote into state.
func DecodeState(b []byte, state any) error {
	return gob.NewDecoder(bytes.NewReader(b)).Decode(state)
}
