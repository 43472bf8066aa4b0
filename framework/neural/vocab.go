// vocab.go holds Vocab: the encoder's tables of words, characters and
// other column values, and how a sentence's cells become nn input IDs.

package neural

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/nn"
)

// Unknown is the ID of the unknown value in every table: a word, character
// or column value not seen in training.
const Unknown = 0

// Vocab maps a token's cells to the encoder's input IDs. Each table lists
// its values by ID, ID 0 being the unknown value (""). Strings stop here,
// as they stop at the feature mapper for the sparse templates.
type Vocab struct {
	// Words are the word table's keys (Key of the words as written).
	Words []string `json:"words"`
	// Chars are the characters, one rune each.
	Chars []string `json:"chars,omitempty"`
	// Columns are the other embedded columns' values, in Input.Columns
	// order.
	Columns [][]string `json:"columns,omitempty"`
	// Lowercase and ZeroDigits say how Key normalizes a word.
	Lowercase  bool `json:"lowercase,omitempty"`
	ZeroDigits bool `json:"zero_digits,omitempty"`

	words map[string]int32
	chars map[rune]int32
	cols  []map[string]int32
}

// Input says which columns of a corpus's sentences the encoder reads.
type Input struct {
	// Word is the word column's index; Columns the other embedded columns'
	// (each 0-based in the format's columns).
	Word    int
	Columns []int
}

// Key is the word table's key of word: digits made 0 and the word
// lowercased as the Vocab says.
func (v *Vocab) Key(word string) string {
	if v.ZeroDigits && strings.ContainsFunc(word, unicode.IsDigit) {
		word = strings.Map(func(r rune) rune {
			if unicode.IsDigit(r) {
				return '0'
			}
			return r
		}, word)
	}
	if v.Lowercase {
		word = strings.ToLower(word)
	}
	return word
}

// BuildVocab makes the tables from training sentences: every word key
// seen at least minCount times, in order of first appearance, every
// character and every value of the other columns. counts[id] is how
// often word id was seen (0 for the unknown word).
func BuildVocab(sents []*corpus.Sentence, in Input, lowercase, zeroDigits bool, minCount int) (v *Vocab, counts []int32) {
	v = &Vocab{Lowercase: lowercase, ZeroDigits: zeroDigits}
	seen := map[string]int32{}
	var order []string
	chars := map[rune]bool{}
	colVals := make([]map[string]bool, len(in.Columns))
	for c := range colVals {
		colVals[c] = map[string]bool{}
	}
	for _, s := range sents {
		for _, tok := range s.Tokens {
			k := v.Key(tok[in.Word])
			if seen[k] == 0 {
				order = append(order, k)
			}
			seen[k]++
			for _, r := range tok[in.Word] {
				chars[r] = true
			}
			for c, col := range in.Columns {
				colVals[c][tok[col]] = true
			}
		}
	}
	v.Words, counts = []string{""}, []int32{0}
	for _, k := range order {
		if n := seen[k]; int(n) >= minCount && k != "" {
			v.Words = append(v.Words, k)
			counts = append(counts, n)
		}
	}
	v.Chars = append([]string{""}, sortedKeys(chars, func(r rune) string { return string(r) })...)
	v.Columns = make([][]string, len(colVals))
	for c, vals := range colVals {
		v.Columns[c] = append([]string{""}, sortedKeys(vals, func(s string) string { return s })...)
	}
	v.index()
	return v, counts
}

// sortedKeys lists m's keys as strings, sorted, without "".
func sortedKeys[K comparable](m map[K]bool, str func(K) string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		if s := str(k); s != "" {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// AddWords adds the keys of words that the table lacks (a pretrained
// vectors file's), in order, and returns the ID of each word.
func (v *Vocab) AddWords(words []string) []int32 {
	ids := make([]int32, len(words))
	for i, w := range words {
		k := v.Key(w)
		id, ok := v.words[k]
		if !ok && k != "" {
			id = int32(len(v.Words))
			v.Words = append(v.Words, k)
			v.words[k] = id
		}
		ids[i] = id
	}
	return ids
}

// Lookup returns the ID of word's key and whether the table has it.
func (v *Vocab) Lookup(word string) (int32, bool) {
	id, ok := v.words[v.Key(word)]
	return id, ok
}

// index builds the lookup maps from the tables (after BuildVocab, or
// after a model file is read).
func (v *Vocab) index() {
	v.words = make(map[string]int32, len(v.Words))
	for id, w := range v.Words {
		v.words[w] = int32(id)
	}
	v.chars = make(map[rune]int32, len(v.Chars))
	for id, c := range v.Chars {
		if r, n := utf8.DecodeRuneInString(c); n > 0 {
			v.chars[r] = int32(id)
		}
	}
	v.cols = make([]map[string]int32, len(v.Columns))
	for c, vals := range v.Columns {
		v.cols[c] = make(map[string]int32, len(vals))
		for id, s := range vals {
			v.cols[c][s] = int32(id)
		}
	}
}

// Encoded is a sentence's input IDs, in buffers that Encode reuses.
type Encoded struct {
	nn.Sentence
	chars []int32 // the backing of Sentence.Chars
}

// Encode fills dst with the IDs of s's cells: a value the tables lack is
// Unknown. dst's buffers are reused, so a warm Encoded allocates nothing
// for a sentence no longer than the longest before.
func (v *Vocab) Encode(dst *Encoded, s *corpus.Sentence, in Input) {
	n := s.Len()
	dst.Words = resize(dst.Words, n)
	if len(dst.Extra) != len(in.Columns) {
		dst.Extra = make([][]int32, len(in.Columns))
	}
	dst.chars = dst.chars[:0]
	if cap(dst.Chars) < n {
		dst.Chars = make([][]int32, n)
	}
	dst.Chars = dst.Chars[:n]
	for i, tok := range s.Tokens {
		dst.Words[i] = v.words[v.Key(tok[in.Word])]
		for _, r := range tok[in.Word] {
			dst.chars = append(dst.chars, v.chars[r])
		}
	}
	off := 0
	for i, tok := range s.Tokens {
		k := utf8.RuneCountInString(tok[in.Word])
		dst.Chars[i] = dst.chars[off : off+k : off+k]
		off += k
	}
	for c, col := range in.Columns {
		dst.Extra[c] = resize(dst.Extra[c], n)
		for i, tok := range s.Tokens {
			dst.Extra[c][i] = v.cols[c][tok[col]]
		}
	}
}

func resize(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}
