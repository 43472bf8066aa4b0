// format_test.go: format names and auto-detection.

package embeddings

import (
	"math/rand/v2"
	"testing"
)

// TestFormatNames round-trips every format through String and
// ParseFormat and checks the aliases and errors.
func TestFormatNames(t *testing.T) {
	for f := Auto; f <= FastText; f++ {
		got, err := ParseFormat(f.String())
		if err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %v, %v", f.String(), got, err)
		}
	}
	for s, want := range map[string]Format{"": Auto, " GloVe ": GloVe, "WORD2VEC-TEXT": Word2VecText, "Word2Vec-Binary": Word2VecBinary} {
		if got, err := ParseFormat(s); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	if _, err := ParseFormat("bin"); err == nil {
		t.Error(`ParseFormat("bin") succeeded`)
	}
	if s := Format(42).String(); s != "Format(42)" {
		t.Errorf("Format(42).String() = %q", s)
	}
}

// TestDetect checks the detection rules on crafted prefixes, and that
// random binary vectors of a realistic size are never taken for text.
func TestDetect(t *testing.T) {
	for in, want := range map[string]Format{
		"":                         GloVe,
		"the 0.1 0.2\n":            GloVe,
		"3 0.2\n":                  GloVe, // not two integers
		"3 4 5\n":                  GloVe, // three fields
		"\n\n2 3\nthe 1 2 3\n":     Word2VecText,
		"2 3\r\nthe 1 2 3\r\n":     Word2VecText,
		"2 3\nthe":                 Word2VecText, // nothing after the word yet
		"2 3\nthé 1 2 3\n":         Word2VecText,
		"2 3\nthe \x00\x00\x80?":   Word2VecBinary,
		"2 3\nthe \xcd\xcc\xcc=":   Word2VecBinary,
		"2 0\n\x00\x00\x00":        Word2VecText, // a bad header is left to the text reader
		"2 2\nx 1 2\xc3":           Word2VecText, // a character cut by the window
		"1 1\nword \x01\x02\x03\n": Word2VecBinary,
	} {
		if got := detect([]byte(in)); got != want {
			t.Errorf("detect(%q) = %v, want %v", in, got, want)
		}
	}
	r := rand.New(rand.NewPCG(7, 7))
	for _, dim := range []int{8, 25, 300} {
		for range 200 {
			v := &Vectors{Dim: dim, Words: []string{"w"}}
			for range dim {
				v.Data = append(v.Data, float32(r.NormFloat64()*0.3))
			}
			if data := encode(t, v, Word2VecBinary); detect(data) != Word2VecBinary {
				t.Fatalf("a binary file of dimension %d was taken for text: %q", dim, data)
			}
		}
	}
}
