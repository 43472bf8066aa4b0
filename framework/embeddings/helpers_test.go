// helpers_test.go: sample vectors and helpers shared by the tests.

package embeddings

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// sample returns vectors whose words and values are awkward: non-ASCII
// words, a non-breaking space inside a word, -0, a subnormal, the
// largest float32, and values that need all nine digits.
func sample() *Vectors {
	words := []string{"the", ",", "Paris", "paris", "naïve", "東京", "a\u00a0b", "-0.5"}
	dim := 4
	data := make([]float32, 0, len(words)*dim)
	special := []float32{
		float32(math.Copysign(0, -1)), math.SmallestNonzeroFloat32, math.MaxFloat32, -math.MaxFloat32,
		0.1, -1.0 / 3, 1e-20, 123456.79,
	}
	for i := range words {
		for j := range dim {
			x := float32(math.Sin(float64(i*dim+j+1))) * 0.3
			if k := i*dim + j; k < len(special) {
				x = special[k]
			}
			data = append(data, x)
		}
	}
	return &Vectors{Dim: dim, Words: words, Data: data}
}

// encode writes v in format f.
func encode(t testing.TB, v *Vectors, f Format) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, v, f); err != nil {
		t.Fatalf("Write %v: %v", f, err)
	}
	return b.Bytes()
}

// gz compresses data with gzip.
func gz(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// readBytes reads data as the file name.
func readBytes(data []byte, name string, o Options) (*Vectors, error) {
	return ReadFrom(bytes.NewReader(data), name, o)
}

// writeFile writes data to a file called name in a fresh directory and
// returns its path.
func writeFile(t testing.TB, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// sha returns the hex SHA-256 of data.
func sha(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// sameVectors fails unless got has want's dimension, words and value
// bits.
func sameVectors(t testing.TB, got, want *Vectors) {
	t.Helper()
	if got.Dim != want.Dim || len(got.Words) != len(want.Words) || len(got.Data) != len(want.Data) {
		t.Fatalf("got %d words × %d (%d values), want %d × %d (%d)",
			len(got.Words), got.Dim, len(got.Data), len(want.Words), want.Dim, len(want.Data))
	}
	for i, w := range want.Words {
		if got.Words[i] != w {
			t.Fatalf("word %d: got %q, want %q", i, got.Words[i], w)
		}
	}
	for i, x := range want.Data {
		if math.Float32bits(got.Data[i]) != math.Float32bits(x) {
			t.Fatalf("value %d (word %q): got %v (%#x), want %v (%#x)", i, want.Words[i/want.Dim],
				got.Data[i], math.Float32bits(got.Data[i]), x, math.Float32bits(x))
		}
	}
}

// vec builds Vectors from words and rows of values, for expectations.
func vec(words []string, rows ...[]float32) *Vectors {
	v := &Vectors{Dim: len(rows[0]), Words: words}
	for _, r := range rows {
		v.Data = append(v.Data, r...)
	}
	return v
}
