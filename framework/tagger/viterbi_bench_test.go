package tagger

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/trellis-nlp/trellis/framework/linear"
)

// BenchmarkViterbi decodes 24-token lattices over 22 labels with
// IOB-like constraints (half the labels reachable only from two others).
func BenchmarkViterbi(b *testing.B) {
	const l, n = 22, 24
	rng := rand.New(rand.NewPCG(3, 4))
	lm := linear.NewDense(1, l, true)
	for i := range lm.W {
		lm.W[i] = rng.NormFloat64()
	}
	trans := append([]float64(nil), lm.Trans()...)
	for y := 12; y < l; y++ {
		for p := 0; p < l; p++ {
			if p != y && p != y-10 {
				trans[p*l+y] = math.Inf(-1)
			}
		}
	}
	d := newDecoder(lm, trans, lm.Start(), lm.Stop())
	state := make([]float64, n*l)
	for i := range state {
		state[i] = 3 * rng.NormFloat64()
	}
	path := make([]int32, n)
	for b.Loop() {
		d.viterbi(path, state)
	}
}
