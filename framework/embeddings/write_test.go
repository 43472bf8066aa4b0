// write_test.go: Write's output reads back to the same bits, and Write
// refuses what it cannot write.

package embeddings

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

// TestRoundTrip writes awkward values in every format to a file, reads
// them back with the format given and detected, and gets the same words
// and bits; writing what was read gives the same bytes again.
func TestRoundTrip(t *testing.T) {
	want := sample()
	for _, f := range []Format{Word2VecText, FastText, GloVe, Word2VecBinary} {
		data := encode(t, want, f)
		path := writeFile(t, "round."+f.String(), data)
		for _, rf := range []Format{f, Auto} {
			v, err := Read(path, Options{Format: rf})
			if err != nil {
				t.Fatalf("%v read as %v: %v", f, rf, err)
			}
			sameVectors(t, v, want)
			if again := encode(t, v, f); !bytes.Equal(again, data) {
				t.Errorf("%v: rewriting what was read changed the bytes", f)
			}
		}
	}
}

// TestWriteLayout pins the exact bytes of each layout.
func TestWriteLayout(t *testing.T) {
	v := vec([]string{"a", "b"}, []float32{1, -0.5}, []float32{0.1, 2e-7})
	for f, want := range map[Format]string{
		Word2VecText:   "2 2\na 1 -0.5\nb 0.1 2e-07\n",
		FastText:       "2 2\na 1 -0.5\nb 0.1 2e-07\n",
		GloVe:          "a 1 -0.5\nb 0.1 2e-07\n",
		Word2VecBinary: "2 2\na " + string(le(1, -0.5)) + "\nb " + string(le(0.1, 2e-7)) + "\n",
	} {
		if got := string(encode(t, v, f)); got != want {
			t.Errorf("%v: wrote %q, want %q", f, got, want)
		}
	}
}

// TestWriteRefuses checks Write's checks of the format and the vectors.
func TestWriteRefuses(t *testing.T) {
	good := func() *Vectors { return vec([]string{"a", "b"}, []float32{1, 2}, []float32{3, 4}) }
	tests := []struct {
		name   string
		change func(v *Vectors)
		format Format
		err    error
		msg    string
	}{
		{"auto", func(*Vectors) {}, Auto, ErrFormat, "cannot write format auto"},
		{"unknown format", func(*Vectors) {}, Format(9), ErrFormat, "Format(9)"},
		{"no words", func(v *Vectors) { v.Words, v.Data = nil, nil }, GloVe, ErrEmpty, "no words"},
		{"dim 0", func(v *Vectors) { v.Dim = 0 }, GloVe, ErrDim, "Dim 0"},
		{"short data", func(v *Vectors) { v.Data = v.Data[:3] }, GloVe, ErrValues, "3 values for 2 words of 2"},
		{"space in word", func(v *Vectors) { v.Words[1] = "b c" }, Word2VecText, ErrWord, `word 2 "b c"`},
		{"empty word", func(v *Vectors) { v.Words[0] = "" }, Word2VecBinary, ErrWord, "empty word"},
		{"bad utf-8", func(v *Vectors) { v.Words[0] = "\xff" }, GloVe, ErrWord, "not valid UTF-8"},
		{"repeated word", func(v *Vectors) { v.Words[1] = "a" }, GloVe, ErrWord, "repeats"},
		{"nan", func(v *Vectors) { v.Data[3] = float32(math.NaN()) }, GloVe, ErrNumber, `word 2 "b": value 2 is NaN`},
		{"inf", func(v *Vectors) { v.Data[0] = float32(math.Inf(-1)) }, Word2VecBinary, ErrNumber, "-Inf"},
	}
	for _, tt := range tests {
		v := good()
		tt.change(v)
		var b bytes.Buffer
		err := Write(&b, v, tt.format)
		if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: got %v, want %v saying %q", tt.name, err, tt.err, tt.msg)
		}
		if b.Len() != 0 {
			t.Errorf("%s: wrote %d bytes before failing", tt.name, b.Len())
		}
	}
}
