// fuzz_test.go: FuzzRead, reading arbitrary bytes in every format.

package embeddings

import (
	"bytes"
	"errors"
	"math"
	"testing"
	"unicode/utf8"
)

// FuzzRead reads arbitrary bytes with a format (byte mod 5), an expected
// dimension (byte mod 4; 0 takes the file's) and Lower. It must never
// panic; an error must be a *FormatError naming the file; and a success
// must be well formed (Dim values per word, words valid UTF-8 and
// distinct, finite values, the hash of the input) and must survive a
// round trip through Write in the format read.
func FuzzRead(f *testing.F) {
	f.Add([]byte("2 3\nthe 1 2 3\nof 4 5 6 \n"), uint8(Auto), uint8(0), false)
	f.Add([]byte("the 0.1 -0.2\r\nThe 3e-3 4\r\n"), uint8(GloVe), uint8(2), true)
	f.Add(handBinary(), uint8(Auto), uint8(3), false)
	f.Add(binRecords("2 1\n", "a", []float32{1}, "a", []float32{2}), uint8(Word2VecBinary), uint8(1), false)
	f.Add(gz(f, []byte("1 2\nx 1 2\n")), uint8(FastText), uint8(0), true)
	f.Fuzz(func(t *testing.T, data []byte, format, dim uint8, lower bool) {
		o := Options{Format: Format(format % 5), Dim: int(dim % 4), Lower: lower}
		v, err := readBytes(data, "fuzz.vec", o)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || fe.File != "fuzz.vec" {
				t.Fatalf("error %T %v is not a *FormatError for the file", err, err)
			}
			return
		}
		checkVectors(t, v, data, o)
		var out bytes.Buffer
		if err := Write(&out, v, v.Format); err != nil {
			if len(v.Words) == 0 && errors.Is(err, ErrEmpty) {
				return
			}
			t.Fatalf("writing what was read: %v", err)
		}
		back, err := readBytes(out.Bytes(), "again", Options{Format: v.Format})
		if err != nil {
			t.Fatalf("reading what was written: %v\n%q", err, out.Bytes())
		}
		sameVectors(t, back, v)
	})
}

// checkVectors checks what FuzzRead requires of a successful read.
func checkVectors(t *testing.T, v *Vectors, data []byte, o Options) {
	t.Helper()
	if v.Dim < 1 || v.Dim > MaxDim || (o.Dim != 0 && v.Dim != o.Dim) {
		t.Fatalf("Dim %d (Options.Dim %d)", v.Dim, o.Dim)
	}
	if len(v.Data) != len(v.Words)*v.Dim {
		t.Fatalf("%d values for %d words of %d", len(v.Data), len(v.Words), v.Dim)
	}
	if v.Format == Auto || (o.Format != Auto && v.Format != o.Format) {
		t.Fatalf("Format %v read as %v", v.Format, o.Format)
	}
	if v.SHA256 != sha(data) || v.Bytes != int64(len(data)) {
		t.Fatalf("SHA256 %s of %d bytes, want %s of %d", v.SHA256, v.Bytes, sha(data), len(data))
	}
	for i, w := range v.Words {
		if !utf8.ValidString(w) || checkWord([]byte(w)) != "" {
			t.Fatalf("word %d %q is not a valid word", i, w)
		}
		if row, ok := v.Lookup(w); !ok || &row[0] != &v.Data[i*v.Dim] {
			t.Fatalf("Lookup(%q) is not row %d", w, i)
		}
	}
	for _, x := range v.Data {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			t.Fatalf("value %v", x)
		}
	}
}
