package crf

import (
	"context"
	"math/rand/v2"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// The latent-variable CRF (crf { hidden_states = k }; Sun et al. 2008's
// latent-dynamic CRF, Petrov & Klein's split states). Each label y owns k
// hidden states, y·k … y·k+k−1; the model is a linear.Model over the L·k
// states (HiddenStates = k), whose state features are the plain model's
// with each (attribute, label) pair split into one feature per state of
// the label, and whose transitions, start and stop are between states.
// The likelihood of a gold labelling is the sum over every state path
// whose states belong to its labels:
//
//	log P(y | x) = log Z(x, y) − log Z(x)
//
// where Z(x) sums over all state paths (the free pass) and Z(x, y) over
// those consistent with y (the clamped pass: the same forward-backward
// kernel on the lattice of the gold labels' states, see latentSentence). The gradient of the negative log-likelihood is
// E_free[φ] − E_clamped[φ]. The objective is not convex: training starts
// from weights perturbed by small random numbers drawn from the spec's
// seed (identical states would get identical gradients and never split),
// and L-BFGS finds a local optimum, the same one for every thread count
// (the shards reduce in a fixed order).
//
// Where it starts is hidden_init. "split" (the default, Petrov et al.
// 2006's split): the plain CRF is trained first, on the same objective's
// labels, and each state of a label starts from its label's weights (and
// each state transition from its labels' transition) plus the
// perturbation. The latent likelihood at that point is the plain CRF's
// (every state path of a label path scores alike, so k^n cancels between
// Z(x) and Z(x, y)), and L-BFGS only has to learn how the states differ,
// which takes far fewer evaluations of the latent objective (each k to k²
// times a plain one's) than starting from scratch. "random" starts from
// the perturbation alone.

// maxHiddenStates bounds hidden_states: the lattice grows as (L·k)².
const maxHiddenStates = 32

// latentInitScale is the half-width of the uniform initial weights: large
// enough that the states of a label differ from the first iteration,
// small next to trained weights (the CRF's are of order 1).
const latentInitScale = 0.1

// latentStream is the PCG stream of the initial weights, apart from the
// other seeded choices of a run.
const latentStream = 0x1a7e47

// validateLatent checks hidden_states: 2 or more, the CRF's L-BFGS, no
// init_model.
func (l *Learner) validateLatent(s settings) hcl.Diagnostics {
	k := l.cfg.HiddenStates
	if k == 0 {
		return nil
	}
	bad := func(detail string) hcl.Diagnostics {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid " + l.form.title() + " setting", Detail: detail}}
	}
	switch {
	case l.form != Chain:
		return bad("hidden_states is a setting of crf (a latent-variable CRF); " + l.form.String() + " does not take it")
	case k < 2 || k > maxHiddenStates:
		return bad("hidden_states must be between 2 and 32 (leave it out for a plain CRF)")
	case s.algorithm != "lbfgs":
		return bad(`hidden_states needs algorithm = "lbfgs": the latent CRF's objective is not convex, and only L-BFGS (or OWL-QN with c1) trains it`)
	case l.cfg.InitModel != "":
		return bad("hidden_states cannot continue init_model: a model's labels do not say how to split them into hidden states")
	}
	return nil
}

// Hidden initializations (Config.HiddenInit).
const (
	initSplit  = "split"
	initRandom = "random"
)

// priorSplit is prior = "split": the L2 penalty centred on the split
// plain CRF.
const priorSplit = "split"

// validateHiddenInit checks hidden_init: a known value, and only with
// hidden_states.
func (l *Learner) validateHiddenInit() hcl.Diagnostics {
	bad := func(detail string) hcl.Diagnostics {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid " + l.form.title() + " setting", Detail: detail}}
	}
	if l.cfg.HiddenIterations > 0 && l.cfg.HiddenStates == 0 {
		return bad("hidden_iterations needs hidden_states (it bounds a latent CRF's iterations; max_iterations bounds a plain one's)")
	}
	switch l.cfg.HiddenInit {
	case "":
		return nil
	case initSplit, initRandom:
		if l.cfg.HiddenStates == 0 {
			return bad("hidden_init needs hidden_states (it says where a latent CRF starts)")
		}
		return nil
	}
	return bad(`hidden_init must be "split" (train the plain CRF, then split its labels) or "random", got "` + l.cfg.HiddenInit + `"`)
}

// startLatent returns the latent model over m's structure (whose weights
// are zero) at its starting point — m trained as a plain CRF and split
// (hidden_init = "split"), or the random start — and, after a split, the
// split point without the perturbation (prior = "split" centres the L2
// penalty there). A run resumed from a checkpoint takes the random start's
// structure only: the checkpoint holds the latent weights, and the centre
// is not needed on the way there (the plain phase takes no checkpoints, so
// it is trained again for prior = "split").
func (l *Learner) startLatent(ctx context.Context, m *linear.Model, p *learn.Problem, sents []int, s settings, info map[string]any) (*linear.Model, []float64, error) {
	k := l.cfg.HiddenStates
	resumed := p.Checkpoints != nil && p.Checkpoints.Resume != nil
	if l.cfg.HiddenInit == initRandom || resumed && l.cfg.Prior != priorSplit {
		return latentModel(m, k, p.Seed), nil, nil
	}
	plain := *p
	plain.Checkpoints, plain.Dev, plain.DevScore, plain.Observe = nil, nil, nil, nil
	ps := s
	ps.name = s.name + " before the split"
	obj := newShardedObjective(m, p.Train, sents, Chain.objective(p), s.c2, layout{s.gradientShards(), p.Threads})
	p.Log.Info().Int("features", m.NumFeatures()).Int("labels", m.NumLabels).Int("hidden_states", k).
		Msg("latent crf: training the plain crf to split (hidden_init = \"split\")")
	plainInfo := map[string]any{}
	if err := trainLBFGS(ctx, obj, ps, &plain, newEarlyStop(0, -1, &plain, m), plainInfo); err != nil {
		return nil, nil, err
	}
	info["plain_iterations"], info["plain_evaluations"], info["plain_loss"] = plainInfo["iterations"], plainInfo["evaluations"], plainInfo["loss"]
	out := latentModel(m, k, p.Seed)
	centre := splitWeights(m, k)
	for i, w := range centre {
		out.W[i] += w
	}
	return out, centre, nil
}

// splitWeights returns the weights of the latent model of the trained
// plain model m in which every weight of state j of label y (a state
// feature, a transition between states, a start or stop weight) is m's
// weight of y (between their labels). latentModel's indexing: plain
// feature f is latent features f·k … f·k+k−1.
func splitWeights(m *linear.Model, k int) []float64 {
	f0, l := m.NumFeatures(), m.NumLabels
	s := l * k
	w := make([]float64, f0*k+s*s+2*s)
	for f, v := range m.W[:f0] {
		for j := range k {
			w[f*k+j] = v
		}
	}
	if !m.Transitions {
		return w
	}
	trans, start, stop := m.Trans(), m.Start(), m.Stop()
	outTrans, outStart, outStop := w[f0*k:f0*k+s*s], w[f0*k+s*s:f0*k+s*s+s], w[f0*k+s*s+s:]
	for a := range s {
		outStart[a] = start[a/k]
		outStop[a] = stop[a/k]
		for b := range s {
			outTrans[a*s+b] = trans[(a/k)*l+b/k]
		}
	}
	return w
}

// latentModel splits the labels of m (zero weights) into k states each
// and draws every weight the learner trains uniformly from ±latentInitScale
// with the seed.
func latentModel(m *linear.Model, k int, seed uint64) *linear.Model {
	off := make([]int32, len(m.FeatOff))
	for a, o := range m.FeatOff {
		off[a] = o * int32(k)
	}
	lab := make([]int32, 0, len(m.FeatLabel)*k)
	for _, y := range m.FeatLabel {
		for j := range int32(k) {
			lab = append(lab, y*int32(k)+j)
		}
	}
	out := linear.New(m.NumLabels*k, off, lab, m.Transitions)
	out.HiddenStates = k
	r := rand.New(rand.NewPCG(seed, latentStream))
	w := out.W
	if !m.Transitions {
		w = w[:out.NumFeatures()] // the others stay zero without transitions
	}
	for f := range w {
		w[f] = latentInitScale * (2*r.Float64() - 1)
	}
	return out
}

// latentSentence is the latent objective of one sentence: log Z(x) −
// log Z(x, y), with E_free − E_clamped written into g.
//
// The clamped pass runs on a lattice of the gold labels' states only, k
// per position, in which the transition into position i is the block of
// the full transitions between the gold labels at i−1 and i
// (Scores.TransAt): the same sums as the full lattice with every other
// state at −Inf, at O(n·k²) instead of O(n·(L·k)²).
func (wk *worker) latentSentence(o *objective, x []float64, s int, g []float64) float64 {
	m, d, l, k := o.m, o.d, o.m.NumLabels, o.latent
	wk.lattice(m, x, d, s)
	sc := &wk.sc
	n := sc.N
	lo, _ := d.Sentence(s)
	f0 := m.NumFeatures()
	logZ := wk.ws.ForwardBackward(sc)
	marg := wk.marg[:n*l]
	wk.ws.StateMarginals(marg)
	if o.kind.trans == withTransitions {
		wk.ws.AddTransMarginals(g[f0:f0+l*l], sc, 1)
		start, stop := g[f0+l*l:f0+l*l+l], g[f0+l*l+l:f0+l*l+2*l]
		for y := 0; y < l; y++ {
			start[y] += marg[y]
			stop[y] += marg[(n-1)*l+y]
		}
	}
	gold := d.Labels[lo : lo+n]
	cl := wk.clampLattice(sc, gold, k)
	logZClamped := wk.wsClamped.ForwardBackward(cl)
	mc := wk.margClamped[:n*k]
	wk.wsClamped.StateMarginals(mc)
	for i, y := range gold {
		row := marg[i*l+int(y)*k : i*l+int(y+1)*k]
		for j := range row {
			row[j] -= mc[i*k+j]
		}
	}
	if o.kind.trans == withTransitions {
		trans := g[f0 : f0+l*l]
		for i := 1; i < n; i++ {
			p0, c0 := int(gold[i-1])*k, int(gold[i])*k
			for p := 0; p < k; p++ {
				row := trans[(p0+p)*l+c0 : (p0+p)*l+c0+k]
				for c := range row {
					row[c] -= wk.wsClamped.PairMarginal(cl, i, p, c)
				}
			}
		}
		start, stop := g[f0+l*l:f0+l*l+l], g[f0+l*l+l:f0+l*l+2*l]
		first, last := int(gold[0])*k, int(gold[n-1])*k
		for j := 0; j < k; j++ {
			start[first+j] -= mc[j]
			stop[last+j] -= mc[(n-1)*k+j]
		}
	}
	m.AddStateGradient(g, d, lo, marg)
	return logZ - logZClamped
}

// clampLattice fills the worker's clamped lattice from sc (over all L·k
// states) for the gold labels: position i keeps the k states of gold[i].
func (wk *worker) clampLattice(sc *lattice.Scores, gold []int32, k int) *lattice.Scores {
	n, l := sc.N, sc.L
	cl := &wk.clamped
	cl.N, cl.L = n, k
	cl.State = cl.State[:n*k]
	cl.TransAt = cl.TransAt[:max(n-1, 0)*k*k]
	for i, y := range gold {
		y0 := int(y) * k
		copy(cl.State[i*k:(i+1)*k], sc.State[i*l+y0:i*l+y0+k])
		if i == 0 {
			continue
		}
		p0 := int(gold[i-1]) * k
		block := cl.TransAt[(i-1)*k*k : i*k*k]
		for p := 0; p < k; p++ {
			copy(block[p*k:(p+1)*k], sc.Trans[(p0+p)*l+y0:(p0+p)*l+y0+k])
		}
	}
	first, last := int(gold[0])*k, int(gold[n-1])*k
	copy(cl.Start, sc.Start[first:first+k])
	copy(cl.Stop, sc.Stop[last:last+k])
	return cl
}
