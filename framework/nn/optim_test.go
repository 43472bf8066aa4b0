// optim_test.go checks SGD and Adam step by step against their formulas,
// gradient clipping by global norm, the learning-rate schedule and its
// hook, and lazy updates of sparse parameters.

package nn

import (
	"math"
	"testing"
)

// quad returns a Params with one vector w = w0 and sets G = w (the
// gradient of ½‖w‖²).
func quad(w0 ...float64) (*Params[float64], *Param[float64]) {
	ps := &Params[float64]{}
	p := ps.Add("w", InitZero, false, len(w0))
	copy(p.W, w0)
	copy(p.G, p.W)
	return ps, p
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func TestSGD(t *testing.T) {
	ps, p := quad(3, -2)
	o := &SGD[float64]{Settings: Settings{LearningRate: 0.1}}
	if norm := o.Step(ps); !near(norm, math.Sqrt(13)) {
		t.Errorf("Step returned norm %v, want sqrt(13)", norm)
	}
	if !near(p.W[0], 2.7) || !near(p.W[1], -1.8) {
		t.Errorf("after one step W = %v, want [2.7 -1.8]", p.W)
	}
	// Momentum: v1 = g1, w1 = w0 − η·g1; v2 = μ·v1 + g2, w2 = w1 − η·v2.
	ps, p = quad(1)
	o = &SGD[float64]{Settings: Settings{LearningRate: 0.1}, Momentum: 0.9}
	o.Step(ps)
	copy(p.G, p.W)
	o.Step(ps)
	if want := 0.9 - 0.1*(0.9*1+0.9); !near(p.W[0], want) {
		t.Errorf("momentum: W = %v, want %v", p.W[0], want)
	}
	// Converges on the quadratic.
	ps, p = quad(5, -4, 3)
	o = &SGD[float64]{Settings: Settings{LearningRate: 0.3}, Momentum: 0.5}
	for range 100 {
		copy(p.G, p.W)
		o.Step(ps)
	}
	for _, v := range p.W {
		if math.Abs(v) > 1e-6 {
			t.Errorf("SGD did not converge: W = %v", p.W)
		}
	}
}

func TestClipNorm(t *testing.T) {
	ps, p := quad(6, 8) // ‖G‖ = 10
	o := &SGD[float64]{Settings: Settings{LearningRate: 1, ClipNorm: 1}}
	if norm := o.Step(ps); norm != 10 {
		t.Errorf("norm %v, want 10 (before clipping)", norm)
	}
	if !near(p.W[0], 6-0.6) || !near(p.W[1], 8-0.8) || p.G[0] != 6 {
		t.Errorf("clipped step: W = %v, G = %v; want W = [5.4 7.2], G unchanged", p.W, p.G)
	}
	ps, p = quad(0.3, 0.4) // below the bound: no clipping
	o.Step(ps)
	if !near(p.W[0], 0) || !near(p.W[1], 0) {
		t.Errorf("unclipped step: W = %v, want 0", p.W)
	}
}

func TestSchedule(t *testing.T) {
	o := &SGD[float32]{Settings: Settings{LearningRate: 0.2, Decay: 0.5, Epoch: 2}}
	if r := o.Rate(); !near(r, 0.1) {
		t.Errorf("η/(1+Decay·epoch) = %v, want 0.1", r)
	}
	if r := (&SGD[float32]{}).Rate(); r != 0.01 {
		t.Errorf("SGD default rate %v", r)
	}
	if r := (&Adam[float32]{}).Rate(); r != 0.001 {
		t.Errorf("Adam default rate %v", r)
	}
	o.Schedule = func(base float64, epoch int) float64 { return base * float64(10+epoch) }
	if r := o.Rate(); !near(r, 2.4) {
		t.Errorf("Schedule hook gave %v, want 2.4", r)
	}
}

func TestAdam(t *testing.T) {
	// The first step is η·g/(|g|+ε) ≈ η·sign(g) whatever |g|.
	ps, p := quad(1000, -0.001)
	o := &Adam[float64]{Settings: Settings{LearningRate: 0.01}}
	o.Step(ps)
	if !near(p.W[0], 1000-0.01) || math.Abs(p.W[1]-(-0.001+0.01)) > 1e-7 {
		t.Errorf("first Adam step: W = %v", p.W)
	}
	// Second step by the formula.
	ps, p = quad(2)
	o = &Adam[float64]{Settings: Settings{LearningRate: 0.1}, Beta1: 0.5, Beta2: 0.75, Epsilon: 1e-3}
	o.Step(ps)
	w1 := p.W[0]
	copy(p.G, []float64{-1})
	o.Step(ps)
	m := 0.5*(0.5*2) + 0.5*(-1)
	v := 0.75*(0.25*4) + 0.25*1
	want := w1 - 0.1*(m/(1-0.25))/(math.Sqrt(v/(1-0.5625))+1e-3)
	if !near(p.W[0], want) {
		t.Errorf("second Adam step: W = %v, want %v", p.W[0], want)
	}
}

// TestLazy: with Lazy, a sparse row not touched in a step keeps its value;
// without, its moments keep moving it.
func TestLazy(t *testing.T) {
	for _, lazy := range []bool{false, true} {
		ps := &Params[float64]{}
		e := NewEmbedding(ps, "e", 3, 2)
		o := &Adam[float64]{Settings: Settings{LearningRate: 0.1, Lazy: lazy}}
		g := ps.NewGrads()
		g.Row(e.Table, 0)[0] = 1
		ps.Reduce([]*Grads[float64]{g})
		o.Step(ps)
		row0 := e.Table.W[0]
		g.Row(e.Table, 1)[0] = 1
		ps.Reduce([]*Grads[float64]{g})
		o.Step(ps)
		if moved := e.Table.W[0] != row0; moved == lazy {
			t.Errorf("Lazy=%v: untouched row moved=%v", lazy, moved)
		}
		if e.Table.W[4] != 0 || e.Table.W[2] == 0 {
			t.Errorf("Lazy=%v: rows %v", lazy, e.Table.W)
		}
	}
}

// TestStepNoAllocs: after the first Step (which allocates the optimiser's
// buffers) SGD with momentum and Adam allocate nothing.
func TestStepNoAllocs(t *testing.T) {
	e := newEncoder[float32](t, tinyConfig(), 5)
	g := e.Params.NewGrads()
	g.Row(e.Word.Table, 2)[0] = 1
	g.Dense(e.Out.B)[1] = 1
	e.Params.Reduce([]*Grads[float32]{g})
	for _, o := range []interface {
		Step(*Params[float32]) float64
	}{
		&SGD[float32]{Momentum: 0.9, Settings: Settings{ClipNorm: 1}},
		&Adam[float32]{Settings: Settings{Lazy: true}},
		&Adam[float32]{},
	} {
		o.Step(e.Params)
		if a := testing.AllocsPerRun(5, func() { o.Step(e.Params) }); a != 0 {
			t.Errorf("%T.Step allocates %v times after the first", o, a)
		}
	}
}

// TestStepThreads: a Step spread over 3 goroutines (Settings.Threads)
// updates every weight as one goroutine does, to the bit, for parameters
// larger than a chunk, a sparse one with touched rows, lazy or not.
func TestStepThreads(t *testing.T) {
	build := func() *Params[float32] {
		ps := &Params[float32]{}
		ps.Add("big", InitGlorot, false, 3*updateChunk/100+7, 100)
		ps.Add("emb", InitEmbedding, true, 50, 8)
		ps.Add("b", InitZero, false, 9)
		ps.Init(newRNG(4))
		return ps
	}
	for _, lazy := range []bool{false, true} {
		opts := func(threads int) []Optimizer[float32] {
			st := Settings{LearningRate: 0.01, ClipNorm: 1, Lazy: lazy, Threads: threads}
			return []Optimizer[float32]{&Adam[float32]{Settings: st}, &SGD[float32]{Settings: st, Momentum: 0.9}}
		}
		one, three := opts(1), opts(3)
		for k := range one {
			a, b := build(), build()
			for step := range 3 {
				for _, ps := range []*Params[float32]{a, b} {
					g := ps.NewGrads()
					rng := newRNG(uint64(10 + step))
					for _, p := range ps.List() {
						if p.Sparse {
							for _, r := range []int{3, 17, 3, 40} {
								row := g.Row(p, r)
								for j := range row {
									row[j] += float32(rng.NormFloat64())
								}
							}
							continue
						}
						for j, d := 0, g.Dense(p); j < len(d); j++ {
							d[j] = float32(rng.NormFloat64())
						}
					}
					ps.Reduce([]*Grads[float32]{g})
				}
				one[k].Step(a)
				three[k].Step(b)
			}
			for i, p := range a.List() {
				q := b.List()[i]
				for j := range p.W {
					if math.Float32bits(p.W[j]) != math.Float32bits(q.W[j]) {
						t.Fatalf("%T lazy %v: %s[%d] = %v with 1 thread, %v with 3", one[k], lazy, p.Name, j, p.W[j], q.W[j])
					}
				}
			}
		}
	}
}
