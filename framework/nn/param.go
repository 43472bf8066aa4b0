// param.go holds Param (one weight tensor and its gradient), Params (the
// ordered set of a model's parameters, with seeded initialisation) and
// Grads (one goroutine's gradient accumulators, reduced into the Params in
// a fixed order).

package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// InitKind says how Params.Init fills a parameter. Every kind that draws
// takes one rng.Float64() per element, in row-major order, as
// limit·(2u−1) computed in float64 and then converted to T.
type InitKind uint8

const (
	// InitZero fills with zeros and draws nothing (biases).
	InitZero InitKind = iota
	// InitGlorot is Glorot/Xavier uniform on a [rows][cols] matrix:
	// ±sqrt(6/(fanIn+fanOut)) with fanIn = cols and fanOut = rows.
	InitGlorot
	// InitGlorotGates is Glorot uniform on a [4H][cols] LSTM matrix taken as
	// four [H][cols] gate matrices: fanIn = cols, fanOut = H.
	InitGlorotGates
	// InitEmbedding is uniform ±sqrt(3/D) on a [V][D] table (unit variance
	// per vector, Lample et al. 2016).
	InitEmbedding
	// InitForgetBias fills a [4H] LSTM bias with zeros except the forget
	// gate's entries [H, 2H), which are 1. It draws nothing.
	InitForgetBias
)

// Param is one weight tensor: a [rows][cols] matrix (Shape = [rows, cols])
// whose element [r][c] is at W[r·cols+c], or a vector (Shape = [n]). Layers read W during Forward and Backward and never
// write it; the optimisers update W from G.
type Param[T Float] struct {
	// Name identifies the parameter in serialised files; unique in its Params.
	Name string
	// Shape is [rows, cols] or [n]; W and G have the product of it elements.
	Shape []int
	// W holds the weights, row-major.
	W []T
	// G holds the gradient the optimisers read: Params.Reduce overwrites it
	// with the sum of the goroutines' Grads. For a Sparse parameter only the
	// rows listed by Touched may be non-zero.
	G []T
	// Init is how Params.Init fills W.
	Init InitKind
	// Sparse marks a table most of whose rows a batch leaves alone
	// (embeddings): gradients are tracked per touched row.
	Sparse bool

	owner   *Params[T]
	index   int
	touched []int32 // rows of G that may be non-zero (Sparse only)
	mark    []bool  // mark[r]: r is in touched
}

// Rows is Shape[0] for a matrix and 1 for a vector.
func (p *Param[T]) Rows() int {
	if len(p.Shape) == 1 {
		return 1
	}
	return p.Shape[0]
}

// Cols is the length of a row: Shape[1] for a matrix, Shape[0] for a vector.
func (p *Param[T]) Cols() int { return p.Shape[len(p.Shape)-1] }

// Row returns row r of W.
func (p *Param[T]) Row(r int) []T { c := p.Cols(); return p.W[r*c : (r+1)*c] }

// Touched lists the rows of G that may be non-zero after the last Reduce,
// in the order they were first touched, for a Sparse parameter; it is nil
// for a dense one (every row counts). The slice is owned by p.
func (p *Param[T]) Touched() []int32 {
	if !p.Sparse {
		return nil
	}
	return p.touched
}

// Params is the ordered set of a model's parameters. The order is the order
// of Add, which is the order of construction; it fixes the random draws of
// Init and the layout of WriteTo. The zero value is an empty set.
type Params[T Float] struct {
	list []*Param[T]
}

// Add registers a new parameter, with W and G zero, and returns it. A
// duplicate name, an empty name, a shape other than [n] or [rows, cols]
// with positive sizes, or a sparse vector is a programmer error and panics.
func (ps *Params[T]) Add(name string, init InitKind, sparse bool, shape ...int) *Param[T] {
	if name == "" || ps.Lookup(name) != nil {
		panic(fmt.Sprintf("nn: parameter name %q empty or already used", name))
	}
	if len(shape) < 1 || len(shape) > 2 || (sparse && len(shape) != 2) {
		panic(fmt.Sprintf("nn: parameter %q: shape %v is not [n] or [rows, cols] (sparse needs rows)", name, shape))
	}
	size := 1
	for _, d := range shape {
		if d <= 0 {
			panic(fmt.Sprintf("nn: parameter %q: shape %v has a size ≤ 0", name, shape))
		}
		size *= d
	}
	p := &Param[T]{
		Name: name, Shape: append([]int(nil), shape...),
		W: make([]T, size), G: make([]T, size),
		Init: init, Sparse: sparse, owner: ps, index: len(ps.list),
	}
	if sparse {
		p.mark = make([]bool, shape[0])
	}
	ps.list = append(ps.list, p)
	return p
}

// List returns the parameters in order. The slice is owned by ps.
func (ps *Params[T]) List() []*Param[T] { return ps.list }

// Lookup returns the parameter called name, or nil.
func (ps *Params[T]) Lookup(name string) *Param[T] {
	for _, p := range ps.list {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Size is the number of scalars over all parameters.
func (ps *Params[T]) Size() int {
	n := 0
	for _, p := range ps.list {
		n += len(p.W)
	}
	return n
}

// Init fills every parameter's W by its Init kind, in the order of List,
// drawing from rng; the same seed gives the same bytes. G is left alone.
func (ps *Params[T]) Init(rng *rand.Rand) {
	for _, p := range ps.list {
		p.initialise(rng)
	}
}

func (p *Param[T]) initialise(rng *rand.Rand) {
	clear(p.W)
	var limit float64
	switch p.Init {
	case InitZero:
		return
	case InitForgetBias:
		h := len(p.W) / 4
		for i := h; i < 2*h; i++ {
			p.W[i] = 1
		}
		return
	case InitGlorot:
		limit = math.Sqrt(6 / float64(p.Cols()+p.Rows()))
	case InitGlorotGates:
		limit = math.Sqrt(6 / float64(p.Cols()+p.Rows()/4))
	case InitEmbedding:
		limit = math.Sqrt(3 / float64(p.Cols()))
	default:
		panic(fmt.Sprintf("nn: parameter %q: unknown InitKind %d", p.Name, p.Init))
	}
	for i := range p.W {
		p.W[i] = T(limit * (2*rng.Float64() - 1))
	}
}

// ZeroGrads sets every G to zero (and empties the touched lists).
func (ps *Params[T]) ZeroGrads() {
	for _, p := range ps.list {
		p.zeroG()
	}
}

func (p *Param[T]) zeroG() {
	if !p.Sparse {
		clear(p.G)
		return
	}
	c := p.Cols()
	for _, r := range p.touched {
		clear(p.G[int(r)*c : (int(r)+1)*c])
		p.mark[r] = false
	}
	p.touched = p.touched[:0]
}

// Grads is one goroutine's gradient accumulators: a buffer per parameter of
// a Params, in its order, which Backward calls add to. Each goroutine that
// back-propagates needs its own Grads; Params.Reduce sums them. Make one
// with Params.NewGrads after every parameter has been added.
type Grads[T Float] struct {
	ps      *Params[T]
	g       [][]T     // g[i] has the shape of parameter i's W: ∂loss/∂W summed over this goroutine's sentences
	touched [][]int32 // per Sparse parameter: rows added to, first-touch order
	mark    [][]bool
}

// NewGrads returns zero accumulators for the parameters added so far.
func (ps *Params[T]) NewGrads() *Grads[T] {
	g := &Grads[T]{ps: ps}
	for _, p := range ps.list {
		g.g = append(g.g, make([]T, len(p.W)))
		var mark []bool
		if p.Sparse {
			mark = make([]bool, p.Rows())
		}
		g.touched = append(g.touched, nil)
		g.mark = append(g.mark, mark)
	}
	return g
}

func (g *Grads[T]) check(p *Param[T]) {
	if p.owner != g.ps || p.index >= len(g.g) {
		panic(fmt.Sprintf("nn: parameter %q is not covered by this Grads (another Params, or added after NewGrads)", p.Name))
	}
}

// Dense returns the whole accumulator of a dense parameter, to add to.
// Calling it for a Sparse parameter is a programmer error and panics.
func (g *Grads[T]) Dense(p *Param[T]) []T {
	g.check(p)
	if p.Sparse {
		panic(fmt.Sprintf("nn: parameter %q is sparse: use Grads.Row", p.Name))
	}
	return g.g[p.index]
}

// Row returns the accumulator of row r of p, to add to, and for a Sparse
// parameter records r as touched.
func (g *Grads[T]) Row(p *Param[T], r int) []T {
	g.check(p)
	i, c := p.index, p.Cols()
	if p.Sparse && !g.mark[i][r] {
		g.mark[i][r] = true
		g.touched[i] = append(g.touched[i], int32(r))
	}
	return g.g[i][r*c : (r+1)*c]
}

// Zero clears the accumulators (for a Sparse parameter, its touched rows).
func (g *Grads[T]) Zero() {
	for i, p := range g.ps.list[:len(g.g)] {
		if !p.Sparse {
			clear(g.g[i])
			continue
		}
		c := p.Cols()
		for _, r := range g.touched[i] {
			clear(g.g[i][int(r)*c : (int(r)+1)*c])
			g.mark[i][r] = false
		}
		g.touched[i] = g.touched[i][:0]
	}
}

// Reduce sets every parameter's G to shards[0] + shards[1] + … , added
// element by element in shard order, and then zeroes the shards for the
// next batch. With the split of sentences into shards fixed, G's bytes do
// not depend on how many goroutines ran the shards or in what order they
// finished. Reduce with no shards zeroes G. It must not run while a shard
// is being written.
func (ps *Params[T]) Reduce(shards []*Grads[T]) {
	for _, s := range shards {
		if s.ps != ps || len(s.g) != len(ps.list) {
			panic("nn: Reduce: a Grads belongs to another Params or was made before the last Add")
		}
	}
	for i, p := range ps.list {
		p.zeroG()
		if !p.Sparse {
			for _, s := range shards {
				addTo(s.g[i], p.G)
			}
			continue
		}
		c := p.Cols()
		for _, s := range shards {
			for _, r := range s.touched[i] {
				if !p.mark[r] {
					p.mark[r] = true
					p.touched = append(p.touched, r)
				}
				lo := int(r) * c
				addTo(s.g[i][lo:lo+c], p.G[lo:lo+c])
			}
		}
	}
	for _, s := range shards {
		s.Zero()
	}
}
