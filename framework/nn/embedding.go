// embedding.go holds Embedding, a lookup table from int32 IDs to vectors,
// with a sparse backward pass.

package nn

import "fmt"

// Embedding maps IDs to rows of a table.
type Embedding[T Float] struct {
	// Table is a [V][D] matrix whose row [v] is the vector of ID v. It is
	// Sparse: Backward touches only the rows of the IDs it saw.
	Table *Param[T]
	// V is the number of IDs (0 … V−1), D the vector width.
	V, D int
}

// NewEmbedding adds a [v][d] table called name to ps (InitEmbedding,
// uniform ±sqrt(3/d)).
func NewEmbedding[T Float](ps *Params[T], name string, v, d int) *Embedding[T] {
	return &Embedding[T]{Table: ps.Add(name, InitEmbedding, true, v, d), V: v, D: d}
}

// EmbeddingCache is what one Forward keeps for its Backward. The zero value
// is ready; buffers grow to the longest input and are then reused.
type EmbeddingCache[T Float] struct {
	ids []int32 // the IDs of the last Forward (a copy)
	out []T     // a [n][D] matrix whose row [t] is the vector of ids[t]
}

// Forward gathers the rows of ids and returns them as a [len(ids)][D]
// matrix whose element [t][d] is Table[ids[t]][d], owned by c until its
// next Forward. An ID outside [0, V) is a programmer error and panics
// (map unknown words to an UNK ID first; Encoder checks its input).
func (e *Embedding[T]) Forward(c *EmbeddingCache[T], ids []int32) []T {
	c.ids = append(c.ids[:0], ids...)
	c.out = grow(c.out, len(ids)*e.D)
	for t, id := range ids {
		if id < 0 || int(id) >= e.V {
			panic(fmt.Sprintf("nn: embedding %q: ID %d at %d outside [0, %d)", e.Table.Name, id, t, e.V))
		}
		copy(c.out[t*e.D:(t+1)*e.D], e.Table.Row(int(id)))
	}
	return c.out
}

// Backward adds dy, a [n][D] matrix whose row [t] is ∂loss/∂(output row t)
// of the last Forward, to the gradient rows of those IDs in g (a repeated
// ID gets the sum). The input has no gradient.
func (e *Embedding[T]) Backward(c *EmbeddingCache[T], g *Grads[T], dy []T) {
	if len(dy) != len(c.ids)*e.D {
		panic(fmt.Sprintf("nn: embedding %q: Backward got %d values, want %d×%d", e.Table.Name, len(dy), len(c.ids), e.D))
	}
	for t, id := range c.ids {
		addTo(dy[t*e.D:(t+1)*e.D], g.Row(e.Table, int(id)))
	}
}

// SetRows overwrites rows of the table from pretrained vectors: rows[v],
// when not nil, becomes the vector of ID v; nil rows keep their values. It
// is an error, leaving the table unchanged, when len(rows) > V or a
// non-nil row's length is not D.
func (e *Embedding[T]) SetRows(rows [][]float32) error {
	if len(rows) > e.V {
		return fmt.Errorf("nn: embedding %q: %d rows for a table of %d", e.Table.Name, len(rows), e.V)
	}
	for v, r := range rows {
		if r != nil && len(r) != e.D {
			return fmt.Errorf("nn: embedding %q: row %d has %d values, want %d", e.Table.Name, v, len(r), e.D)
		}
	}
	for v, r := range rows {
		dst := e.Table.Row(v)
		for d, x := range r {
			dst[d] = T(x)
		}
	}
	return nil
}
