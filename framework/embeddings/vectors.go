// vectors.go: Options, Vectors, lookups, and the checks Write and New
// share with the reader.

package embeddings

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// MaxDim is the largest dimension accepted: a header or first line that
// claims more is taken for a corrupt or wrong file.
const MaxDim = 10000

// Options are the settings of Read and ReadFrom. The zero value detects
// the format, takes the file's dimension, keeps every word and looks
// words up exactly.
type Options struct {
	// Format is the file's layout; Auto (the zero value) detects it.
	Format Format
	// Dim is the dimension the caller expects: 0 takes the file's;
	// otherwise the file's must equal it (ErrDim). At most MaxDim.
	Dim int
	// Vocab, if set, chooses the words to keep: it is called once per
	// record, in file order, from the calling goroutine, with the word (a
	// string the callee may keep); a word for which it returns false is
	// dropped after its values are checked, so a 2M-word file loads only
	// the training vocabulary. nil keeps every word. A word already kept
	// is a duplicate and Vocab is not asked about it again; with Lower it
	// may be asked a second time, about the lowercase form.
	Vocab func(word string) bool
	// Lower folds case as a fallback (default false: exact words only).
	// When set, Vocab also keeps a word whose strings.ToLower form it
	// accepts ("Paris" when Vocab knows "paris"), and Lookup of a word
	// absent as given tries strings.ToLower(word), first as a word of the
	// file and then as the lowercase form of one (the first in file
	// order: files list frequent words first). Words and Data are the
	// same either way: only which rows are kept and found changes.
	Lower bool
}

// check validates the options themselves.
func (o *Options) check() error {
	if !o.Format.valid() {
		return fmt.Errorf("embeddings: %w: invalid Options.Format %d", ErrFormat, int(o.Format))
	}
	if o.Dim < 0 || o.Dim > MaxDim {
		return fmt.Errorf("embeddings: %w: Options.Dim %d is outside 0..%d", ErrDim, o.Dim, MaxDim)
	}
	return nil
}

// Vectors are word vectors: Words[i]'s vector is row i of Data.
//
// Vectors from Read, ReadFrom or New carry an index for Lookup built from
// Words: change values in Data freely, but not Words. A Vectors literal
// works too (Write checks it), but its Lookup scans Words.
type Vectors struct {
	// Dim is the number of values per word, 1..MaxDim.
	Dim int
	// Words are the kept words in file order, each once: non-empty valid
	// UTF-8 without ASCII whitespace or NUL.
	Words []string
	// Data is a len(Words)×Dim row-major matrix of finite values: row i,
	// Data[i*Dim:(i+1)*Dim], is Words[i]'s vector.
	Data []float32
	// SHA256 is the lowercase hex SHA-256 of every byte of the file as
	// stored (compressed, for a gzip file), whatever Vocab kept; "" for
	// New.
	SHA256 string
	// Bytes is the number of bytes hashed (the file's size).
	Bytes int64
	// Format is the layout read (never Auto, except from New).
	Format Format
	// Duplicates counts records dropped because their word was already
	// kept: the first occurrence wins (files list the more frequent, or
	// better trained, entry first).
	Duplicates int
	// Skipped counts records Options.Vocab dropped.
	Skipped int

	index map[string]int // word → row; nil for a literal
	lower map[string]int // lowercase form → first row with it, if not itself a word
	fold  bool           // Options.Lower
}

// New returns Vectors over words and data (a len(words)×dim matrix,
// used, not copied) with an index for Lookup, after the checks of Write:
// dim in 1..MaxDim, at least one word, no bad or repeated word, finite
// values.
func New(dim int, words []string, data []float32) (*Vectors, error) {
	v := &Vectors{Dim: dim, Words: words, Data: data}
	if err := v.check(); err != nil {
		return nil, err
	}
	v.index = make(map[string]int, len(words))
	for i, w := range words {
		v.index[w] = i
	}
	return v, nil
}

// Row returns Words[i]'s vector (a slice of Data).
func (v *Vectors) Row(i int) []float32 {
	return v.Data[i*v.Dim : (i+1)*v.Dim : (i+1)*v.Dim]
}

// Lookup returns word's vector (a slice of Data: writing to it changes v)
// and whether the word is there; see Options.Lower for the fallback.
func (v *Vectors) Lookup(word string) ([]float32, bool) {
	if i, ok := v.find(word); ok {
		return v.Row(i), true
	}
	return nil, false
}

// find returns word's row.
func (v *Vectors) find(word string) (int, bool) {
	if v.index == nil {
		for i, w := range v.Words {
			if w == word {
				return i, true
			}
		}
		return 0, false
	}
	if i, ok := v.index[word]; ok || !v.fold {
		return i, ok
	}
	l := strings.ToLower(word)
	if i, ok := v.index[l]; ok {
		return i, true
	}
	i, ok := v.lower[l]
	return i, ok
}

// buildLower indexes the lowercase forms of the words that are not
// themselves words, first row winning.
func (v *Vectors) buildLower() {
	v.fold = true
	v.lower = map[string]int{}
	for i, w := range v.Words {
		l := strings.ToLower(w)
		if l == w {
			continue
		}
		if _, ok := v.index[l]; ok {
			continue
		}
		if _, ok := v.lower[l]; !ok {
			v.lower[l] = i
		}
	}
}

// check is what Write and New require of v.
func (v *Vectors) check() error {
	if v.Dim < 1 || v.Dim > MaxDim {
		return fmt.Errorf("embeddings: %w: Dim %d is outside 1..%d", ErrDim, v.Dim, MaxDim)
	}
	if len(v.Words) == 0 {
		return fmt.Errorf("embeddings: %w: no words", ErrEmpty)
	}
	if len(v.Data) != len(v.Words)*v.Dim {
		return fmt.Errorf("embeddings: %w: %d values for %d words of %d", ErrValues, len(v.Data), len(v.Words), v.Dim)
	}
	seen := make(map[string]struct{}, len(v.Words))
	for i, w := range v.Words {
		if msg := checkWord([]byte(w)); msg != "" {
			return fmt.Errorf("embeddings: %w: word %d %q: %s", ErrWord, i+1, clip([]byte(w)), msg)
		}
		if _, dup := seen[w]; dup {
			return fmt.Errorf("embeddings: %w: word %d %q repeats an earlier word", ErrWord, i+1, clip([]byte(w)))
		}
		seen[w] = struct{}{}
	}
	for j, x := range v.Data {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("embeddings: %w: word %d %q: value %d is %v", ErrNumber, j/v.Dim+1, clip([]byte(v.Words[j/v.Dim])), j%v.Dim+1, x)
		}
	}
	return nil
}

// checkWord returns what is wrong with a word, or "".
func checkWord(w []byte) string {
	if len(w) == 0 {
		return "empty word"
	}
	for _, c := range w {
		switch c {
		case ' ', '\t', '\n', '\r', '\v', '\f', 0:
			return fmt.Sprintf("word holds the byte %q", c)
		}
	}
	if !utf8.Valid(w) {
		return "word is not valid UTF-8"
	}
	return ""
}
