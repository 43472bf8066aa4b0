package crf

import (
	"fmt"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/optim"
)

// state is what a CRF checkpoint holds: for L-BFGS the optimizer's state
// after an iteration, for SGD the scaled weights, step counter, shuffling
// source and sentence order after an epoch (mixing: the mixed weights and
// each shard's clock, source and order); for both the dev-score
// tracking and the learning curve so far.
type state struct {
	Algorithm string
	Opt       *optim.State

	Epoch   int
	V       []float64
	Scale   float64
	T       float64
	RNG     []byte
	Order   []int
	History []float64
	// Shards is the number of shards of a mixed SGD run (0 serial); Order
	// is then the shards' orders one after the other, ShardT their step
	// clocks and ShardRNG their shuffling sources.
	Shards   int
	ShardT   []float64
	ShardRNG [][]byte

	Best   float64
	BestAt int
	BestW  []float64
	Curve  []learn.Point
}

func encodeState(st *state) ([]byte, error) {
	b, err := learn.EncodeState(st)
	if err != nil {
		return nil, fmt.Errorf("crf: checkpoint: %w", err)
	}
	return b, nil
}

func decodeState(b []byte, algorithm string, weights int) (*state, error) {
	var st state
	if err := learn.DecodeState(b, &st); err != nil {
		return nil, fmt.Errorf("crf: the checkpoint cannot be read: %w", err)
	}
	if st.Algorithm != algorithm {
		return nil, fmt.Errorf("crf: the checkpoint is of a %s run, this one is %s", st.Algorithm, algorithm)
	}
	n := len(st.V)
	if st.Opt != nil {
		n = len(st.Opt.X)
	}
	if n != weights || (st.BestW != nil && len(st.BestW) != weights) {
		return nil, fmt.Errorf("crf: the checkpoint does not fit this problem (%d weights, it has %d)", weights, n)
	}
	return &st, nil
}

// restoreState loads a checkpoint's dev-score tracking.
func (es *earlyStop) restoreState(st *state) {
	es.best.Score, es.best.At = st.Best, st.BestAt
	if st.BestW != nil {
		es.best.W = append(es.best.W[:0], st.BestW...)
	}
}
