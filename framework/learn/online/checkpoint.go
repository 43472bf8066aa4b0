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
	// Rule is the rule's own state (Rule.State), nil for none; mixed,
	// the state after the last mix.
	Rule []float64
	// Shards is the number of shards of a mixed run (0 serial); Order is
	// then the shards' orders one after the other and ShardRNG their
	// shuffling sources.
	Shards   int
	ShardRNG [][]byte
}

// save encodes the state after an epoch.
func (r *run) save(epoch int, curve []learn.Point) ([]byte, error) {
	rngState, err := r.src.MarshalBinary()
	if err != nil {
		return nil, err
	}
	t := r.tr
	st := &state{Epoch: epoch, W: t.w, U: t.u, C: t.c, Updates: t.updates, RNG: rngState,
		Order: r.order, Best: r.best.W, HasBest: r.best.W != nil, BestScore: r.best.Score, BestAt: r.best.At, Curve: curve,
		Rule: r.ruleState()}
	if x := r.ipm; x != nil {
		st.Shards, st.Order = len(x.shards), nil
		for s, order := range x.shards {
			st.Order = append(st.Order, order...)
			b, err := x.srcs[s].MarshalBinary()
			if err != nil {
				return nil, err
			}
			st.ShardRNG = append(st.ShardRNG, b)
		}
	}
	b, err := learn.EncodeState(st)
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
	rule, shards := r.ruleState(), 0
	if r.ipm != nil {
		shards = len(r.ipm.shards)
	}
	if len(st.W) != weights || len(st.U) != weights || len(st.Order) != sentences || (st.HasBest && len(st.Best) != weights) ||
		st.Epoch < 1 || len(st.Rule) != len(rule) || st.Shards != shards || (shards > 0 && len(st.ShardRNG) != shards) {
		return 0, nil, fmt.Errorf("%s: the checkpoint does not fit this problem (%d weights, %d sentences, %d shards; it has %d, %d and %d)",
			r.name, weights, sentences, shards, len(st.W), len(st.Order), st.Shards)
	}
	if err := r.restoreOrder(&st); err != nil {
		return 0, nil, err
	}
	copy(rule, st.Rule)
	r.tr.restore(&st)
	r.best = learn.Best{Score: st.BestScore, At: st.BestAt, W: st.Best}
	if !st.HasBest {
		r.best.W = nil
	}
	return st.Epoch, st.Curve, nil
}

// ruleState is the rule's state a checkpoint holds: the rule's own, or
// under mixing the mixed state.
func (r *run) ruleState() []float64 {
	if r.ipm != nil {
		return r.ipm.in.State
	}
	return r.tr.rule.State()
}

// restoreOrder checks st's sentence order (or each shard's) and restores
// it with its shuffling source.
func (r *run) restoreOrder(st *state) error {
	n := r.p.Train.NumSentences()
	if r.ipm == nil {
		if err := checkOrder(st.Order, r.order, n); err != nil {
			return fmt.Errorf("%s: the checkpoint is damaged: %w", r.name, err)
		}
		if err := r.src.UnmarshalBinary(st.RNG); err != nil {
			return fmt.Errorf("%s: checkpoint: %w", r.name, err)
		}
		r.order = st.Order
		return nil
	}
	rest := st.Order
	for s, order := range r.ipm.shards {
		if err := checkOrder(rest[:len(order)], order, n); err != nil {
			return fmt.Errorf("%s: the checkpoint is damaged: shard %d: %w", r.name, s, err)
		}
		if err := r.ipm.srcs[s].UnmarshalBinary(st.ShardRNG[s]); err != nil {
			return fmt.Errorf("%s: checkpoint: shard %d: %w", r.name, s, err)
		}
		copy(order, rest[:len(order)])
		rest = rest[len(order):]
	}
	return nil
}

// checkOrder checks that order is a permutation of want, sentences of a
// Dataset of n (Step indexes sentences with it).
func checkOrder(order, want []int, n int) error {
	allowed := make([]bool, n)
	for _, s := range want {
		allowed[s] = true
	}
	seen := make([]bool, n)
	for k, s := range order {
		switch {
		case s < 0 || s >= n:
			return fmt.Errorf("its sentence order has %d at position %d, outside [0, %d)", s, k, n)
		case !allowed[s]:
			return fmt.Errorf("its sentence order has %d at position %d, a sentence it does not train on", s, k)
		case seen[s]:
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
	t.load(st.W, st.U, st.C)
	t.updates = st.Updates
}

// load sets t's weights, averaging sums and timestamp, and the decoding
// copy of the transitions from the weights.
func (t *Trainer) load(w, u []float64, c float64) {
	copy(t.w, w)
	copy(t.u, u)
	t.c = c
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
