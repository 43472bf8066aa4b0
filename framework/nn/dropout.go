// dropout.go holds Dropout, inverted dropout with a mask drawn from the
// caller's seeded generator.

package nn

import (
	"fmt"
	"math/rand/v2"
)

// Dropout zeroes each element with probability P during training and
// scales the survivors by 1/(1−P), so inference is the identity.
type Dropout[T Float] struct {
	// P is the probability of dropping an element, in [0, 1). Zero is the
	// identity, in training too, and draws nothing.
	P float64
}

// DropoutCache is what one Forward keeps for its Backward. The zero value
// is ready; buffers grow to the longest input and are then reused.
type DropoutCache[T Float] struct {
	on   bool // the last Forward dropped (training with P > 0)
	mask []T  // element i is 0 (dropped) or 1/(1−P) (kept)
	out  []T
	dx   []T
}

// Forward returns x with the mask applied, a matrix of x's shape owned by c
// until its next Forward. With rng nil (inference) or P = 0 it returns x
// itself. Otherwise it draws one rng.Float64() per element, in order, and
// drops element i when the draw is < P: the same generator state gives the
// same mask. A P outside [0, 1) is a programmer error and panics.
func (d Dropout[T]) Forward(c *DropoutCache[T], x []T, rng *rand.Rand) []T {
	if d.P < 0 || d.P >= 1 {
		panic(fmt.Sprintf("nn: dropout probability %v outside [0, 1)", d.P))
	}
	c.on = rng != nil && d.P > 0
	if !c.on {
		return x
	}
	keep := T(1 / (1 - d.P))
	c.mask = grow(c.mask, len(x))
	c.out = grow(c.out, len(x))
	for i, v := range x {
		m := keep
		if rng.Float64() < d.P {
			m = 0
		}
		c.mask[i] = m
		c.out[i] = v * m
	}
	return c.out
}

// Backward takes dy, ∂loss/∂(output of the last Forward), and returns
// ∂loss/∂x: dy times the mask, owned by c until its next Backward, or dy
// itself when the last Forward did not drop.
func (d Dropout[T]) Backward(c *DropoutCache[T], dy []T) []T {
	if !c.on {
		return dy
	}
	if len(dy) != len(c.mask) {
		panic(fmt.Sprintf("nn: dropout Backward got %d values, want %d", len(dy), len(c.mask)))
	}
	c.dx = grow(c.dx, len(dy))
	for i, v := range dy {
		c.dx[i] = v * c.mask[i]
	}
	return c.dx
}
