// shard.go: a shard of the text and its training loop (sentences,
// subsampling, windows, the updates of a pair), and the overlay that
// keeps a shard's changes apart until the merge.

package word2vec

// shard is a run of whole sentences of the text, trained by one
// goroutine with its own random numbers.
type shard struct {
	t *trainer
	// start and end bound the shard in Corpus.Text; pos is where its next
	// block starts in this epoch.
	start, end, pos int
	rng             rng
	// acc accumulates the gradient of a pair's input vector.
	acc []float32
	// sen is the current sentence after subsampling.
	sen []int32
	// ov holds the rows the shard changed in this block; nil when it is
	// the only shard and writes the vectors directly.
	ov *overlay
	// processed counts the tokens of this block (subsampled ones too).
	processed int64
}

// block trains on the shard's next blockTokens tokens (whole sentences),
// or the rest of the shard. base is the run's token count at the start
// of the round: with n shards each takes the others to have processed
// as many tokens as itself, for the learning rate.
func (s *shard) block(base int64) {
	s.processed = 0
	text := s.t.c.Text
	for s.pos < s.end && s.processed < blockTokens {
		end := s.pos
		for end < s.end && text[end] >= 0 {
			end++
		}
		s.sentence(text[s.pos:end], base)
		s.pos = end + 1
	}
}

// sentence trains on one sentence: each kept word predicts the words of
// its window, which never leaves the sentence.
func (s *shard) sentence(words []int32, base int64) {
	t := s.t
	alpha := t.alpha(base + int64(len(t.shards))*s.processed)
	s.processed += int64(len(words))
	sen := s.sen[:0]
	for _, w := range words {
		if k := t.keep[w]; k >= 1<<32 || s.rng.next()>>32 < k {
			sen = append(sen, w)
		}
	}
	s.sen = sen
	win := t.o.Window
	for a, w := range sen {
		b := s.rng.below(win)
		lo, hi := max(a-win+b, 0), min(a+win-b, len(sen)-1)
		for c := lo; c <= hi; c++ {
			if c != a {
				s.pair(sen[c], w, alpha)
			}
		}
	}
}

// pair is word2vec's update for the context word in predicting the word
// out: out with label 1 and Negative noise words (other than out) with
// label 0 against in's input vector, which takes the summed gradient
// last.
func (s *shard) pair(in, out int32, alpha float32) {
	t := s.t
	l1 := s.row(0, in)
	clear(s.acc)
	step(l1, s.row(1, out), s.acc, 1, alpha, t.sig)
	for range t.o.Negative {
		w := t.noise.draw(&s.rng)
		if w == out {
			continue
		}
		// row(1, …) may grow the overlay's output rows, never its input
		// rows, so l1 stays valid.
		step(l1, s.row(1, w), s.acc, 0, alpha, t.sig)
	}
	axpy(1, s.acc, l1)
}

// row returns word w's row of matrix m (0 input, 1 output) as the shard
// sees it.
func (s *shard) row(m int, w int32) []float32 {
	d := s.t.o.Dim
	if s.ov != nil {
		return s.ov.row(m, s.t.mat[m], w, d)
	}
	i := int(w) * d
	return s.t.mat[m][i : i+d : i+d]
}

// overlay is a shard's private copy of the rows it changed in the
// current block, for each matrix: the shared vectors are only read
// during a block, and changed only by the merge.
type overlay struct {
	// slot[m][w] is 1 + w's row in rows[m], 0 when w has no copy yet.
	slot [2][]int32
	rows [2][]float32
	// words[m] are the words with a copy, in row order.
	words [2][]int32
}

func newOverlay(words, dim int) *overlay {
	o := &overlay{}
	for m := range o.slot {
		o.slot[m] = make([]int32, words)
		o.rows[m] = make([]float32, 0, min(words, blockTokens)*dim)
	}
	return o
}

// row returns the shard's copy of w's row of matrix m, copying it from
// master on first use. It may move rows[m]: a row of m must not be kept
// across a further call for m.
func (o *overlay) row(m int, master []float32, w int32, d int) []float32 {
	k := int(o.slot[m][w])
	if k == 0 {
		i := int(w) * d
		o.rows[m] = append(o.rows[m], master[i:i+d]...)
		o.words[m] = append(o.words[m], w)
		k = len(o.words[m])
		o.slot[m][w] = int32(k)
	}
	return o.rows[m][(k-1)*d : k*d : k*d]
}

// subtract turns the copies into their differences from the vectors in
// mat (which the merge has not changed yet).
func (o *overlay) subtract(mat *[2][]float32) {
	for m := range o.words {
		d := len(mat[m]) / len(o.slot[m])
		for k, w := range o.words[m] {
			row, master := o.rows[m][k*d:(k+1)*d], mat[m][int(w)*d:(int(w)+1)*d]
			for i := range row {
				row[i] -= master[i]
			}
		}
	}
}

// addTo adds the differences of matrix m to master.
func (o *overlay) addTo(m int, master []float32) {
	d := len(master) / len(o.slot[m])
	for k, w := range o.words[m] {
		axpy(1, o.rows[m][k*d:(k+1)*d], master[int(w)*d:(int(w)+1)*d])
	}
}

// reset empties the overlay for the next block.
func (o *overlay) reset() {
	for m := range o.words {
		for _, w := range o.words[m] {
			o.slot[m][w] = 0
		}
		o.words[m] = o.words[m][:0]
		o.rows[m] = o.rows[m][:0]
	}
}
