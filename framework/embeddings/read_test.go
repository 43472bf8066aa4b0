// read_test.go: reading every format, detection, hashing, the Vocab and
// Lower options, duplicates, and the tolerated variations of text files.

package embeddings

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"math"
	"strings"
	"testing"
)

// le encodes float32 values little-endian.
func le(xs ...float32) []byte {
	var b []byte
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// handBinary is a word2vec binary file written by hand: the first record
// ends in '\n' (word2vec), the second does not (gensim).
func handBinary() []byte {
	b := []byte("2 3\n")
	b = append(b, "été "...)
	b = append(b, le(1.5, -2, 0.25)...)
	b = append(b, '\n')
	b = append(b, "of "...)
	b = append(b, le(3, 4e-3, -5)...)
	return b
}

// TestReadHandWritten parses files written by hand (not by Write) in
// every format, explicitly and by detection.
func TestReadHandWritten(t *testing.T) {
	want := vec([]string{"été", "of"}, []float32{1.5, -2, 0.25}, []float32{3, 4e-3, -5})
	tests := []struct {
		name   string
		data   string
		format Format
		auto   Format // what Auto detects
	}{
		{"word2vec", "2 3\nété 1.5 -2 0.25\nof 3 4e-3 -5\n", Word2VecText, Word2VecText},
		{"fasttext", "2 3\nété 1.5 -2 0.25 \nof 3 0.004 -5 \n", FastText, Word2VecText},
		{"glove", "été 1.5 -2.0 0.25\nof 3.0 0.004 -5.0\n", GloVe, GloVe},
		{"glove no final newline", "été 1.5 -2 0.25\nof 3 .004 -5", GloVe, GloVe},
		{"binary", string(handBinary()), Word2VecBinary, Word2VecBinary},
	}
	for _, tt := range tests {
		for _, f := range []Format{tt.format, Auto} {
			t.Run(tt.name+"/"+f.String(), func(t *testing.T) {
				v, err := readBytes([]byte(tt.data), "x", Options{Format: f})
				if err != nil {
					t.Fatal(err)
				}
				sameVectors(t, v, want)
				wantFormat := tt.format
				if f == Auto {
					wantFormat = tt.auto
				}
				if v.Format != wantFormat {
					t.Errorf("Format = %v, want %v", v.Format, wantFormat)
				}
			})
		}
	}
}

// TestReadEveryFormat reads what Write wrote, plain and gzipped, with the
// format given and detected, and checks the words, the bits, the format
// and the SHA-256 of the bytes.
func TestReadEveryFormat(t *testing.T) {
	want := sample()
	for _, f := range []Format{Word2VecText, FastText, GloVe, Word2VecBinary} {
		for _, zip := range []bool{false, true} {
			data := encode(t, want, f)
			name := "vectors." + f.String()
			if zip {
				data, name = gz(t, data), name+".gz"
			}
			for _, rf := range []Format{f, Auto} {
				t.Run(name+"/"+rf.String(), func(t *testing.T) {
					v, err := readBytes(data, name, Options{Format: rf})
					if err != nil {
						t.Fatal(err)
					}
					sameVectors(t, v, want)
					wantFormat := f
					if rf == Auto && f == FastText {
						wantFormat = Word2VecText
					}
					if v.Format != wantFormat {
						t.Errorf("Format = %v, want %v", v.Format, wantFormat)
					}
					if v.SHA256 != sha(data) || v.Bytes != int64(len(data)) {
						t.Errorf("SHA256, Bytes = %s, %d; want %s, %d", v.SHA256, v.Bytes, sha(data), len(data))
					}
				})
			}
		}
	}
}

// TestReadFile reads through Read (a real file) and checks the hash is
// that of the file's bytes, with and without a Vocab filter.
func TestReadFile(t *testing.T) {
	for _, f := range []Format{Word2VecText, GloVe, Word2VecBinary} {
		data := encode(t, sample(), f)
		path := writeFile(t, "v."+f.String(), data)
		for _, vocab := range []func(string) bool{nil, func(w string) bool { return w == "the" }} {
			v, err := Read(path, Options{Vocab: vocab})
			if err != nil {
				t.Fatal(err)
			}
			if v.SHA256 != sha(data) || v.Bytes != int64(len(data)) {
				t.Errorf("%v: SHA256 %s (%d bytes), want %s (%d)", f, v.SHA256, v.Bytes, sha(data), len(data))
			}
		}
	}
	if _, err := Read(writeFile(t, "x", nil)+".missing", Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("reading a missing file: %v", err)
	}
}

// hideLen hides a reader's Len method, so ReadFrom cannot size the input.
type hideLen struct{ r io.Reader }

func (h hideLen) Read(p []byte) (int, error) { return h.r.Read(p) }

// TestReadUnknownSize reads streams whose size ReadFrom cannot know, in
// small chunks, and gets the same vectors and hash.
func TestReadUnknownSize(t *testing.T) {
	want := sample()
	for _, f := range []Format{Word2VecText, GloVe, Word2VecBinary} {
		data := encode(t, want, f)
		v, err := ReadFrom(hideLen{io.LimitReader(bytes.NewReader(data), int64(len(data)))}, "pipe", Options{})
		if err != nil {
			t.Fatal(err)
		}
		sameVectors(t, v, want)
		if v.SHA256 != sha(data) {
			t.Errorf("%v: wrong SHA256", f)
		}
	}
}

// TestVocab keeps only the words Vocab accepts, in file order, while the
// hash still covers the whole file.
func TestVocab(t *testing.T) {
	full := sample()
	keep := map[string]bool{"東京": true, "the": true, "Paris": true, "absent": true}
	for _, f := range []Format{Word2VecText, GloVe, Word2VecBinary} {
		data := encode(t, full, f)
		var asked []string
		v, err := readBytes(data, "v", Options{Vocab: func(w string) bool { asked = append(asked, w); return keep[w] }})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(asked, "|") != strings.Join(full.Words, "|") {
			t.Errorf("%v: Vocab asked about %q, want every word in order", f, asked)
		}
		if strings.Join(v.Words, "|") != "the|Paris|東京" || v.Skipped != len(full.Words)-3 {
			t.Fatalf("%v: kept %q (skipped %d)", f, v.Words, v.Skipped)
		}
		for _, w := range v.Words {
			got, ok := v.Lookup(w)
			want, _ := full.Lookup(w)
			if !ok || !bytes.Equal(le(got...), le(want...)) {
				t.Errorf("%v: Lookup(%q) = %v, %v; want %v", f, w, got, ok, want)
			}
		}
		if _, ok := v.Lookup("paris"); ok {
			t.Errorf("%v: a skipped word is found", f)
		}
		if v.SHA256 != sha(data) {
			t.Errorf("%v: the hash does not cover the whole file", f)
		}
	}
}

// TestLower checks the case-folding fallback of Lookup and Vocab.
func TestLower(t *testing.T) {
	data := []byte("Apple 1\nAPPLE 2\nberlin 3\nBerlin 4\nÉcole 5\n")
	row := func(v *Vectors, w string) float32 {
		x, ok := v.Lookup(w)
		if !ok {
			return -1
		}
		return x[0]
	}
	v, err := readBytes(data, "v", Options{Format: GloVe, Lower: true})
	if err != nil {
		t.Fatal(err)
	}
	for w, want := range map[string]float32{
		"Apple": 1, "APPLE": 2, "apple": 1, "aPPle": 1, // the first case form wins
		"berlin": 3, "Berlin": 4, "BERLIN": 3, // an exact lowercase word beats a case form
		"école": 5, "ÉCOLE": 5, "cherry": -1,
	} {
		if got := row(v, w); got != want {
			t.Errorf("Lower: Lookup(%q) = %v, want %v", w, got, want)
		}
	}
	exact, err := readBytes(data, "v", Options{Format: GloVe})
	if err != nil {
		t.Fatal(err)
	}
	if got := row(exact, "apple"); got != -1 {
		t.Errorf("without Lower, Lookup(apple) = %v, want absent", got)
	}
	vocab := func(w string) bool { return w == "apple" || w == "école" }
	v, err = readBytes(data, "v", Options{Format: GloVe, Lower: true, Vocab: vocab})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(v.Words, "|") != "Apple|APPLE|École" || row(v, "apple") != 1 || v.Skipped != 2 {
		t.Errorf("Lower with Vocab kept %q, skipped %d", v.Words, v.Skipped)
	}
	v, err = readBytes(data, "v", Options{Format: GloVe, Vocab: vocab})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Words) != 0 || v.Skipped != 5 || v.Dim != 1 {
		t.Errorf("exact Vocab kept %q, skipped %d, dim %d", v.Words, v.Skipped, v.Dim)
	}
}

// TestDuplicates keeps a repeated word's first vector and counts the
// rest, in text and binary files.
func TestDuplicates(t *testing.T) {
	text := "the 1 2\nof 3 4\nthe 5 6\nthe 7 8\n"
	bin := []byte("4 2\n")
	for _, r := range []struct {
		w    string
		x, y float32
	}{{"the", 1, 2}, {"of", 3, 4}, {"the", 5, 6}, {"the", 7, 8}} {
		bin = append(append(append(bin, r.w+" "...), le(r.x, r.y)...), '\n')
	}
	for _, data := range [][]byte{[]byte(text), bin} {
		v, err := readBytes(data, "dup", Options{})
		if err != nil {
			t.Fatal(err)
		}
		sameVectors(t, v, vec([]string{"the", "of"}, []float32{1, 2}, []float32{3, 4}))
		if v.Duplicates != 2 {
			t.Errorf("%v: Duplicates = %d, want 2", v.Format, v.Duplicates)
		}
	}
}

// TestTextVariations reads the layouts real files have: CRLF line ends,
// a trailing space per line (word2vec), tabs, blank lines, a BOM, and no
// final newline.
func TestTextVariations(t *testing.T) {
	want := vec([]string{"a", "b"}, []float32{1, -2}, []float32{0.5, 3})
	tests := []struct {
		name, data string
		format     Format
	}{
		{"crlf word2vec", "2 2\r\na 1 -2\r\nb 0.5 3\r\n", Word2VecText},
		{"crlf glove", "a 1 -2\r\nb 0.5 3\r\n", GloVe},
		{"trailing space", "2 2 \na 1 -2 \nb 0.5 3 \n", Word2VecText},
		{"trailing space crlf", "2 2 \r\na 1 -2 \r\nb 0.5 3 \r\n", Word2VecText},
		{"tabs and runs", "2\t2\na\t1  -2\t\nb 0.5\t\t3\n", Word2VecText},
		{"blank lines", "\n2 2\n\na 1 -2\n  \nb 0.5 3\n\n\n", Word2VecText},
		{"bom", "\ufeffa 1 -2\nb 0.5 3\n", GloVe},
		{"bom header", "\ufeff2 2\na 1 -2\nb 0.5 3", Word2VecText},
		{"leading space", " a 1 -2\n b 0.5 3\n", GloVe},
		{"signs and exponents", "a +1e0 -2.0\nb 5E-1 0.3e1\n", GloVe},
	}
	for _, tt := range tests {
		for _, f := range []Format{tt.format, Auto} {
			v, err := readBytes([]byte(tt.data), tt.name, Options{Format: f})
			if err != nil {
				t.Errorf("%s (%v): %v", tt.name, f, err)
				continue
			}
			sameVectors(t, v, want)
			if f == Auto && v.Format != tt.format {
				t.Errorf("%s: detected %v, want %v", tt.name, v.Format, tt.format)
			}
		}
	}
}

// TestOptionsDim accepts a matching dimension in every format.
func TestOptionsDim(t *testing.T) {
	for _, f := range []Format{Word2VecText, GloVe, Word2VecBinary} {
		if _, err := readBytes(encode(t, sample(), f), "v", Options{Dim: 4}); err != nil {
			t.Errorf("%v with Dim 4: %v", f, err)
		}
	}
	for _, o := range []Options{{Dim: -1}, {Dim: MaxDim + 1}, {Format: Format(17)}} {
		if _, err := readBytes([]byte("a 1\n"), "v", o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// TestLookupRows checks Lookup, Row and New against the matrix.
func TestLookupRows(t *testing.T) {
	s := sample()
	v, err := New(s.Dim, s.Words, s.Data)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range s.Words {
		got, ok := v.Lookup(w)
		lit, litOK := s.Lookup(w) // a literal: scanned
		if !ok || !litOK || &got[0] != &v.Data[i*v.Dim] || &lit[0] != &s.Data[i*s.Dim] || len(got) != v.Dim {
			t.Fatalf("Lookup(%q) is not row %d", w, i)
		}
		if cap(got) != v.Dim {
			t.Fatalf("Lookup(%q) has capacity %d: appending would overwrite the next row", w, cap(got))
		}
	}
	if _, ok := v.Lookup("absent"); ok {
		t.Error("Lookup found an absent word")
	}
	if _, ok := s.Lookup("absent"); ok {
		t.Error("a literal's Lookup found an absent word")
	}
	if _, err := New(2, []string{"a", "a"}, []float32{1, 2, 3, 4}); !errors.Is(err, ErrWord) {
		t.Errorf("New with a repeated word: %v", err)
	}
}
