// Package crf is the linear-chain conditional random field learner: it
// minimizes the negative conditional log-likelihood of the gold label
// sequences plus an elastic-net penalty, c1·‖w‖₁ + c2·‖w‖², with the
// gradient from the shared forward-backward core.
//
// Optimizers: L-BFGS (the default; OWL-QN when c1 > 0) from
// framework/optim, or SGD with a decaying step (CRFsuite's l2sgd). The
// regularization constants mean what they mean in CRFsuite, so settings
// carry over.
package crf

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/perceptron"
	"github.com/trellis-nlp/trellis/framework/linear"
	"github.com/trellis-nlp/trellis/framework/optim"
)

// Config is the crf learner block. Zero values take CRFsuite's defaults.
type Config struct {
	// Algorithm is "lbfgs" (default) or "sgd".
	Algorithm string `hcl:"algorithm,optional" json:"algorithm,omitempty"`
	// C1 is the L1 coefficient (OWL-QN when > 0; default 0).
	C1 *float64 `hcl:"c1,optional" json:"c1,omitempty"`
	// C2 is the L2 coefficient (default 1).
	C2 *float64 `hcl:"c2,optional" json:"c2,omitempty"`
	// MaxIterations bounds L-BFGS iterations or SGD epochs (default:
	// unlimited for L-BFGS, 50 epochs for SGD).
	MaxIterations int `hcl:"max_iterations,optional" json:"max_iterations,omitempty"`
	// Stopping: gradient norm (epsilon, L-BFGS) and relative improvement
	// of the objective over period iterations below delta.
	Epsilon *float64 `hcl:"epsilon,optional" json:"epsilon,omitempty"`
	Period  int      `hcl:"period,optional" json:"period,omitempty"`
	Delta   *float64 `hcl:"delta,optional" json:"delta,omitempty"`
	// Memory is the number of L-BFGS correction pairs (default 6).
	Memory int `hcl:"memory,optional" json:"memory,omitempty"`
	// Patience, when > 0 and the spec has a dev corpus, stops after that
	// many iterations without a better dev score and keeps the best.
	Patience int `hcl:"patience,optional" json:"patience,omitempty"`
	// DevEvery scores the dev corpus every that many iterations for the
	// learning curve (default 1; -1 never, unless patience needs it).
	DevEvery int `hcl:"dev_every,optional" json:"dev_every,omitempty"`
	// LearningRate is SGD's initial step η0 (default 0.1); the step
	// decays as η0 / (1 + λ·η0·t).
	LearningRate *float64 `hcl:"learning_rate,optional" json:"learning_rate,omitempty"`
	// Features is "observed" (default, as CRFsuite) or "all".
	Features string `hcl:"features,optional" json:"features,omitempty"`
}

// Learner is the CRF learner.
type Learner struct{ cfg Config }

var _ learn.Learner = (*Learner)(nil)

// New returns a CRF learner with default settings.
func New() learn.Learner { return &Learner{} }

// Config implements learn.Learner.
func (l *Learner) Config() any { return &l.cfg }

func value(p *float64, def float64) float64 {
	if p == nil {
		return def
	}
	return *p
}

type settings struct {
	algorithm           string
	c1, c2              float64
	maxIterations       int
	epsilon, delta, eta float64
	period, memory      int
}

func (l *Learner) settings() settings {
	s := settings{
		algorithm: l.cfg.Algorithm, c1: value(l.cfg.C1, 0), c2: value(l.cfg.C2, 1),
		maxIterations: l.cfg.MaxIterations, epsilon: value(l.cfg.Epsilon, 1e-5),
		delta: value(l.cfg.Delta, 1e-5), period: l.cfg.Period, memory: l.cfg.Memory,
		eta: value(l.cfg.LearningRate, 0.1),
	}
	if s.algorithm == "" {
		s.algorithm = "lbfgs"
	}
	if s.period == 0 {
		s.period = 10
	}
	if s.memory == 0 {
		s.memory = 6
	}
	if s.algorithm == "sgd" {
		if s.maxIterations == 0 {
			s.maxIterations = 50
		}
		if l.cfg.Delta == nil {
			s.delta = 1e-6
		}
	}
	return s
}

// Validate implements learn.Learner.
func (l *Learner) Validate() hcl.Diagnostics {
	var diags hcl.Diagnostics
	bad := func(summary, format string, args ...any) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...)})
	}
	s := l.settings()
	switch s.algorithm {
	case "lbfgs", "sgd":
	default:
		bad("Invalid CRF algorithm", `algorithm must be "lbfgs" or "sgd", got %q`, s.algorithm)
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"c1", s.c1}, {"c2", s.c2}, {"epsilon", s.epsilon}} {
		if !(c.v >= 0) || math.IsInf(c.v, 0) {
			bad("Invalid CRF setting", "%s must be a finite number >= 0, got %v", c.name, c.v)
		}
	}
	if s.algorithm == "sgd" && s.c1 > 0 {
		bad("Invalid CRF setting", "c1 (L1) needs algorithm = \"lbfgs\" (OWL-QN); SGD supports L2 only")
	}
	if s.algorithm == "sgd" && s.c2 == 0 {
		bad("Invalid CRF setting", "SGD's step schedule needs c2 > 0")
	}
	if !(s.eta > 0) || math.IsInf(s.eta, 0) {
		bad("Invalid CRF setting", "learning_rate must be > 0, got %v", s.eta)
	}
	if math.IsNaN(s.delta) {
		bad("Invalid CRF setting", "delta must be a number")
	}
	if l.cfg.MaxIterations < 0 || l.cfg.Period < 0 || l.cfg.Memory < 0 || l.cfg.Patience < 0 {
		bad("Invalid CRF setting", "max_iterations, period, memory and patience must be >= 0")
	}
	if l.cfg.DevEvery < -1 {
		bad("Invalid CRF setting", "dev_every must be >= 1, or -1 for never")
	}
	diags = append(diags, perceptron.ValidateFeatures(l.cfg.Features)...)
	return diags
}

// Train implements learn.Learner.
func (l *Learner) Train(ctx context.Context, p *learn.Problem) (*learn.Result, error) {
	s := l.settings()
	m := perceptron.NewModel(l.cfg.Features, p)
	var sents []int
	for k := 0; k < p.Train.NumSentences(); k++ {
		if perceptron.Complete(p.Train, k) {
			sents = append(sents, k)
		}
	}
	if skipped := p.Train.NumSentences() - len(sents); skipped > 0 {
		p.Log.Warn().Int("sentences", skipped).Msg("skipping training sentences without a complete gold labelling")
	}
	if len(sents) == 0 {
		return nil, fmt.Errorf("crf: no training sentence has a complete labelling")
	}
	obj := newObjective(m, p.Train, sents, p.Transitions, s.c2, p.Threads)
	p.Log.Info().Int("features", m.NumFeatures()).Int("labels", m.NumLabels).Int("threads", obj.threads).
		Str("algorithm", s.algorithm).Float64("c1", s.c1).Float64("c2", s.c2).Msg("crf training")
	info := map[string]any{"features": m.NumFeatures(), "algorithm": s.algorithm, "c1": s.c1, "c2": s.c2}
	es := newEarlyStop(l.cfg.Patience, l.cfg.DevEvery, p, m)
	var err error
	if s.algorithm == "sgd" {
		err = trainSGD(ctx, obj, s, p, es, info)
	} else {
		err = trainLBFGS(ctx, obj, s, p, es, info)
	}
	if err != nil {
		return nil, err
	}
	if es.active() {
		es.restore(m.W)
		info["best_iteration"] = es.bestAt
		info["best_dev_score"] = es.best
	}
	return &learn.Result{Model: m, Info: info}, nil
}

func trainLBFGS(ctx context.Context, obj *objective, s settings, p *learn.Problem, es *earlyStop, info map[string]any) error {
	started := time.Now()
	m := obj.m
	// L-BFGS stops when it converges: no total, so no time left to show.
	bar := p.Progress.Start("crf l-bfgs", int64(s.maxIterations), "iterations")
	defer bar.Done()
	var curve []learn.Point
	opt := optim.Settings{
		Memory: s.memory, L1: s.c1, Epsilon: s.epsilon, Past: s.period, Delta: s.delta,
		MaxIterations: s.maxIterations,
	}
	if cp := p.Checkpoints; cp != nil {
		if cp.Save == nil {
			cp.Save = func([]byte) error { return nil }
		}
		if cp.Resume != nil {
			st, err := decodeState(cp.Resume, "lbfgs", len(m.W))
			if err != nil {
				return err
			}
			opt.Resume = st.Opt
			es.restoreState(st)
			curve = st.Curve
			for _, pt := range curve {
				if p.Observe != nil {
					p.Observe(pt)
				}
			}
			p.Log.Info().Int("iteration", st.Opt.K).Msg("crf resumed from a checkpoint")
		}
		opt.CheckpointEvery = cp.Every
		opt.Checkpoint = func(st *optim.State) error {
			b, err := encodeState(&state{Algorithm: "lbfgs", Opt: st, Best: es.best, BestAt: es.bestAt, BestW: es.bestW, Curve: curve})
			if err == nil {
				err = cp.Save(b)
			}
			if err != nil {
				return fmt.Errorf("crf: saving the checkpoint after iteration %d: %w", st.K, err)
			}
			return nil
		}
	}
	nonFinite := 0 // the iteration that produced a non-finite objective
	opt.Callback = func(it optim.Iteration) bool {
		if !finite(it.F) || !finite(it.GNorm) {
			nonFinite = it.K
			return true
		}
		pt := learn.Point{Step: it.K, Loss: it.F, Elapsed: time.Since(started)}
		stop := es.observe(it.K, it.X, &pt)
		ev := p.Log.Info().Int("iteration", it.K).Float64("loss", it.F).Float64("gnorm", it.GNorm).
			Int("evaluations", it.Evaluations).Dur("elapsed", time.Since(started))
		if s.maxIterations > 0 {
			ev = ev.Dur("eta_at_most", time.Since(started)/time.Duration(it.K)*time.Duration(s.maxIterations-it.K))
		}
		ev.Msg("crf iteration")
		bar.Set(int64(it.K), fmt.Sprintf("loss %.6g", it.F))
		if p.Observe != nil {
			p.Observe(pt)
		}
		curve = append(curve, pt)
		return stop
	}
	res, err := optim.Minimize(ctx, m.W, obj.Evaluate, opt)
	if err != nil {
		return err
	}
	if nonFinite > 0 {
		return fmt.Errorf("crf: iteration %d produced a non-finite objective or gradient; stopped (are some attribute values huge?)", nonFinite)
	}
	active := 0
	for _, w := range m.W {
		if w != 0 {
			active++
		}
	}
	p.Log.Info().Int("iterations", res.Iterations).Int("evaluations", res.Evaluations).Float64("loss", res.F).
		Str("status", res.Status.String()).Int("active_features", active).Msg("crf trained")
	info["iterations"], info["evaluations"], info["loss"], info["status"] = res.Iterations, res.Evaluations, res.F, res.Status.String()
	info["active_features"] = active
	return nil
}

// earlyStop tracks the dev score for the patience setting.
type earlyStop struct {
	patience int
	every    int
	p        *learn.Problem
	m        *linear.Model
	trial    *linear.Model
	best     float64
	bestAt   int
	bestW    []float64
}

func newEarlyStop(patience, every int, p *learn.Problem, m *linear.Model) *earlyStop {
	if every == 0 || patience > 0 {
		every = 1
	}
	es := &earlyStop{patience: patience, every: every, p: p, m: m, best: math.Inf(-1)}
	if p.DevScore != nil {
		es.trial = &linear.Model{NumLabels: m.NumLabels, FeatOff: m.FeatOff, FeatLabel: m.FeatLabel, W: make([]float64, len(m.W)), Transitions: m.Transitions}
	}
	return es
}

func (es *earlyStop) active() bool { return es.patience > 0 && es.p.DevScore != nil }

// observe scores x on dev (for the learning curve, whenever there is a dev
// corpus) and reports whether to stop.
func (es *earlyStop) observe(k int, x []float64, pt *learn.Point) bool {
	if es.p.DevScore == nil || es.every < 0 || k%es.every != 0 {
		return false
	}
	copy(es.trial.W, x)
	pt.DevScore = es.p.DevScore(es.trial)
	if pt.DevScore > es.best {
		es.best, es.bestAt = pt.DevScore, k
		if es.active() {
			es.bestW = append(es.bestW[:0], x...)
		}
	}
	es.p.Log.Debug().Int("iteration", k).Float64("dev", pt.DevScore).Float64("best", es.best).Msg("crf dev score")
	return es.active() && k-es.bestAt >= es.patience
}

func (es *earlyStop) restore(w []float64) {
	if es.bestW != nil {
		copy(w, es.bestW)
	}
}

// trainSGD is stochastic gradient descent on the L2-regularized objective,
// one sentence at a time, as CRFsuite's l2sgd: per-example objective
// loss_i + (c2/N)‖w‖², step η_t = η0 / (1 + λ·η0·t) with λ = 2·c2/N, and
// the weight decay folded into a global scale so an update touches only the
// sentence's features. Sequential by nature, hence thread-count
// independent.
func trainSGD(ctx context.Context, obj *objective, s settings, p *learn.Problem, es *earlyStop, info map[string]any) error {
	m, d, l := obj.m, obj.d, obj.m.NumLabels
	n := float64(len(obj.sents))
	lambda := 2 * s.c2 / n
	v := make([]float64, len(m.W)) // w = scale·v
	scale := 1.0
	w := make([]float64, len(m.W)) // scratch: scaled weights of the current sentence's lattice
	wk := obj.workers[0]
	// One zeroed gradient buffer, cleared sparsely after each sentence.
	sgdGrad := <-obj.pool
	for f := range sgdGrad {
		sgdGrad[f] = 0
	}
	defer func() { obj.pool <- sgdGrad }()
	f0 := m.NumFeatures()
	order := append([]int(nil), obj.sents...)
	src := rand.NewPCG(p.Seed, 0x5851f42d4c957f2d)
	rng := rand.New(src)
	started := time.Now()
	bar := p.Progress.Start("crf sgd", int64(s.maxIterations), "epochs")
	defer bar.Done()
	var history []float64
	t := 0.0
	epochs := 0
	status := "maximum iterations"
	first := 1
	var curve []learn.Point
	cp := p.Checkpoints
	if cp != nil && cp.Save == nil {
		cp.Save = func([]byte) error { return nil }
	}
	if cp != nil && cp.Resume != nil {
		st, err := decodeState(cp.Resume, "sgd", len(m.W))
		if err != nil {
			return err
		}
		if len(st.Order) != len(order) {
			return fmt.Errorf("crf: the checkpoint does not fit this problem (%d training sentences, it has %d)", len(order), len(st.Order))
		}
		if err := src.UnmarshalBinary(st.RNG); err != nil {
			return fmt.Errorf("crf: checkpoint: %w", err)
		}
		copy(v, st.V)
		order, scale, t, history, first, curve = st.Order, st.Scale, st.T, st.History, st.Epoch+1, st.Curve
		es.restoreState(st)
		for _, pt := range curve {
			if p.Observe != nil {
				p.Observe(pt)
			}
		}
		p.Log.Info().Int("epoch", st.Epoch).Msg("crf resumed from a checkpoint")
	}
	for epoch := first; epoch <= s.maxIterations; epoch++ {
		epochs = epoch
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		loss := 0.0
		for k, sent := range order {
			if k%1024 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			eta := s.eta / (1 + lambda*s.eta*t)
			t++
			// Scores under w = scale·v for this sentence only: the state
			// features it touches and the transitions.
			lo, hi := d.Sentence(sent)
			for tok := lo; tok < hi; tok++ {
				for kk := d.TokenOff[tok]; kk < d.TokenOff[tok+1]; kk++ {
					a := d.Attrs[kk]
					for f := m.FeatOff[a]; f < m.FeatOff[a+1]; f++ {
						w[f] = scale * v[f]
					}
				}
			}
			for f := f0; f < len(w); f++ {
				w[f] = scale * v[f]
			}
			// Gradient of this sentence's loss, accumulated sparsely into a
			// zeroed buffer, then applied and cleared over the same
			// features.
			g := sgdGrad
			loss += wk.sentence(obj, w, sent, g)
			if eta*lambda >= 1 {
				return fmt.Errorf("crf: learning_rate %v is too large for c2 %v on %d sentences (the weight decay would flip the weights' sign)", s.eta, s.c2, len(obj.sents))
			}
			scale *= 1 - eta*lambda
			step := eta / scale
			for tok := lo; tok < hi; tok++ {
				y := d.Labels[tok]
				for kk := d.TokenOff[tok]; kk < d.TokenOff[tok+1]; kk++ {
					a := d.Attrs[kk]
					if f := m.Feature(a, y); f >= 0 {
						g[f] -= d.Value(kk)
					}
				}
			}
			if obj.transitions {
				g[f0+l*l+int(d.Labels[lo])]--
				g[f0+l*l+l+int(d.Labels[hi-1])]--
				for tok := lo + 1; tok < hi; tok++ {
					g[f0+int(d.Labels[tok-1])*l+int(d.Labels[tok])]--
				}
			}
			for tok := lo; tok < hi; tok++ {
				for kk := d.TokenOff[tok]; kk < d.TokenOff[tok+1]; kk++ {
					a := d.Attrs[kk]
					for f := m.FeatOff[a]; f < m.FeatOff[a+1]; f++ {
						v[f] -= step * g[f]
						g[f] = 0
					}
				}
			}
			for f := f0; f < len(w); f++ {
				v[f] -= step * g[f]
				g[f] = 0
			}
			if scale < 1e-20 {
				for f := range v {
					v[f] *= scale
				}
				scale = 1
			}
		}
		norm := 0.0
		for _, x := range v {
			norm += x * x
		}
		objective := loss + s.c2*scale*scale*norm
		if !finite(objective) {
			return fmt.Errorf("crf: sgd epoch %d produced a non-finite objective (%v); stopped (try a smaller learning_rate)", epoch, objective)
		}
		for f := range m.W {
			m.W[f] = scale * v[f]
		}
		pt := learn.Point{Step: epoch, Loss: objective, Elapsed: time.Since(started)}
		stop := es.observe(epoch, m.W, &pt)
		p.Log.Info().Int("epoch", epoch).Float64("loss", objective).Float64("dev", pt.DevScore).Msg("crf sgd epoch")
		bar.Set(int64(epoch), fmt.Sprintf("loss %.6g", objective))
		if p.Observe != nil {
			p.Observe(pt)
		}
		curve = append(curve, pt)
		history = append(history, objective)
		if stop {
			status = "stopped by dev score"
			break
		}
		if len(history) > s.period {
			past := history[len(history)-1-s.period]
			if (past-objective)/objective < s.delta {
				status = "no further improvement"
				break
			}
		}
		if cp != nil && cp.Every > 0 && epoch%cp.Every == 0 && epoch < s.maxIterations {
			rngState, err := src.MarshalBinary()
			if err != nil {
				return err
			}
			b, err := encodeState(&state{Algorithm: "sgd", Epoch: epoch, V: v, Scale: scale, T: t, RNG: rngState, Order: order,
				History: history, Best: es.best, BestAt: es.bestAt, BestW: es.bestW, Curve: curve})
			if err == nil {
				err = cp.Save(b)
			}
			if err != nil {
				return fmt.Errorf("crf: saving the checkpoint after epoch %d: %w", epoch, err)
			}
		}
	}
	info["iterations"], info["status"], info["loss"] = epochs, status, history[len(history)-1]
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
