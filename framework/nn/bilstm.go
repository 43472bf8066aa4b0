// bilstm.go holds BiLSTM, a stack of bidirectional LSTM layers whose
// forward and backward outputs are concatenated.

package nn

import "fmt"

// BiLSTM is a stack of Layers bidirectional layers. Layer 0 reads the
// [n][In] input; layer l+1 reads layer l's [n][2H] output. Each layer's
// output row t is [Fwd h[t] | Bwd h[t]]: columns [0, H) from the left-to-
// right LSTM, [H, 2H) from the right-to-left one.
type BiLSTM[T Float] struct {
	// Fwd[l] and Bwd[l] are layer l's two directions (Bwd[l].Reverse).
	Fwd, Bwd []*LSTM[T]
	// In is the input width, H the units per direction.
	In, H int
}

// NewBiLSTM adds, for each layer l in order, the parameters of
// name+".l<l>.fwd" and then name+".l<l>.bwd" (see NewLSTM) to ps.
func NewBiLSTM[T Float](ps *Params[T], name string, in, h, layers int) *BiLSTM[T] {
	b := &BiLSTM[T]{In: in, H: h}
	for l := range layers {
		w := in
		if l > 0 {
			w = 2 * h
		}
		b.Fwd = append(b.Fwd, NewLSTM(ps, fmt.Sprintf("%s.l%d.fwd", name, l), w, h, false))
		b.Bwd = append(b.Bwd, NewLSTM(ps, fmt.Sprintf("%s.l%d.bwd", name, l), w, h, true))
	}
	return b
}

// BiLSTMCache is what one Forward keeps for its Backward. The zero value is
// ready; buffers grow to the longest sequence and are then reused.
type BiLSTMCache[T Float] struct {
	layers []biLayerCache[T]
}

type biLayerCache[T Float] struct {
	fwd, bwd LSTMCache[T]
	out      []T // [n][2H]: element [t][j] is Fwd h[t][j] for j < H, Bwd h[t][j−H] otherwise
	dy       []T // [n][H]: one direction's half of ∂loss/∂out
	dx       []T // [n][In_l]: ∂loss/∂(layer input), both directions summed
}

// Forward takes x, an [n][In] matrix whose row [t] is the input at position
// t, and returns the last layer's [n][2H] output (see BiLSTM), owned by c
// until its next Forward. x must not change until Backward.
func (b *BiLSTM[T]) Forward(c *BiLSTMCache[T], x []T) []T {
	n := rows(x, b.In, "bilstm", "")
	if len(c.layers) < len(b.Fwd) {
		c.layers = make([]biLayerCache[T], len(b.Fwd))
	}
	H := b.H
	for l := range b.Fwd {
		lc := &c.layers[l]
		lc.out = grow(lc.out, n*2*H)
		hf := b.Fwd[l].Forward(&lc.fwd, x)
		hb := b.Bwd[l].Forward(&lc.bwd, x)
		copyCols(lc.out, span{2 * H, 0}, hf, span{H, 0}, n, H)
		copyCols(lc.out, span{2 * H, H}, hb, span{H, 0}, n, H)
		x = lc.out
	}
	return x
}

// Backward takes dy, an [n][2H] matrix whose element [t][j] is ∂loss/∂(last
// layer's output)[t][j] for the last Forward, adds every LSTM's parameter
// gradients to g, and returns an [n][In] matrix whose element [t][i] is
// ∂loss/∂x[t][i], owned by c until its next Backward.
func (b *BiLSTM[T]) Backward(c *BiLSTMCache[T], g *Grads[T], dy []T) []T {
	H := b.H
	n := rows(dy, 2*H, "bilstm", "")
	for l := len(b.Fwd) - 1; l >= 0; l-- {
		lc := &c.layers[l]
		lc.dy = grow(lc.dy, n*H)
		copyCols(lc.dy, span{H, 0}, dy, span{2 * H, 0}, n, H)
		dxf := b.Fwd[l].Backward(&lc.fwd, g, lc.dy)
		copyCols(lc.dy, span{H, 0}, dy, span{2 * H, H}, n, H)
		dxb := b.Bwd[l].Backward(&lc.bwd, g, lc.dy)
		lc.dx = append(lc.dx[:0], dxf...)
		addTo(dxb, lc.dx)
		dy = lc.dx
	}
	return dy
}
