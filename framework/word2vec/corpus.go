// corpus.go: Counter, which collects the tokens of a text, and Corpus,
// the counted text with its vocabulary that Train reads.

package word2vec

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// ErrNoWords is the error of a text with no word to train on: nothing
// was read, or no word occurs MinCount times.
var ErrNoWords = errors.New("no words to train on")

// invalid marks, in Counter.ids, a token that cannot be a word of a
// vectors file.
const invalid = -2

// Counter collects the tokens of a text, sentence by sentence. Make one
// with NewCounter; feed it with Add and EndSentence or the Read methods;
// then Corpus turns it into a training corpus.
type Counter struct {
	normalize func(string) string
	ids       map[string]int32
	words     []string
	counts    []int64
	// text is every kept token's ID, with -1 after each sentence.
	text      []int32
	skipped   int64
	sentences int
}

// NewCounter returns an empty Counter. normalize, if not nil, maps every
// token before it is counted (lowercasing, digits made 0: the key the
// encoder's word table uses), so the vectors are keyed as the table is.
func NewCounter(normalize func(string) string) *Counter {
	return &Counter{normalize: normalize, ids: map[string]int32{}}
}

// Add adds one token to the current sentence. A token that cannot be a
// word of a vectors file (empty after normalizing, holding ASCII white
// space or NUL, or not valid UTF-8) is left out and counted in Skipped.
func (c *Counter) Add(token []byte) {
	var id int32
	if c.normalize != nil {
		w := c.normalize(string(token))
		var ok bool
		if id, ok = c.ids[w]; !ok {
			id = c.newWord(w)
		}
	} else {
		var ok bool
		if id, ok = c.ids[string(token)]; !ok {
			id = c.newWord(string(token))
		}
	}
	if id == invalid {
		c.skipped++
		return
	}
	c.counts[id]++
	c.text = append(c.text, id)
}

// newWord registers a word type seen for the first time.
func (c *Counter) newWord(w string) int32 {
	if w == "" || strings.ContainsAny(w, " \t\n\r\v\f\x00") || !utf8.ValidString(w) {
		c.ids[w] = invalid
		return invalid
	}
	id := int32(len(c.words))
	c.ids[w] = id
	c.words = append(c.words, w)
	c.counts = append(c.counts, 0)
	return id
}

// EndSentence closes the current sentence: context windows never cross
// its end. It does nothing after an empty sentence.
func (c *Counter) EndSentence() {
	if n := len(c.text); n > 0 && c.text[n-1] >= 0 {
		c.text = append(c.text, -1)
		c.sentences++
	}
}

// Tokens is the number of tokens added (and not skipped) so far.
func (c *Counter) Tokens() int64 {
	return int64(len(c.text) - c.sentences)
}

// Skipped is the number of tokens left out because they cannot be a
// word of a vectors file.
func (c *Counter) Skipped() int64 { return c.skipped }

// Corpus is a counted text ready for training.
type Corpus struct {
	// Words are the word types seen at least MinCount times, most
	// frequent first, ties in byte order: the rows of the vectors.
	Words []string
	// Counts[i] is how often Words[i] occurs.
	Counts []int64
	// Text is the text as indexes into Words, -1 after each sentence;
	// tokens of rarer words are gone (their neighbours become adjacent,
	// as in word2vec).
	Text []int32
	// Tokens is the number of word tokens in Text; Types and AllTokens
	// the word types and tokens before MinCount.
	Tokens, AllTokens int64
	Types             int
	// Sentences is the number of sentences in Text.
	Sentences int
}

// Corpus keeps the words seen at least minCount times and returns the
// text over them. It takes the Counter's text: the Counter is empty
// afterwards. A text without such words is ErrNoWords.
func (c *Counter) Corpus(minCount int) (*Corpus, error) {
	c.EndSentence()
	all := c.Tokens()
	if all == 0 {
		return nil, fmt.Errorf("%w: the text has no tokens", ErrNoWords)
	}
	order := make([]int32, 0, len(c.words))
	for id, n := range c.counts {
		if n >= int64(max(minCount, 1)) {
			order = append(order, int32(id))
		}
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("%w: none of the %d word types of the %d tokens occurs %d times", ErrNoWords, len(c.words), all, minCount)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if d := cmp.Compare(c.counts[b], c.counts[a]); d != 0 {
			return d
		}
		return strings.Compare(c.words[a], c.words[b])
	})
	remap := make([]int32, len(c.words))
	for i := range remap {
		remap[i] = -1
	}
	out := &Corpus{Words: make([]string, len(order)), Counts: make([]int64, len(order)), AllTokens: all, Types: len(c.words)}
	for i, id := range order {
		remap[id] = int32(i)
		out.Words[i] = c.words[id]
		out.Counts[i] = c.counts[id]
		out.Tokens += c.counts[id]
	}
	out.Text = remapText(c.text, remap)
	for _, id := range out.Text {
		if id < 0 {
			out.Sentences++
		}
	}
	*c = Counter{normalize: c.normalize, ids: map[string]int32{}}
	return out, nil
}

// remapText rewrites text in place through remap, dropping the tokens
// remap sends to -1 and the sentences left empty.
func remapText(text, remap []int32) []int32 {
	n, start := 0, 0
	for _, id := range text {
		switch {
		case id < 0 && n > start:
			text[n] = -1
			n++
			start = n
		case id >= 0 && remap[id] >= 0:
			text[n] = remap[id]
			n++
		}
	}
	return slices.Clip(text[:n])
}
