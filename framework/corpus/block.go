package corpus

import "strings"

// blockBuilder collects the lines of one multi-line sentence (conll and
// conllu) and the byte spans of its token fields, then turns them into a
// Sentence whose strings all share the text of consecutive sentences.
type blockBuilder struct {
	// text holds the lines of the current sentence from offset start,
	// concatenated without terminators, after those of the sentences
	// finished before it. A finished sentence's strings are substrings of
	// text.String(): a strings.Builder only ever appends (growing copies
	// into a new array and leaves the old one to the strings made from
	// it), so they never change, and a sentence's text costs no
	// allocation of its own. A Builder with less than textMargin bytes
	// left is replaced at the next sentence, so that a sentence kept
	// alive pins a bounded block of text.
	text      strings.Builder
	start     int
	lineEnds  []int // lineEnds[k] is the end offset of line k from start
	tokLine   []int // index in lineEnds of each token's line
	tokLineNo []int // 1-based file line of each token
	spans     []int // per token, ncol pairs of [start, end) offsets from start; start -1 = absent
	firstLine int
	docStart  bool
	// document is the number of the document being read, sentences the
	// number of sentences finished (neither is reset between sentences).
	document, sentences int

	// Chunks that finish carves the sentences' slices from.
	strChunk []string
	rowChunk [][]string
	intChunk []int

	// free holds sentences handed back (recycle), whose slices the next
	// sentences reuse.
	free []*Sentence
}

// maxFree bounds the sentences a blockBuilder keeps for reuse.
const maxFree = 1024

// chunkLen is the number of elements of a fresh chunk.
const chunkLen = 1024

// textChunk is the size of a fresh Builder of blockBuilder.text;
// textMargin the room a sentence starts a new one below.
const (
	textChunk  = 64 << 10
	textMargin = 4 << 10
)

// carve returns the next n elements of *chunk (capacity n), starting a new
// chunk when it is short. The elements are zero: a chunk is only ever
// handed out once.
func carve[T any](chunk *[]T, n int) []T {
	if len(*chunk) < n {
		*chunk = make([]T, max(n, chunkLen))
	}
	out := (*chunk)[:n:n]
	*chunk = (*chunk)[n:]
	return out
}

func (b *blockBuilder) empty() bool     { return len(b.lineEnds) == 0 }
func (b *blockBuilder) hasTokens() bool { return len(b.tokLine) > 0 }

// addLine appends a line and returns its offset from the sentence's start.
func (b *blockBuilder) addLine(line []byte, lineNo int) int {
	if b.empty() {
		b.firstLine = lineNo
	}
	if b.text.Cap() == 0 {
		b.text.Grow(textChunk)
	}
	base := b.text.Len() - b.start
	b.text.Write(line)
	b.lineEnds = append(b.lineEnds, b.text.Len()-b.start)
	return base
}

// addToken appends line as a token line whose fields are at spans
// (relative to the line; start -1 = absent).
func (b *blockBuilder) addToken(line []byte, lineNo int, spans []int) {
	base := b.addLine(line, lineNo)
	b.tokLine = append(b.tokLine, len(b.lineEnds)-1)
	b.tokLineNo = append(b.tokLineNo, lineNo)
	for k := 0; k < len(spans); k += 2 {
		if spans[k] < 0 {
			b.spans = append(b.spans, -1, -1)
		} else {
			b.spans = append(b.spans, base+spans[k], base+spans[k+1])
		}
	}
}

// finish returns the collected sentence with ncol columns per token and
// resets b, keeping its buffers for the next sentence.
func (b *blockBuilder) finish(file string, ncol int) *Sentence {
	text := b.text.String()[b.start:]
	n := len(b.tokLine)
	if b.docStart && b.sentences > 0 {
		b.document++
	}
	b.sentences++
	// The slices are a recycled sentence's or carved from chunks (see
	// sentence); the sentence's views of them are capped.
	nl := len(b.lineEnds)
	s, pool := b.sentence(nl+n*ncol, n, 2*n)
	strs := pool.strs
	*s = Sentence{
		Tokens:   pool.rows[:n:n],
		Lines:    strs[:nl:nl],
		File:     file,
		Line:     b.firstLine,
		DocStart: b.docStart,
		Document: b.document,
		pool:     pool,
		owner:    b,
	}
	start := 0
	for k, end := range b.lineEnds {
		s.Lines[k] = text[start:end]
		start = end
	}
	cells := strs[nl:]
	for i := range n {
		row := cells[i*ncol : (i+1)*ncol : (i+1)*ncol]
		for c := range row {
			if lo := b.spans[2*(i*ncol+c)]; lo >= 0 {
				row[c] = text[lo:b.spans[2*(i*ncol+c)+1]]
			}
		}
		s.Tokens[i] = row
	}
	ints := pool.ints
	s.TokenLine, s.TokenLineNo = ints[:n:n], ints[n:2*n:2*n]
	copy(s.TokenLine, b.tokLine)
	copy(s.TokenLineNo, b.tokLineNo)
	b.reset()
	return s
}

// sentence returns a sentence for finish to fill and slices of the
// lengths asked for, zero: a recycled sentence and its own slices when
// there is one (slices too short are replaced by longer ones, so that the
// pool grows to the sentences read), else new ones carved from the
// chunks shared by consecutive sentences (a few allocations per hundred
// sentences instead of three per sentence, each capped so that appending
// to one cannot reach the next; a chunk lives as long as any sentence
// carved from it).
func (b *blockBuilder) sentence(nstr, nrow, nint int) (*Sentence, sentencePool) {
	k := len(b.free) - 1
	if k < 0 {
		return new(Sentence), sentencePool{carve(&b.strChunk, nstr), carve(&b.rowChunk, nrow), carve(&b.intChunk, nint)}
	}
	s := b.free[k]
	b.free[k] = nil
	b.free = b.free[:k]
	p := s.pool
	p.strs = reuse(p.strs, nstr)
	p.rows = reuse(p.rows, nrow)
	p.ints = reuse(p.ints, nint)
	return s, p
}

// reuse returns xs cleared with length n, or a new slice with room to
// spare when xs is too short. (finish caps the sentence's views of it, so
// that they cannot be appended to in place.)
func reuse[T any](xs []T, n int) []T {
	if cap(xs) < n {
		return make([]T, n, n+n/2)
	}
	xs = xs[:n]
	clear(xs)
	return xs
}

// recycle keeps s, which b returned, for its slices to be reused.
func (b *blockBuilder) recycle(s *Sentence) {
	if s == nil || s.owner != b || len(b.free) >= maxFree {
		return
	}
	s.owner = nil // recycled once only
	b.free = append(b.free, s)
}

// reset empties b, keeping its buffers. The text of the lines dropped
// stays in the Builder, unused; the next sentence starts after it, or in a
// new Builder.
func (b *blockBuilder) reset() {
	if b.text.Cap()-b.text.Len() < textMargin {
		b.text = strings.Builder{}
	}
	b.start = b.text.Len()
	b.lineEnds, b.tokLine, b.tokLineNo, b.spans = b.lineEnds[:0], b.tokLine[:0], b.tokLineNo[:0], b.spans[:0]
	b.firstLine, b.docStart = 0, false
}
