// This file holds the learner's checkpoints: the training state after an
// epoch, saved through learn.Loop and restored to continue to the same
// bits as an uninterrupted run.

package transition

import (
	"fmt"
	"slices"

	"github.com/trellis-nlp/trellis/framework/learn"
)

// state is what a checkpoint holds after an epoch: everything the
// remaining epochs depend on (the decoding chain follows from W).
type state struct {
	Epoch     int
	W, U      []float64
	C         float64
	Updates   int
	Shuffle   []byte // the document shuffle's PCG
	Draws     []byte // the roll-in draws' PCG
	Order     []int  // the documents' order, shuffled in place every epoch
	Best      []float64
	HasBest   bool
	BestScore float64
	BestAt    int
	Curve     []learn.Point
}

// save encodes the state after an epoch.
func (r *run) save(epoch int, curve []learn.Point) ([]byte, error) {
	shuffle, err := r.shuffleSrc.MarshalBinary()
	if err != nil {
		return nil, err
	}
	draws, err := r.drawSrc.MarshalBinary()
	if err != nil {
		return nil, err
	}
	st := &state{Epoch: epoch, W: r.w, U: r.u, C: r.c, Updates: r.updates, Shuffle: shuffle, Draws: draws,
		Order: r.order, Best: r.best.W, HasBest: r.best.W != nil, BestScore: r.best.Score, BestAt: r.best.At, Curve: curve}
	b, err := learn.EncodeState(st)
	if err != nil {
		return nil, fmt.Errorf("transition: checkpoint: %w", err)
	}
	return b, nil
}

// restore loads what save encoded.
func (r *run) restore(b []byte) (int, []learn.Point, error) {
	var st state
	if err := learn.DecodeState(b, &st); err != nil {
		return 0, nil, fmt.Errorf("transition: the checkpoint cannot be read: %w", err)
	}
	weights, docs := len(r.w), len(r.order)
	if len(st.W) != weights || len(st.U) != weights || len(st.Order) != docs || (st.HasBest && len(st.Best) != weights) || st.Epoch < 1 {
		return 0, nil, fmt.Errorf("%w (%d weights, %d documents; it has %d and %d)", ErrCheckpoint, weights, docs, len(st.W), len(st.Order))
	}
	if sorted := slices.Sorted(slices.Values(st.Order)); !slices.Equal(sorted, identity(docs)) {
		return 0, nil, fmt.Errorf("%w: its document order is not a permutation of the %d documents", ErrCheckpoint, docs)
	}
	if err := r.shuffleSrc.UnmarshalBinary(st.Shuffle); err != nil {
		return 0, nil, fmt.Errorf("transition: checkpoint: %w", err)
	}
	if err := r.drawSrc.UnmarshalBinary(st.Draws); err != nil {
		return 0, nil, fmt.Errorf("transition: checkpoint: %w", err)
	}
	copy(r.order, st.Order)
	copy(r.u, st.U)
	r.c, r.updates = st.C, st.Updates
	copy(r.w, st.W)
	for f := r.nf; f < len(r.w); f++ {
		r.syncChain(f) // the decoding chain follows the weights
	}
	r.best = learn.Best{Score: st.BestScore, At: st.BestAt, W: st.Best}
	if !st.HasBest {
		r.best.W = nil
	}
	return st.Epoch, st.Curve, nil
}

// identity is 0, 1, …, n-1.
func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
