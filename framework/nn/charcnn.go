// charcnn.go holds CharCNN, the character-level convolution of Ma & Hovy
// (2016): character embeddings, a 1-D convolution centred on each
// character, tanh and max-pooling over the word.

package nn

import "fmt"

// CharCNN turns each word, a slice of character IDs, into a vector of F
// features. A word of m characters has m positions; position q's window is
// the W characters q−⌊(W−1)/2⌋ … q+⌊W/2⌋, so each character is at the
// centre of its window (left of centre for an even W), and window slots
// outside the word hold the zero vector (padding). A word shorter than the
// window is therefore padded on both sides; an empty word is taken as one
// position of padding only. For each filter f,
//
//	a[q][f] = B[f] + Σs Σd K[f][s·Dc+d]·E[char at slot s of window q][d]
//	out[f]  = tanh(max_q a[q][f])
//
// tanh is monotonic, so pooling the pre-activations and then taking tanh
// equals pooling tanh's outputs, with one tanh per word and filter instead
// of one per character. tanh rather than ReLU: a bounded, smooth feature,
// as in Ma & Hovy's released code, and no kink for gradient checks to
// trip on. Ties in the max go to the first position.
type CharCNN[T Float] struct {
	// Emb is a [Chars][Dc] matrix whose row [ch] is the embedding of
	// character ID ch (Sparse, InitEmbedding).
	Emb *Param[T]
	// K is an [F][W·Dc] matrix whose element [f][s·Dc+d] weights dimension
	// d of the character at window slot s in filter f (Glorot).
	K *Param[T]
	// B is an [F] vector of filter biases (zero).
	B *Param[T]
	// Chars is the character vocabulary size, Dc the embedding width, F the
	// number of filters and W the window width (≥ 1).
	Chars, Dc, F, W int
}

// NewCharCNN adds name+".emb", name+".filter" and name+".bias" to ps.
func NewCharCNN[T Float](ps *Params[T], name string, chars, dim, filters, window int) *CharCNN[T] {
	if window < 1 {
		panic(fmt.Sprintf("nn: char CNN %q: window %d < 1", name, window))
	}
	return &CharCNN[T]{
		Emb:   ps.Add(name+".emb", InitEmbedding, true, chars, dim),
		K:     ps.Add(name+".filter", InitGlorot, false, filters, window*dim),
		B:     ps.Add(name+".bias", InitZero, false, filters),
		Chars: chars, Dc: dim, F: filters, W: window,
	}
}

// CharCNNCache is what one Forward keeps for its Backward. The zero value
// is ready; buffers grow to the longest input and are then reused.
type CharCNNCache[T Float] struct {
	n      int     // words
	start  []int   // [n+1]: word t has positions start[t] … start[t+1]−1
	charAt []int32 // [N][W]: element [q][s] is the character ID at slot s of window q, −1 for padding
	u      []T     // [N][W·Dc]: row [q] is window q's embeddings, slot by slot (im2col)
	a      []T     // [N][F]: element [q][f] is a[q][f]
	arg    []int32 // [n][F]: element [t][f] is the position q of word t's maximum for filter f
	out    []T     // [n][F]: element [t][f] is word t's feature f
	du     []T     // [N][W·Dc]: ∂loss/∂u
}

// Forward takes n words, each a slice of character IDs, and returns an
// [n][F] matrix whose element [t][f] is feature f of word t, owned by c
// until its next Forward. An ID outside [0, Chars) is a programmer error
// and panics (Encoder checks its input).
func (cn *CharCNN[T]) Forward(c *CharCNNCache[T], words [][]int32) []T {
	c.n = len(words)
	var N int
	c.start, N = charStarts(c.start, words)
	cn.im2col(c, words, N)
	c.a = grow(c.a, N*cn.F)
	fillRows(c.a, cn.B.W, N)
	wd := cn.W * cn.Dc
	gemm(1, mat(c.u, N, wd), mat(cn.K.W, cn.F, wd).T(), 1, mat(c.a, N, cn.F))
	c.arg = grow(c.arg, c.n*cn.F)
	c.out = grow(c.out, c.n*cn.F)
	for t := range c.n {
		for f := range cn.F {
			best := c.start[t]
			for q := best + 1; q < c.start[t+1]; q++ {
				if c.a[q*cn.F+f] > c.a[best*cn.F+f] {
					best = q
				}
			}
			c.arg[t*cn.F+f] = int32(best)
			c.out[t*cn.F+f] = tanh(c.a[best*cn.F+f])
		}
	}
	return c.out
}

// im2col fills c.charAt and c.u for the N positions of words.
func (cn *CharCNN[T]) im2col(c *CharCNNCache[T], words [][]int32, N int) {
	W, Dc, left := cn.W, cn.Dc, (cn.W-1)/2
	c.charAt = grow(c.charAt, N*W)
	c.u = grow(c.u, N*W*Dc)
	for t, w := range words {
		for q := c.start[t]; q < c.start[t+1]; q++ {
			centre := q - c.start[t]
			for s := range W {
				at := q*W + s
				dst := c.u[at*Dc : (at+1)*Dc]
				k := centre - left + s
				if k < 0 || k >= len(w) {
					c.charAt[at] = -1
					clear(dst)
					continue
				}
				if w[k] < 0 || int(w[k]) >= cn.Chars {
					panic(fmt.Sprintf("nn: char CNN %q: character ID %d of word %d outside [0, %d)", cn.Emb.Name, w[k], t, cn.Chars))
				}
				c.charAt[at] = w[k]
				copy(dst, cn.Emb.Row(int(w[k])))
			}
		}
	}
}

// Backward takes dy, an [n][F] matrix whose element [t][f] is
// ∂loss/∂out[t][f] for the last Forward, and adds ∂loss/∂K, ∂loss/∂B and
// ∂loss/∂Emb (the rows of the characters seen) to g. Only each word's
// winning position gets gradient, so the filter update is an outer
// product per word and filter rather than a matrix product.
func (cn *CharCNN[T]) Backward(c *CharCNNCache[T], g *Grads[T], dy []T) {
	F, wd, Dc := cn.F, cn.W*cn.Dc, cn.Dc
	if len(dy) != c.n*F {
		panic(fmt.Sprintf("nn: char CNN %q: Backward got %d values, want %d×%d", cn.Emb.Name, len(dy), c.n, F))
	}
	N := c.start[c.n]
	c.du = grow(c.du, N*wd)
	clear(c.du)
	dK, dB := g.Dense(cn.K), g.Dense(cn.B)
	for t := range c.n {
		for f := range F {
			o := c.out[t*F+f]
			d := dy[t*F+f] * (1 - o*o)
			q := int(c.arg[t*F+f])
			dB[f] += d
			axpy(d, c.u[q*wd:(q+1)*wd], dK[f*wd:(f+1)*wd])
			axpy(d, cn.K.W[f*wd:(f+1)*wd], c.du[q*wd:(q+1)*wd])
		}
	}
	for at, ch := range c.charAt[:N*cn.W] {
		if ch >= 0 {
			addTo(c.du[at*Dc:(at+1)*Dc], g.Row(cn.Emb, int(ch)))
		}
	}
}
