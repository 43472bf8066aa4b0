package clusters

import (
	"cmp"
	"fmt"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"io"
	"slices"
)

// Counter collects the words and bigrams of a text, sentence by sentence.
// Bigrams never cross a sentence boundary. The zero Counter is not ready:
// use NewCounter.
type Counter struct {
	ids    map[string]int32
	words  []string
	counts []int64
	// seq is every token's word ID, with -1 between sentences.
	seq []int32
}

// NewCounter returns an empty Counter.
func NewCounter() *Counter { return &Counter{ids: map[string]int32{}} }

// addToken appends one token of the current sentence.
func (c *Counter) addToken(w []byte) {
	id, ok := c.ids[string(w)]
	if !ok {
		id = int32(len(c.words))
		s := string(w)
		c.ids[s] = id
		c.words = append(c.words, s)
		c.counts = append(c.counts, 0)
	}
	c.counts[id]++
	c.seq = append(c.seq, id)
}

// endSentence closes the current sentence (nothing if it is empty).
func (c *Counter) endSentence() {
	if n := len(c.seq); n > 0 && c.seq[n-1] >= 0 {
		c.seq = append(c.seq, -1)
	}
}

// AddSentence adds one sentence of tokens.
func (c *Counter) AddSentence(tokens []string) {
	for _, t := range tokens {
		c.addToken([]byte(t))
	}
	c.endSentence()
}

// Tokens is the number of tokens added so far.
func (c *Counter) Tokens() int64 {
	var n int64
	for _, k := range c.counts {
		n += k
	}
	return n
}

// ReadText adds plain text: one sentence per line, tokens separated by
// white space (corpus.ReadTextWords). With tokenize, each line is running
// text that Tokenize splits.
func (c *Counter) ReadText(r io.Reader, tokenize bool) error {
	if !tokenize {
		return corpus.ReadTextWords("", r, sink{c})
	}
	return corpus.ReadSplitWords("", r, Tokenize, sink{c})
}

// ReadCoNLL adds the first column of a CoNLL file
// (corpus.ReadCoNLLWords: blank and -DOCSTART- lines end a sentence).
func (c *Counter) ReadCoNLL(r io.Reader) error {
	return corpus.ReadCoNLLWords("", r, 1, sink{c})
}

// ReadCoNLLU adds the FORM column of a CoNLL-U file
// (corpus.ReadCoNLLUWords: comments, multiword tokens and empty nodes
// skipped; a line that is none of these and has no tab is an error).
func (c *Counter) ReadCoNLLU(r io.Reader) error {
	return corpus.ReadCoNLLUWords("", r, sink{c})
}

// sink hands the corpus word readers' words to a Counter.
type sink struct{ c *Counter }

func (s sink) Add(w []byte) { s.c.addToken(w) }
func (s sink) EndSentence() { s.c.endSentence() }

// Counts is a counted text ready for clustering: the kept words by
// frequency and their bigrams as adjacency lists.
type Counts struct {
	// Words are the kept word types, most frequent first, ties by bytes.
	Words []string
	// Count[i] is how often Words[i] occurs.
	Count []int64
	// Tokens is the number of tokens of kept words.
	Tokens int64
	// right[rightStart[w]:rightStart[w+1]] are the words that follow w,
	// rightN how often; left likewise for the words that precede w.
	rightStart, right []int32
	rightN            []int64
	leftStart, left   []int32
	leftN             []int64
}

// Counts keeps the words seen at least minCount times and counts their
// bigrams (a dropped word breaks the chain: its neighbours are not
// adjacent).
func (c *Counter) Counts(minCount int64) (*Counts, error) {
	order := make([]int32, 0, len(c.words))
	for id, k := range c.counts {
		if k >= minCount {
			order = append(order, int32(id))
		}
	}
	slices.SortFunc(order, func(a, b int32) int {
		if r := cmp.Compare(c.counts[b], c.counts[a]); r != 0 {
			return r
		}
		return cmp.Compare(c.words[a], c.words[b])
	})
	if len(order) == 0 {
		return nil, fmt.Errorf("no word occurs at least %d times", minCount)
	}
	remap := make([]int32, len(c.words))
	for i := range remap {
		remap[i] = -1
	}
	out := &Counts{Words: make([]string, len(order)), Count: make([]int64, len(order))}
	for i, id := range order {
		remap[id] = int32(i)
		out.Words[i], out.Count[i] = c.words[id], c.counts[id]
		out.Tokens += c.counts[id]
	}
	var pairs []uint64
	prev := int32(-1)
	for _, id := range c.seq {
		cur := int32(-1)
		if id >= 0 {
			cur = remap[id]
		}
		if prev >= 0 && cur >= 0 {
			pairs = append(pairs, uint64(prev)<<32|uint64(cur))
		}
		prev = cur
	}
	n := len(order)
	out.rightStart, out.right, out.rightN = adjacency(pairs, n)
	for i, p := range pairs {
		pairs[i] = p<<32 | p>>32
	}
	out.leftStart, out.left, out.leftN = adjacency(pairs, n)
	return out, nil
}

// adjacency sorts the (from<<32 | to) pairs and run-length counts them
// into compressed rows.
func adjacency(pairs []uint64, n int) (start, to []int32, count []int64) {
	slices.Sort(pairs)
	start = make([]int32, n+1)
	for i := 0; i < len(pairs); {
		j := i
		for j < len(pairs) && pairs[j] == pairs[i] {
			j++
		}
		from := int32(pairs[i] >> 32)
		start[from+1]++
		to = append(to, int32(uint32(pairs[i])))
		count = append(count, int64(j-i))
		i = j
	}
	for w := 0; w < n; w++ {
		start[w+1] += start[w]
	}
	return start, to, count
}

// Bigrams returns the number of adjacent (w, v) pairs counted.
func (c *Counts) Bigrams(w, v int) int64 {
	for k := c.rightStart[w]; k < c.rightStart[w+1]; k++ {
		if int(c.right[k]) == v {
			return c.rightN[k]
		}
	}
	return 0
}
