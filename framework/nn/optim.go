// optim.go holds the optimisers, SGD (with optional momentum) and Adam,
// the Optimizer interface they implement, their shared settings
// (learning-rate schedule, gradient clipping by global norm, lazy sparse
// updates) and the global-norm computation. Their checkpoints are in
// optim_state.go.

package nn

import (
	"math"
	"sync"
)

// Optimizer is what SGD and Adam have in common: a Step from the reduced
// gradient, the current rate, and their state for checkpoints (see
// MarshalState in optim_state.go).
type Optimizer[T Float] interface {
	// Step updates every W of ps from its G and returns ‖G‖ before
	// clipping.
	Step(ps *Params[T]) float64
	// Rate returns the learning rate Step would use now.
	Rate() float64
	// SetEpoch sets the epoch the learning-rate schedule sees
	// (Settings.Epoch), for an optimiser held as an Optimizer.
	SetEpoch(epoch int)
	// MarshalState returns everything in the optimiser that later Steps
	// depend on, for the parameters ps.
	MarshalState(ps *Params[T]) ([]byte, error)
	// UnmarshalState restores a MarshalState result for ps, or changes
	// nothing and returns an error wrapping ErrFormat.
	UnmarshalState(ps *Params[T], data []byte) error
}

var (
	_ Optimizer[float32] = (*SGD[float32])(nil)
	_ Optimizer[float64] = (*SGD[float64])(nil)
	_ Optimizer[float32] = (*Adam[float32])(nil)
	_ Optimizer[float64] = (*Adam[float64])(nil)
)

// Settings holds what SGD and Adam share. The zero value is usable: every
// field documents what zero means.
type Settings struct {
	// LearningRate is the base rate η₀. Zero means the optimiser's default:
	// 0.01 for SGD, 0.001 for Adam.
	LearningRate float64
	// ClipNorm, when positive, bounds the global gradient norm ‖G‖, the
	// 2-norm over every parameter's G: when ‖G‖ > ClipNorm every gradient
	// is used multiplied by ClipNorm/‖G‖ (G itself is left as it is). Zero
	// means no clipping; Lample et al. (2016) clip at 5.
	ClipNorm float64
	// Decay gives the default schedule η = η₀/(1 + Decay·Epoch) (Ma & Hovy
	// (2016) use 0.05 with SGD). Zero means a constant rate.
	Decay float64
	// Schedule, when not nil, replaces the default schedule: the rate is
	// Schedule(η₀, Epoch).
	Schedule func(base float64, epoch int) float64
	// Epoch is the epoch the schedule sees, from 0. The optimisers never
	// change it: the caller advances it after each pass over the data.
	Epoch int
	// Lazy, for Sparse parameters (embeddings), updates only the rows
	// touched since the last Reduce, leaving the momentum or moments of
	// the other rows as they are rather than decaying them (TensorFlow's
	// LazyAdam): far cheaper with a large vocabulary, and not the same
	// trajectory. False means every row is updated as the algorithm says.
	// It changes nothing for SGD without momentum, which updates touched
	// rows only either way (the others have zero gradient).
	Lazy bool
	// Threads is how many goroutines apply a Step's updates, over
	// fixed ranges of the weights. Each weight's update reads and writes
	// that weight (and its moments) only, so the result is the same for
	// any Threads. 0 or 1: the calling goroutine, allocating nothing; 2
	// or more start goroutines each Step.
	Threads int
}

// updateChunk is how many weights one goroutine updates at a time when
// Settings.Threads ≥ 2.
const updateChunk = 1 << 14

// ranger updates W[lo:hi] of parameter i (and its optimiser state).
type ranger interface{ run(i, lo, hi int) }

// update calls r.run(i, lo, hi) for the ranges of every parameter's W
// that a Step updates (forRows, touchedOnly), in order on the calling
// goroutine, or spread over s.Threads goroutines in chunks of updateChunk
// weights.
func update[T Float](s *Settings, ps *Params[T], touchedOnly bool, r ranger) {
	if s.Threads < 2 {
		for i, p := range ps.list {
			forRows(p, touchedOnly, func(lo, hi int) { r.run(i, lo, hi) })
		}
		return
	}
	var chunks [][3]int
	for i, p := range ps.list {
		forRows(p, touchedOnly, func(lo, hi int) {
			for a := lo; a < hi; a += updateChunk {
				chunks = append(chunks, [3]int{i, a, min(a+updateChunk, hi)})
			}
		})
	}
	var wg sync.WaitGroup
	for w := range s.Threads {
		wg.Go(func() {
			for k := w; k < len(chunks); k += s.Threads {
				r.run(chunks[k][0], chunks[k][1], chunks[k][2])
			}
		})
	}
	wg.Wait()
}

// SetEpoch sets Epoch.
func (s *Settings) SetEpoch(epoch int) { s.Epoch = epoch }

// rate returns the scheduled learning rate, def standing for a zero
// LearningRate.
func (s *Settings) rate(def float64) float64 {
	base := s.LearningRate
	if base == 0 {
		base = def
	}
	if s.Schedule != nil {
		return s.Schedule(base, s.Epoch)
	}
	return base / (1 + s.Decay*float64(s.Epoch))
}

// clip returns ‖G‖ and the factor every gradient is to be multiplied by.
func (s *Settings) clip(norm float64) float64 {
	if s.ClipNorm > 0 && norm > s.ClipNorm {
		return s.ClipNorm / norm
	}
	return 1
}

// GradNorm returns ‖G‖, the 2-norm over every parameter's G, summed in
// float64 in the order of List (for a Sparse parameter over its touched
// rows, the only ones that can be non-zero).
func (ps *Params[T]) GradNorm() float64 {
	var sum float64
	for _, p := range ps.list {
		forRows(p, true, func(lo, hi int) {
			for _, v := range p.G[lo:hi] {
				sum += float64(v) * float64(v)
			}
		})
	}
	return math.Sqrt(sum)
}

// forRows calls fn(lo, hi) for the ranges of W and G to visit: the touched
// rows of a Sparse parameter, in touched order, when touchedOnly; else all
// of them at once.
func forRows[T Float](p *Param[T], touchedOnly bool, fn func(lo, hi int)) {
	if !p.Sparse || !touchedOnly {
		fn(0, len(p.W))
		return
	}
	c := p.Cols()
	for _, r := range p.touched {
		fn(int(r)*c, (int(r)+1)*c)
	}
}

// state is per-parameter optimiser memory, allocated on the first Step
// and bound to one Params.
type state[T Float] struct {
	ps  *Params[T]
	buf [][]T // buf[i] has the shape of parameter i's W, element for element
}

func (s *state[T]) get(ps *Params[T]) [][]T {
	if s.ps == nil {
		s.ps = ps
		for _, p := range ps.list {
			s.buf = append(s.buf, make([]T, len(p.W)))
		}
	}
	if s.ps != ps || len(s.buf) != len(ps.list) {
		panic("nn: an optimiser is bound to the Params of its first Step")
	}
	return s.buf
}

// SGD is stochastic gradient descent: w ← w − η·g, or with momentum μ,
// v ← μ·v + g and w ← w − η·v, where g is G after clipping and η the
// scheduled rate.
type SGD[T Float] struct {
	Settings
	// Momentum is μ in [0, 1). Zero means plain SGD.
	Momentum float64

	vel state[T]
	job sgdRange[T]
}

// Rate returns the learning rate Step would use now.
func (o *SGD[T]) Rate() float64 { return o.rate(0.01) }

// Step updates every W from its G (which it does not change) and returns
// ‖G‖ before clipping. The momentum buffers are allocated on the first
// Step that needs them, after which Step allocates nothing; the optimiser
// is bound to that Params.
func (o *SGD[T]) Step(ps *Params[T]) float64 {
	norm := ps.GradNorm()
	scale, lr, mu := o.clip(norm), o.Rate(), o.Momentum
	var vel [][]T
	if mu != 0 {
		vel = o.vel.get(ps)
	}
	o.job = sgdRange[T]{ps: ps, vel: vel, scale: scale, lr: lr, mu: mu}
	update(&o.Settings, ps, mu == 0 || o.Lazy, &o.job)
	return norm
}

// sgdRange is one SGD Step's update of a range of weights.
type sgdRange[T Float] struct {
	ps            *Params[T]
	vel           [][]T
	scale, lr, mu float64
}

func (r *sgdRange[T]) run(i, lo, hi int) {
	p := r.ps.list[i]
	for j := lo; j < hi; j++ {
		g := r.scale * float64(p.G[j])
		if r.mu != 0 {
			g += r.mu * float64(r.vel[i][j])
			r.vel[i][j] = T(g)
		}
		p.W[j] = T(float64(p.W[j]) - r.lr*g)
	}
}

// Adam is Kingma & Ba (2015): with g the clipped gradient and t the number
// of Steps so far (this one included),
//
//	m ← β₁·m + (1−β₁)·g      v ← β₂·v + (1−β₂)·g²
//	w ← w − η·(m/(1−β₁ᵗ)) / (sqrt(v/(1−β₂ᵗ)) + ε)
type Adam[T Float] struct {
	Settings
	// Beta1 is β₁. Zero means 0.9.
	Beta1 float64
	// Beta2 is β₂. Zero means 0.999.
	Beta2 float64
	// Epsilon is ε. Zero means 1e-8.
	Epsilon float64

	t    int
	m, v state[T]
	job  adamRange[T]
}

// Rate returns the learning rate Step would use now.
func (o *Adam[T]) Rate() float64 { return o.rate(0.001) }

func orDefault(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

// Step updates every W from its G (which it does not change) and returns
// ‖G‖ before clipping. The moment buffers are allocated on the first Step,
// after which Step allocates nothing; the optimiser is bound to that
// Params.
func (o *Adam[T]) Step(ps *Params[T]) float64 {
	norm := ps.GradNorm()
	scale, lr := o.clip(norm), o.Rate()
	b1, b2, eps := orDefault(o.Beta1, 0.9), orDefault(o.Beta2, 0.999), orDefault(o.Epsilon, 1e-8)
	m, v := o.m.get(ps), o.v.get(ps)
	o.t++
	c1, c2 := 1-math.Pow(b1, float64(o.t)), 1-math.Pow(b2, float64(o.t))
	o.job = adamRange[T]{ps: ps, m: m, v: v, scale: scale, lr: lr, b1: b1, b2: b2, eps: eps, c1: c1, c2: c2}
	update(&o.Settings, ps, o.Lazy, &o.job)
	return norm
}

// adamRange is one Adam Step's update of a range of weights.
type adamRange[T Float] struct {
	ps                             *Params[T]
	m, v                           [][]T
	scale, lr, b1, b2, eps, c1, c2 float64
}

func (r *adamRange[T]) run(i, lo, hi int) {
	p, mi, vi := r.ps.list[i], r.m[i], r.v[i]
	for j := lo; j < hi; j++ {
		g := r.scale * float64(p.G[j])
		mj := r.b1*float64(mi[j]) + (1-r.b1)*g
		vj := r.b2*float64(vi[j]) + (1-r.b2)*g*g
		mi[j], vi[j] = T(mj), T(vj)
		p.W[j] = T(float64(p.W[j]) - r.lr*(mj/r.c1)/(math.Sqrt(vj/r.c2)+r.eps))
	}
}
