// linear.go holds Linear, the affine layer y = W·x + b applied to every
// row of a sequence with one matrix product.

package nn

import "fmt"

// Linear is y[t] = W·x[t] + b for every row t.
type Linear[T Float] struct {
	// W is an [Out][In] matrix whose element [o][i] weights input i in
	// output o (Glorot).
	W *Param[T]
	// B is an [Out] vector, the bias of each output (zero).
	B *Param[T]
	// In and Out are the input and output widths.
	In, Out int
}

// NewLinear adds name+".W" and name+".b" to ps.
func NewLinear[T Float](ps *Params[T], name string, in, out int) *Linear[T] {
	return &Linear[T]{
		W:  ps.Add(name+".W", InitGlorot, false, out, in),
		B:  ps.Add(name+".b", InitZero, false, out),
		In: in, Out: out,
	}
}

// LinearCache is what one Forward keeps for its Backward. The zero value is
// ready; buffers grow to the longest input and are then reused.
type LinearCache[T Float] struct {
	x  []T // the input of the last Forward (a reference, not a copy)
	n  int
	y  []T // [n][Out]
	dx []T // [n][In]
}

// rows returns len(x)/width, panicking when x is not a whole number of rows
// (the layer's kind and name make the message).
func rows[T Float](x []T, width int, kind, name string) int {
	if len(x)%width != 0 {
		panic(fmt.Sprintf("nn: %s %q: %d values is not a whole number of rows of %d", kind, name, len(x), width))
	}
	return len(x) / width
}

// Forward takes x, an [n][In] matrix whose element [t][i] is input i of row
// t, and returns y, an [n][Out] matrix whose element [t][o] is
// b[o] + Σi W[o][i]·x[t][i], owned by c until its next Forward. x must not
// change until Backward.
func (l *Linear[T]) Forward(c *LinearCache[T], x []T) []T {
	n := rows(x, l.In, "linear", l.W.Name)
	c.x, c.n = x, n
	c.y = grow(c.y, n*l.Out)
	fillRows(c.y, l.B.W, n)
	gemm(1, mat(x, n, l.In), mat(l.W.W, l.Out, l.In).T(), 1, mat(c.y, n, l.Out))
	return c.y
}

// Backward takes dy, an [n][Out] matrix whose element [t][o] is
// ∂loss/∂y[t][o] for the last Forward, adds ∂loss/∂W and ∂loss/∂b to g, and
// returns dx, an [n][In] matrix whose element [t][i] is ∂loss/∂x[t][i],
// owned by c until its next Backward.
func (l *Linear[T]) Backward(c *LinearCache[T], g *Grads[T], dy []T) []T {
	n := c.n
	if len(dy) != n*l.Out {
		panic(fmt.Sprintf("nn: linear %q: Backward got %d values, want %d×%d", l.W.Name, len(dy), n, l.Out))
	}
	gemm(1, mat(dy, n, l.Out).T(), mat(c.x, n, l.In), 1, mat(g.Dense(l.W), l.Out, l.In))
	addColumnSums(g.Dense(l.B), dy, n, l.Out)
	c.dx = grow(c.dx, n*l.In)
	gemm(1, mat(dy, n, l.Out), mat(l.W.W, l.Out, l.In), 0, mat(c.dx, n, l.In))
	return c.dx
}
