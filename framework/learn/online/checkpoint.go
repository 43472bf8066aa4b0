package online

import (
	"fmt"

	"github.com/trellis-nlp/trellis/framework/learn"
)

// state is what a checkpoint holds after an epoch: everything the
// remaining epochs depend on (the decoding copies of the transition
// weights follow from W).
type state struct {
	Epoch     int
	W, U      []float64
	C         float64
	Updates   int
	RNG       []byte // the shuffling source (math/rand/v2 PCG)
	Order     []int  // the sentence order, shuffled in place every epoch
	Best      []float64
	HasBest   bool
	BestScore float64
	BestAt    int
	Curve     []learn.Point
	// Rule is the rule's own state (Rule.State), nil for none.
	Rule []float64
}

// save encodes the state after an epoch.
func (r *run) save(epoch int, curve []learn.Point) ([]byte, error) {
	rngState, err := r.src.MarshalBinary()
	if err != nil {
		return nil, err
	}
	t := r.tr
	b, err := learn.EncodeState(&state{Epoch: epoch, W: t.w, U: t.u, C: t.c, Updates: t.updates, RNG: rngState,
		Order: r.order, Best: r.best.W, HasBest: r.best.W != nil, BestScore: r.best.Score, BestAt: r.best.At, Curve: curve,
		Rule: t.rule.State()})
	if err != nil {
		return nil, fmt.Errorf("%s: checkpoint: %w", r.name, err)
	}
	return b, nil
}

// restore loads what save encoded.
func (r *run) restore(b []byte) (int, []learn.Point, error) {
	var st state
	if err := learn.DecodeState(b, &st); err != nil {
		return 0, nil, fmt.Errorf("%s: the checkpoint cannot be read: %w", r.name, err)
	}
	weights, sentences := len(r.m.W), len(r.order)
	rule := r.tr.rule.State()
	if len(st.W) != weights || len(st.U) != weights || len(st.Order) != sentences || (st.HasBest && len(st.Best) != weights) ||
		st.Epoch < 1 || len(st.Rule) != len(rule) {
		return 0, nil, fmt.Errorf("%s: the checkpoint does not fit this problem (%d weights, %d sentences; it has %d and %d)",
			r.name, weights, sentences, len(st.W), len(st.Order))
	}
	if err := checkOrder(st.Order); err != nil {
		return 0, nil, fmt.Errorf("%s: the checkpoint is damaged: %w", r.name, err)
	}
	if err := r.src.UnmarshalBinary(st.RNG); err != nil {
		return 0, nil, fmt.Errorf("%s: checkpoint: %w", r.name, err)
	}
	copy(rule, st.Rule)
	r.tr.restore(&st)
	r.order = st.Order
	r.best = learn.Best{Score: st.BestScore, At: st.BestAt, W: st.Best}
	if !st.HasBest {
		r.best.W = nil
	}
	return st.Epoch, st.Curve, nil
}

// checkOrder checks that order is a permutation of 0, …, len(order)-1
// (Step indexes sentences with it).
func checkOrder(order []int) error {
	seen := make([]bool, len(order))
	for k, s := range order {
		if s < 0 || s >= len(order) {
			return fmt.Errorf("its sentence order has %d at position %d, outside [0, %d)", s, k, len(order))
		}
		if seen[s] {
			return fmt.Errorf("its sentence order has %d twice (again at position %d)", s, k)
		}
		seen[s] = true
	}
	return nil
}

// restore loads a checkpoint's weights and counters into t, and the
// decoding copy of the transitions from the weights (the state weights
// are read from t.w itself).
func (t *Trainer) restore(st *state) {
	copy(t.w, st.W)
	copy(t.u, st.U)
	t.c, t.updates = st.C, st.Updates
	if !t.transitions {
		return
	}
	l, f := t.nl, t.m.NumFeatures()
	for p := 0; p < l; p++ {
		for c := 0; c < l; c++ {
			t.chain.SetTrans(p, c, t.w[f+p*l+c])
		}
	}
	for y := 0; y < l; y++ {
		t.chain.SetStart(y, t.w[f+l*l+y])
		t.chain.SetStop(y, t.w[f+l*l+l+y])
	}
}
