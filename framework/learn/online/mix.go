// mix.go holds the pieces of iterative parameter mixing that a remote
// worker and the driver share: the shard assignment (Deal), one shard's
// epoch as a function of its inputs (Replica.Epoch: ShardInput →
// ShardResult), and the reduction of the shards' results in shard order
// (Mixer). ipm.go drives them in process; a distributed driver (Beam)
// runs Replica.Epoch on workers and the Mixer on the driver, and gets the
// same bytes.

package online

import (
	"fmt"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// MaxShards bounds the shards setting: far more than any cluster the
// reduction (S weight vectors per epoch) would pay on.
const MaxShards = 1 << 16

// ErrTooManyShards is learn.ErrTooManyShards: more shards than training
// sentences to fill them.
var ErrTooManyShards = learn.ErrTooManyShards

// Mix is how the shards' results are weighted when they are mixed.
type Mix int

const (
	// MixUniform weights every shard 1/S.
	MixUniform Mix = iota
	// MixMistakes weights shard s by m_s / Σ m, m_s being the sentences
	// whose update changed its weights in the epoch (McDonald et al. 2010's
	// μ_{i,n} = k_{i,n} / k_n, k counting mistakes).
	MixMistakes
)

// ParseMix reads a mix setting; "" is the default, uniform.
func ParseMix(s string) (Mix, bool) {
	switch s {
	case "", "uniform":
		return MixUniform, true
	case "mistakes":
		return MixMistakes, true
	}
	return MixUniform, false
}

// String is the setting's spelling.
func (x Mix) String() string {
	if x == MixMistakes {
		return "mistakes"
	}
	return "uniform"
}

// Deal assigns sentences (indices into the training Dataset, in corpus
// order) to shards as cards are dealt: the k-th goes to shard k mod
// shards. Every shard then spans the whole corpus (its documents,
// sections, genres) and the shard sizes differ by at most one sentence;
// nothing random is involved, and one shard is sentences itself. The
// shards are views of one new slice.
func Deal(sentences []int, shards int) [][]int {
	dealt := make([]int, 0, len(sentences))
	out := make([][]int, shards)
	for s := range out {
		lo := len(dealt)
		for k := s; k < len(sentences); k += shards {
			dealt = append(dealt, sentences[k])
		}
		out[s] = dealt[lo:len(dealt):len(dealt)]
	}
	return out
}

// ShardInput is what every shard's epoch starts from: the run's state
// after the previous epoch's mix, the same for all shards (a broadcast),
// plus the shard's own visiting order. n below is len(linear.Model.W) of
// the model being trained.
type ShardInput struct {
	// W is a []float64 of length n whose element j is weight j after the
	// previous epoch's mix (the model's starting weights before epoch 1).
	W []float64
	// U is a []float64 of length n whose element j is the averaging sum
	// of weight j in the serial learner's timestamp form (Trainer.Result):
	// C·W[j] − U[j] is the sum of weight j over every step of every shard
	// so far (the starting weights stand at U's first timestamp, 1).
	U []float64
	// C is the timestamp: 1 + the number of sentences all shards have
	// visited so far.
	C float64
	// State is the rule's per-weight state after the previous mix (AROW:
	// a []float64 of length n whose element j is weight j's variance σ_j),
	// nil for a rule without state.
	State []float64
	// Order is the shard's sentences (indices into the Problem's Train
	// Dataset) in the order to visit them this epoch; the driver shuffles
	// each shard's list with the shard's own seeded source, so a worker
	// needs no random state.
	Order []int
}

// ShardResult is what one shard's epoch returns. Its slices belong to
// the Replica that made it and are valid until its next Epoch.
type ShardResult struct {
	// W is a []float64 of length n whose element j is weight j after the
	// shard's last sentence.
	W []float64
	// U is a []float64 of length n: the input's U plus, for every update
	// the shard made to weight j, the update times its timestamp (C for
	// the shard's first sentence, C+1 for its second, …): the serial
	// learner's U had it visited the shard's sentences from the input.
	U []float64
	// C is the input's C plus the shard's sentences.
	C float64
	// State is the rule's state after the shard (length n), or nil.
	State []float64
	// Updates counts the sentences whose update changed the weights;
	// Errors and Tokens the mislabelled tokens and all tokens visited.
	Updates, Errors, Tokens int
}

// Replica trains shards: a Trainer with its own weights, rule and
// decoding buffers. One shard's epoch depends on nothing but its
// ShardInput, the model's structure and the training data, so replicas
// are interchangeable and a shard may run on any of them, or on any
// machine that builds one from the same Problem.
type Replica struct {
	tr  *Trainer
	res ShardResult
}

// NewReplica returns a replica training m's weights (its structure: the
// weights are each input's) on p's data with rule, which it starts.
func NewReplica(m *linear.Model, p *learn.Problem, rule Rule) *Replica {
	rule.Start(len(m.W))
	return &Replica{tr: newTrainer(m, p, rule)}
}

// Epoch visits in.Order from in's state, exactly as the serial learner's
// epoch does from the same state, and returns the state it ends in. tick,
// when not nil, is called every 1024 sentences with the sentences done
// since its last call; an error from it stops the epoch and is returned.
func (r *Replica) Epoch(in *ShardInput, tick func(done int) error) (*ShardResult, error) {
	t := r.tr
	if len(in.W) != len(t.w) || len(in.U) != len(t.w) || len(in.State) != len(t.rule.State()) {
		return nil, fmt.Errorf("shard input of %d weights, %d sums and %d state entries for a model of %d weights and %d",
			len(in.W), len(in.U), len(in.State), len(t.w), len(t.rule.State()))
	}
	t.load(in.W, in.U, in.C)
	copy(t.rule.State(), in.State)
	t.updates = 0
	errs, tokens := 0, 0
	for k, s := range in.Order {
		if k%1024 == 0 && k > 0 && tick != nil {
			if err := tick(1024); err != nil {
				return nil, err
			}
		}
		e, n := t.Step(s)
		errs += e
		tokens += n
	}
	r.res = ShardResult{W: t.w, U: t.u, C: t.c, State: t.rule.State(), Updates: t.updates, Errors: errs, Tokens: tokens}
	return &r.res, nil
}

// Mixer reduces the shards' results of one epoch into the next epoch's
// ShardInput, in shard order, so the bytes depend on the number of shards
// and never on which worker ran which shard or when it finished.
//
// With ν_s = 1 (uniform) or ν_s = m_s, shard s's updates (mistakes), and
// N = Σ ν_s:
//
//	W'[j] = (Σ_s ν_s·W_s[j]) / N                  summed in shard order
//	State'[j] = (Σ_s ν_s·State_s[j]) / N          (AROW: the variances mix as the weights)
//	C' = C + Σ_s (C_s − C)                        every shard's sentences count as steps
//	U'[j] = C'·W'[j] − (C·W[j] − U[j] + Σ_s (C_s·W_s[j] − U_s[j] − (C·W[j] − U[j])))
//
// U' keeps the serial invariant: C'·W' − U' is the sum of the weights over
// every step so far, now including every step of every shard, so that
// Trainer.Result's average is the mean of all the weight vectors any
// shard held after any sentence — the serial learner's average, over the
// S parallel walks instead of one. When N = 0 (no shard changed a weight:
// every W_s is W) the weights and state stay as they were; a shard
// without mistakes otherwise gets ν = 0 under MixMistakes, having nothing
// to add. With one shard every rule gives μ = 1 and its result is taken
// as it is, which is what makes one shard the serial learner bit for bit.
type Mixer struct {
	Mix Mix
	// w and state are the running ν-weighted sums, steps the sum of the
	// shards' step sums (C_s·W_s − U_s − (C·W − U)); shards the number of
	// shards folded in this epoch, out of want.
	w, steps, state []float64
	shards          int
	want            int
	nu              float64
	c               float64
	// Updates, Errors and Tokens add up the folded shards' counts.
	Updates, Errors, Tokens int
}

// NewMixer returns a mixer of shards results of n weights and stateLen
// state entries (0 for none).
func NewMixer(mix Mix, shards, n, stateLen int) *Mixer {
	return &Mixer{Mix: mix, want: shards, w: make([]float64, n), steps: make([]float64, n), state: make([]float64, stateLen)}
}

// Reset starts an epoch.
func (x *Mixer) Reset() {
	clear(x.w)
	clear(x.steps)
	clear(x.state)
	x.shards, x.nu, x.c = 0, 0, 0
	x.Updates, x.Errors, x.Tokens = 0, 0, 0
}

// Add folds shard x.shards's result r, started from in, into the sums;
// call it for shards 0, 1, … in order.
func (x *Mixer) Add(in *ShardInput, r *ShardResult) {
	x.shards++
	x.Updates += r.Updates
	x.Errors += r.Errors
	x.Tokens += r.Tokens
	x.c += r.C - in.C
	if x.want == 1 {
		copy(x.w, r.W)
		copy(x.steps, r.U)
		copy(x.state, r.State)
		return
	}
	nu := 1.0
	if x.Mix == MixMistakes {
		nu = float64(r.Updates)
	}
	x.nu += nu
	for j, w := range r.W {
		before := in.C*in.W[j] - in.U[j]
		x.steps[j] += r.C*w - r.U[j] - before
		if nu != 0 {
			x.w[j] += nu * w
		}
	}
	if nu != 0 {
		for j, v := range r.State {
			x.state[j] += nu * v
		}
	}
}

// Finish writes the mixed state into in (W, U, C and State, in place),
// the next epoch's input. It is an error unless every shard was added.
func (x *Mixer) Finish(in *ShardInput) error {
	if x.shards != x.want {
		return fmt.Errorf("mixing %d shard results of %d", x.shards, x.want)
	}
	if x.want == 1 {
		copy(in.W, x.w)
		copy(in.U, x.steps) // one shard: its U as it is
		copy(in.State, x.state)
		in.C += x.c
		return nil
	}
	c := in.C + x.c
	for j := range in.W {
		sum := in.C*in.W[j] - in.U[j] + x.steps[j]
		if x.nu != 0 {
			in.W[j] = x.w[j] / x.nu
		}
		in.U[j] = c*in.W[j] - sum
	}
	if x.nu != 0 {
		for j := range in.State {
			in.State[j] = x.state[j] / x.nu
		}
	}
	in.C = c
	return nil
}
