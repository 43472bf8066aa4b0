// charlstm.go holds CharLSTM, the character-level BiLSTM of Lample et al.
// (2016): character embeddings read by an LSTM in each direction, the word
// being the forward state after its last character and the backward state
// after its first.

package nn

import "fmt"

// CharLSTM turns each word, a slice of character IDs, into a vector of 2H
// features:
//
//	out[t] = [ fwd.h[m−1] | bwd.h[0] ]
//
// where fwd and bwd run over the word's m character embeddings left to
// right and right to left. An empty word is taken as one position whose
// input is the zero vector. Unlike the CNN, which sees a window, it reads
// the whole word: prefixes and suffixes of any length.
type CharLSTM[T Float] struct {
	// Emb is a [Chars][Dc] matrix whose row [ch] is the embedding of
	// character ID ch (Sparse, InitEmbedding).
	Emb *Param[T]
	// Fwd and Bwd are the two directions, Dc → H each.
	Fwd, Bwd *LSTM[T]
	// Chars is the character vocabulary size, Dc the embedding width, H
	// the units per direction.
	Chars, Dc, H int
}

// NewCharLSTM adds name+".emb", then name+".fwd" and name+".bwd"'s LSTM
// parameters to ps.
func NewCharLSTM[T Float](ps *Params[T], name string, chars, dim, hidden int) *CharLSTM[T] {
	return &CharLSTM[T]{
		Emb:   ps.Add(name+".emb", InitEmbedding, true, chars, dim),
		Fwd:   NewLSTM(ps, name+".fwd", dim, hidden, false),
		Bwd:   NewLSTM(ps, name+".bwd", dim, hidden, true),
		Chars: chars, Dc: dim, H: hidden,
	}
}

// CharLSTMCache is what one Forward keeps for its Backward. The zero value
// is ready; buffers grow to the longest input and are then reused.
type CharLSTMCache[T Float] struct {
	n     int
	start []int   // [n+1]: word t has positions start[t] … start[t+1]−1
	ids   []int32 // [N]: the character ID at each position, −1 for an empty word's
	x     []T     // [N][Dc]: row [q] is position q's embedding
	// fwd and bwd [t] are word t's caches of the two directions: each
	// word is a sequence of its own.
	fwd []LSTMCache[T]
	bwd []LSTMCache[T]
	out []T // [n][2H]: row [t] is word t's vector
	dy  []T // [longest word][H]: one direction's ∂loss/∂h, zero but one row
}

// Forward takes n words, each a slice of character IDs, and returns an
// [n][2H] matrix whose row [t] is word t's vector, owned by c until its
// next Forward. An ID outside [0, Chars) panics (Encoder checks its input).
func (cl *CharLSTM[T]) Forward(c *CharLSTMCache[T], words [][]int32) []T {
	c.n = len(words)
	var N int
	c.start, N = charStarts(c.start, words)
	c.ids, c.x = grow(c.ids, N), grow(c.x, N*cl.Dc)
	for t, w := range words {
		q := c.start[t]
		if len(w) == 0 {
			c.ids[q] = -1
			clear(c.x[q*cl.Dc : (q+1)*cl.Dc])
		}
		for k, ch := range w {
			if ch < 0 || int(ch) >= cl.Chars {
				panic(fmt.Sprintf("nn: char LSTM %q: character ID %d of word %d outside [0, %d)", cl.Emb.Name, ch, t, cl.Chars))
			}
			c.ids[q+k] = ch
			copy(c.x[(q+k)*cl.Dc:(q+k+1)*cl.Dc], cl.Emb.Row(int(ch)))
		}
	}
	for len(c.fwd) < c.n {
		c.fwd, c.bwd = append(c.fwd, LSTMCache[T]{}), append(c.bwd, LSTMCache[T]{})
	}
	H := cl.H
	c.out = grow(c.out, c.n*2*H)
	for t := range c.n {
		a, b := c.start[t], c.start[t+1]
		x := c.x[a*cl.Dc : b*cl.Dc]
		hf := cl.Fwd.Forward(&c.fwd[t], x)
		hb := cl.Bwd.Forward(&c.bwd[t], x)
		copy(c.out[t*2*H:t*2*H+H], hf[(b-a-1)*H:])
		copy(c.out[t*2*H+H:(t+1)*2*H], hb[:H])
	}
	return c.out
}

// Backward takes dy, an [n][2H] matrix whose row [t] is ∂loss/∂out[t] for
// the last Forward, and adds ∂loss/∂ of both directions' weights and of
// the embeddings of the characters seen to g.
func (cl *CharLSTM[T]) Backward(c *CharLSTMCache[T], g *Grads[T], dy []T) {
	H := cl.H
	if len(dy) != c.n*2*H {
		panic(fmt.Sprintf("nn: char LSTM %q: Backward got %d values, want %d×%d", cl.Emb.Name, len(dy), c.n, 2*H))
	}
	for t := range c.n {
		a, b := c.start[t], c.start[t+1]
		m := b - a
		c.dy = grow(c.dy, m*H)
		clear(c.dy)
		copy(c.dy[(m-1)*H:], dy[t*2*H:t*2*H+H])
		dxf := cl.Fwd.Backward(&c.fwd[t], g, c.dy)
		cl.addEmbGrads(c, g, dxf, a, b)
		clear(c.dy)
		copy(c.dy[:H], dy[t*2*H+H:(t+1)*2*H])
		dxb := cl.Bwd.Backward(&c.bwd[t], g, c.dy)
		cl.addEmbGrads(c, g, dxb, a, b)
	}
}

// addEmbGrads adds dx, an [m][Dc] matrix of ∂loss/∂x for positions a … b−1,
// to the embedding rows of their characters (none for an empty word's).
func (cl *CharLSTM[T]) addEmbGrads(c *CharLSTMCache[T], g *Grads[T], dx []T, a, b int) {
	for q := a; q < b; q++ {
		if ch := c.ids[q]; ch >= 0 {
			addTo(dx[(q-a)*cl.Dc:(q-a+1)*cl.Dc], g.Row(cl.Emb, int(ch)))
		}
	}
}
