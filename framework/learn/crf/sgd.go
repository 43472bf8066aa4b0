package crf

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/plural"
)

// sgd is stochastic gradient descent on the L2-regularized objective, one
// sentence at a time, as CRFsuite's l2sgd: per-example objective
// loss_i + (c2/N)‖w‖², step η_t = η0 / (1 + λ·η0·t) with λ = 2·c2/N, and
// the weight decay folded into a global scale so an update touches only the
// sentence's features. Sequential by nature, hence thread-count
// independent.
type sgd struct {
	obj    *objective
	s      settings
	es     *earlyStop
	lambda float64
	v      []float64 // w = scale·v
	scale  float64
	t      float64   // sentences seen: the step schedule's clock
	w      []float64 // scratch: scaled weights of the current sentence's lattice
	// g is one zeroed gradient buffer, cleared sparsely after each
	// sentence.
	g       []float64
	wk      *worker
	order   []int
	src     *rand.PCG
	rng     *rand.Rand
	history []float64 // the objective after each epoch, for the delta test
	epochs  int
	status  string
}

func trainSGD(ctx context.Context, obj *objective, s settings, p *learn.Problem, es *earlyStop, info map[string]any) error {
	n := len(obj.m.W)
	g := &sgd{
		obj: obj, s: s, es: es, lambda: 2 * s.c2 / float64(len(obj.sents)),
		v: make([]float64, n), scale: 1, w: make([]float64, n), g: <-obj.pool, wk: obj.workers[0],
		order:  append([]int(nil), obj.sents...),
		src:    rand.NewPCG(p.Seed, 0x5851f42d4c957f2d),
		status: "maximum iterations",
	}
	defer func() { obj.pool <- g.g }()
	for f := range g.g {
		g.g[f] = 0
	}
	copy(g.v, obj.m.W) // zero, or the weights of the model continued (init_model)
	g.rng = rand.New(g.src)
	loop := &learn.Loop{
		Name: s.name, Unit: "sgd epoch", Steps: s.maxIterations, Hint: "try a smaller learning_rate",
		Step: g.epoch, Evaluate: g.evaluate, Save: g.save, Restore: g.restore,
	}
	if err := loop.Run(ctx, p); err != nil {
		return err
	}
	info["iterations"], info["status"], info["loss"] = g.epochs, g.status, g.history[len(g.history)-1]
	return nil
}

// epoch is one shuffled pass; it returns the regularized objective and
// leaves the weights in the model.
func (g *sgd) epoch(k int, tick func(done int) error) (float64, error) {
	g.epochs = k
	order := g.order
	g.rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	loss := 0.0
	for i, sent := range order {
		if i%1024 == 0 {
			if err := tick(i); err != nil {
				return 0, err
			}
		}
		l, err := g.sentence(sent)
		if err != nil {
			return 0, err
		}
		loss += l
	}
	norm := 0.0
	for _, x := range g.v {
		norm += x * x
	}
	objective := loss + g.s.c2*g.scale*g.scale*norm
	// A non-finite objective stops the loop, and the model is then
	// dropped: writing the weights regardless costs nothing.
	m := g.obj.m
	for f := range m.W {
		m.W[f] = g.scale * g.v[f]
	}
	return objective, nil
}

// sentence makes one step on sentence sent and returns its loss before
// the step.
func (g *sgd) sentence(sent int) (float64, error) {
	obj, s := g.obj, g.s
	m, d, l := obj.m, obj.d, obj.m.NumLabels
	f0 := m.NumFeatures()
	v, w, grad := g.v, g.w, g.g
	eta := s.eta / (1 + g.lambda*s.eta*g.t)
	g.t++
	// Scores under w = scale·v for this sentence only: the state features
	// it touches and the transitions.
	lo, hi := d.Sentence(sent)
	for tok := lo; tok < hi; tok++ {
		for kk := d.TokenOff[tok]; kk < d.TokenOff[tok+1]; kk++ {
			a := d.Attrs[kk]
			for f := m.FeatOff[a]; f < m.FeatOff[a+1]; f++ {
				w[f] = g.scale * v[f]
			}
		}
	}
	pb := m.PairBase()
	for f := f0; f < pb; f++ {
		w[f] = g.scale * v[f]
	}
	g.forPairs(lo, hi, func(f int) { w[f] = g.scale * v[f] })
	// Gradient of this sentence's loss, accumulated sparsely into the
	// zeroed buffer, then applied and cleared over the same features.
	loss := g.wk.sentence(obj, w, sent, grad)
	if eta*g.lambda >= 1 {
		return 0, fmt.Errorf("%s: learning_rate %v is too large for c2 %v on %s (the weight decay would flip the weights' sign)", s.name, s.eta, s.c2, plural.Count(len(obj.sents), "sentence"))
	}
	g.scale *= 1 - eta*g.lambda
	step := eta / g.scale
	for tok := lo; tok < hi; tok++ {
		y := d.Labels[tok]
		for kk := d.TokenOff[tok]; kk < d.TokenOff[tok+1]; kk++ {
			if f := m.Feature(d.Attrs[kk], y); f >= 0 {
				grad[f] -= d.Value(kk)
			}
		}
	}
	if obj.transitions {
		grad[f0+l*l+int(d.Labels[lo])]--
		if !obj.local {
			grad[f0+l*l+l+int(d.Labels[hi-1])]-- // a local model has no stop
		}
		for tok := lo + 1; tok < hi; tok++ {
			grad[f0+int(d.Labels[tok-1])*l+int(d.Labels[tok])]--
		}
	}
	m.AddTrigrams(grad, d.Labels[lo:hi], -1)
	if m.PairOff != nil {
		for tok := lo + 1; tok < hi; tok++ {
			for kk := d.TokenOff[tok]; kk < d.TokenOff[tok+1]; kk++ {
				if f := m.PairFeature(d.Attrs[kk], d.Labels[tok-1], d.Labels[tok]); f >= 0 {
					grad[f] -= d.Value(kk)
				}
			}
		}
	}
	for tok := lo; tok < hi; tok++ {
		for kk := d.TokenOff[tok]; kk < d.TokenOff[tok+1]; kk++ {
			a := d.Attrs[kk]
			for f := m.FeatOff[a]; f < m.FeatOff[a+1]; f++ {
				v[f] -= step * grad[f]
				grad[f] = 0
			}
		}
	}
	for f := f0; f < pb; f++ {
		v[f] -= step * grad[f]
		grad[f] = 0
	}
	g.forPairs(lo, hi, func(f int) {
		v[f] -= step * grad[f]
		grad[f] = 0
	})
	if g.scale < 1e-20 {
		for f := range v {
			v[f] *= g.scale
		}
		g.scale = 1
	}
	return loss, nil
}

// forPairs calls fn with the index in W of every pair feature of the
// attributes of tokens lo+1 … hi−1 (the ones a sentence's step reads and
// changes; an attribute met twice gives its features twice, which fn
// must tolerate: its writes are idempotent).
func (g *sgd) forPairs(lo, hi int, fn func(f int)) {
	m, d := g.obj.m, g.obj.d
	if m.PairOff == nil {
		return
	}
	base := int32(m.PairBase())
	for tok := lo + 1; tok < hi; tok++ {
		for kk := d.TokenOff[tok]; kk < d.TokenOff[tok+1]; kk++ {
			a := d.Attrs[kk]
			for k := m.PairOff[a]; k < m.PairOff[a+1]; k++ {
				fn(int(base + k))
			}
		}
	}
}

// evaluate scores the epoch on dev and applies the stopping tests.
func (g *sgd) evaluate(epoch int, pt *learn.Point) bool {
	stop := g.es.observe(epoch, g.obj.m.W, pt)
	g.history = append(g.history, pt.Loss)
	if stop {
		g.status = "stopped by dev score"
		return true
	}
	if h := g.history; len(h) > g.s.period {
		past, objective := h[len(h)-1-g.s.period], h[len(h)-1]
		if (past-objective)/objective < g.s.delta {
			g.status = "no further improvement"
			return true
		}
	}
	return false
}

func (g *sgd) save(epoch int, curve []learn.Point) ([]byte, error) {
	rngState, err := g.src.MarshalBinary()
	if err != nil {
		return nil, err
	}
	es := g.es
	return encodeState(&state{Algorithm: "sgd", Epoch: epoch, V: g.v, Scale: g.scale, T: g.t, RNG: rngState, Order: g.order,
		History: g.history, Best: es.best.Score, BestAt: es.best.At, BestW: es.best.W, Curve: curve})
}

func (g *sgd) restore(b []byte) (int, []learn.Point, error) {
	st, err := decodeState(b, "sgd", len(g.v))
	if err != nil {
		return 0, nil, err
	}
	if len(st.Order) != len(g.order) {
		return 0, nil, fmt.Errorf("crf: the checkpoint does not fit this problem (%d training sentences, it has %d)", len(g.order), len(st.Order))
	}
	if err := g.src.UnmarshalBinary(st.RNG); err != nil {
		return 0, nil, fmt.Errorf("crf: checkpoint: %w", err)
	}
	copy(g.v, st.V)
	g.order, g.scale, g.t, g.history = st.Order, st.Scale, st.T, st.History
	g.es.restoreState(st)
	return st.Epoch, st.Curve, nil
}
