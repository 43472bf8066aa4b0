package corpus

// blockBuilder collects the lines of one multi-line sentence (conll and
// conllu) and the byte spans of its token fields, then turns them into a
// Sentence whose strings all share a single allocation.
type blockBuilder struct {
	buf       []byte // the sentence's lines, concatenated without terminators
	lineEnds  []int  // lineEnds[k] is the end offset of line k in buf
	tokLine   []int  // index in lineEnds of each token's line
	tokLineNo []int  // 1-based file line of each token
	spans     []int  // per token, ncol pairs of [start, end) offsets in buf; start -1 = absent
	firstLine int
	docStart  bool
	// document is the number of the document being read, sentences the
	// number of sentences finished (neither is reset between sentences).
	document, sentences int

	// Chunks that finish carves the sentences' slices from.
	strChunk []string
	rowChunk [][]string
	intChunk []int
}

// chunkLen is the number of elements of a fresh chunk.
const chunkLen = 1024

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

// addLine appends a line and returns its offset in buf.
func (b *blockBuilder) addLine(line []byte, lineNo int) int {
	if b.empty() {
		b.firstLine = lineNo
	}
	base := len(b.buf)
	b.buf = append(b.buf, line...)
	b.lineEnds = append(b.lineEnds, len(b.buf))
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
	text := string(b.buf)
	n := len(b.tokLine)
	if b.docStart && b.sentences > 0 {
		b.document++
	}
	b.sentences++
	// The slices are carved from chunks shared by consecutive sentences
	// (a few allocations per hundred sentences instead of three per
	// sentence), each capped so that appending to one cannot reach the
	// next. A chunk lives as long as any sentence carved from it.
	nl := len(b.lineEnds)
	strs := carve(&b.strChunk, nl+n*ncol)
	s := &Sentence{
		Tokens:   carve(&b.rowChunk, n),
		Lines:    strs[:nl:nl],
		File:     file,
		Line:     b.firstLine,
		DocStart: b.docStart,
		Document: b.document,
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
	ints := carve(&b.intChunk, 2*n)
	s.TokenLine, s.TokenLineNo = ints[:n:n], ints[n:]
	copy(s.TokenLine, b.tokLine)
	copy(s.TokenLineNo, b.tokLineNo)
	b.reset()
	return s
}

// reset empties b, keeping its buffers.
func (b *blockBuilder) reset() {
	b.buf, b.lineEnds, b.tokLine, b.tokLineNo, b.spans = b.buf[:0], b.lineEnds[:0], b.tokLine[:0], b.tokLineNo[:0], b.spans[:0]
	b.firstLine, b.docStart = 0, false
}
