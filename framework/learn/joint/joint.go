// Package joint trains a neural encoder (framework/neural) jointly with a
// linear model over the shared lattice core: the BiLSTM-CRF, the
// BiLSTM-softmax and their hybrids with sparse templates.
//
// A sentence's state scores are the templates' (linear.Model.Lattice)
// plus the encoder's label scores. The loss is the lattice's
// NegLogLikelihood — for a softmax output, over a lattice without
// transitions, which is the sum of the tokens' own losses — and its
// gradient with respect to the state scores, marginals minus gold, is
// what the encoder back-propagates (nn.Workspace.Backward) and what the
// sparse weights' gradient is built from (linear.Model.AddStateGradient).
// No second forward-backward exists.
//
// Training is mini-batch Adam or SGD with clipping, a learning-rate
// decay and early stopping on dev, driven by learn.Loop (one step an
// epoch). Reproducibility: the sentence order is drawn from the seed and
// the epoch; each batch is cut into a fixed number of shards (Shards),
// each with its own gradient buffers, which are added in shard order; the
// dropout masks and unknown-word replacements of a sentence are drawn
// from the seed, the epoch and the sentence. So the bytes depend on the
// seed and the spec, never on the number of threads, which only decides
// how many shards run at once.
package joint

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/linear"
	"github.com/trellis-nlp/trellis/framework/neural"
	"github.com/trellis-nlp/trellis/framework/nn"
)

// Output is what the label scores feed.
type Output int

const (
	// CRF is a linear-chain CRF: transition, start and stop weights are
	// trained, and the loss is −log P(y | x) over the lattice.
	CRF Output = iota
	// Softmax is independent per-token decisions: the model has no
	// transitions, and the loss is the tokens' cross-entropy.
	Softmax
)

// Shards is the number of parts a batch is cut into, each with its own
// gradient buffers: the most threads a step uses.
const Shards = 4

// Settings are how the linear part is regularized.
type Settings struct {
	// C2 is the L2 penalty c2·‖w‖² on the linear model's weights over
	// the whole training set, spread over the batches in proportion to
	// their sentences (the CRF learner's c2). 0: none.
	C2 float64
}

// Train trains p.Encoder's network and m jointly and returns them. m is
// the starting linear model (learn.StartModel); its W is trained in
// place. out must agree with m: Softmax needs m without transitions.
func Train(ctx context.Context, p *learn.Problem, m *linear.Model, out Output, s Settings) (*learn.Result, error) {
	if p.Encoder == nil {
		return nil, fmt.Errorf("joint: the problem has no encoder")
	}
	if m.SecondOrder() || m.HiddenStates > 1 || m.Local {
		return nil, fmt.Errorf("joint: an encoder trains with a first-order model without hidden states or local normalization")
	}
	if out == Softmax && m.Transitions {
		return nil, fmt.Errorf("joint: a softmax output has no transitions")
	}
	t, err := newTrainer(p, m, out, s)
	if err != nil {
		return nil, err
	}
	loop := &learn.Loop{Name: "encoder", Unit: "epoch", CurveUnit: learn.Epoch, Steps: t.cfg.Epochs,
		Work: p.Train.NumSentences(), WorkUnit: "sentences",
		Hint: "lower the encoder's learning_rate or set clip", Step: t.epoch, Weights: func() []float64 { return m.W },
		Evaluate: t.evaluate}
	loop.Save, loop.Restore = t.save, t.restore
	if err := loop.Run(ctx, p); err != nil {
		return nil, err
	}
	info := map[string]any{"features": m.NumFeatures(), "parameters": t.net.Enc.Params.Size(), "optimizer": t.cfg.Optimizer,
		"epochs": len(loop.Curve())}
	if t.best.W != nil {
		t.best.Restore(m.W)
		if err := t.net.ReadWeights(t.bestNet); err != nil {
			return nil, err
		}
		info["best_epoch"], info["best_dev_score"] = t.best.At, t.best.Score
	}
	return &learn.Result{Model: m, Network: t.net, Info: info}, nil
}

// trainer is one Train call's state.
type trainer struct {
	p      *learn.Problem
	m      *linear.Model
	net    *neural.Network
	cfg    *neural.Config
	out    Output
	c2     float64
	lin    *nn.Params[float64] // one parameter, "linear", whose W is m.W
	netOpt nn.Optimizer[float32]
	linOpt nn.Optimizer[float64]
	shards []*shard
	// netG and linG are the shards' gradient buffers, in shard order.
	netG  []*nn.Grads[float32]
	linG  []*nn.Grads[float64]
	order []int32 // the sentences in the current epoch's order
	// best is the best epoch on dev with its linear weights; bestNet
	// the network's weights then.
	best      learn.Best
	bestNet   []byte
	sinceBest int
}

// newOptimizer is the optimizer cfg names, over parameters of type T,
// applying its steps on threads goroutines (the same bytes for any).
func newOptimizer[T nn.Float](cfg *neural.Config, threads int) nn.Optimizer[T] {
	st := nn.Settings{LearningRate: cfg.LearningRate, ClipNorm: *cfg.Clip, Decay: *cfg.Decay, Threads: threads}
	if cfg.Optimizer == neural.SGD {
		return &nn.SGD[T]{Settings: st, Momentum: 0.9}
	}
	return &nn.Adam[T]{Settings: st}
}

func newTrainer(p *learn.Problem, m *linear.Model, out Output, s Settings) (*trainer, error) {
	net := p.Encoder.Net
	if net.Labels != m.NumLabels {
		return nil, fmt.Errorf("joint: the encoder scores %d labels, the model has %d", net.Labels, m.NumLabels)
	}
	if len(p.Encoder.Train) != p.Train.NumSentences() {
		return nil, fmt.Errorf("joint: %d encoded sentences for %d training sentences", len(p.Encoder.Train), p.Train.NumSentences())
	}
	t := &trainer{p: p, m: m, net: net, cfg: &net.Config, out: out, best: learn.NewBest()}
	if n := p.Train.NumSentences(); n > 0 {
		t.c2 = s.C2 / float64(n)
	}
	t.lin = &nn.Params[float64]{}
	lp := t.lin.Add("linear", nn.InitZero, false, len(m.W))
	lp.W = m.W
	t.netOpt, t.linOpt = newOptimizer[float32](t.cfg, p.Threads), newOptimizer[float64](t.cfg, p.Threads)
	t.order = make([]int32, p.Train.NumSentences())
	for k := range t.order {
		t.order[k] = int32(k)
	}
	for range Shards {
		sh := t.newShard()
		t.shards, t.netG, t.linG = append(t.shards, sh), append(t.netG, sh.nn.Grads()), append(t.linG, sh.linG)
	}
	return t, nil
}

// epoch runs training epoch k (1-based) and returns its mean loss per
// sentence.
func (t *trainer) epoch(k int, tick func(done int) error) (float64, error) {
	// The order is a function of the seed and the epoch alone, so a
	// resumed run draws the one it would have.
	for i := range t.order {
		t.order[i] = int32(i)
	}
	rng := rand.New(rand.NewPCG(t.p.Seed, uint64(k)))
	rng.Shuffle(len(t.order), func(i, j int) { t.order[i], t.order[j] = t.order[j], t.order[i] })
	t.netOpt.SetEpoch(k - 1)
	t.linOpt.SetEpoch(k - 1)
	total := 0.0
	bs := t.cfg.BatchSize
	for lo := 0; lo < len(t.order); lo += bs {
		loss, err := t.batch(k, t.order[lo:min(lo+bs, len(t.order))])
		if err != nil {
			return 0, err
		}
		total += loss
		if err := tick(min(lo+bs, len(t.order))); err != nil {
			return 0, err
		}
	}
	return total / float64(max(len(t.order), 1)), nil
}

// batch makes one step on the sentences of batch and returns their loss.
func (t *trainer) batch(epoch int, batch []int32) (float64, error) {
	per := (len(batch) + Shards - 1) / Shards
	for i, sh := range t.shards {
		sh.sents = batch[min(i*per, len(batch)):min((i+1)*per, len(batch))]
		sh.loss, sh.err = 0, nil
	}
	workers := max(1, min(t.p.Threads, Shards))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < Shards; i += workers {
				t.shards[i].run(t, epoch)
			}
		})
	}
	wg.Wait()
	loss := 0.0
	for _, sh := range t.shards {
		if sh.err != nil {
			return 0, sh.err
		}
		loss += sh.loss
	}
	t.net.Enc.Params.Reduce(t.netG)
	t.lin.Reduce(t.linG)
	if t.c2 > 0 {
		g, w := t.lin.List()[0].G, t.m.W
		scale := 2 * t.c2 * float64(len(batch))
		for f := range g {
			g[f] += scale * w[f]
		}
		loss += t.c2 * float64(len(batch)) * dot(w, w)
	}
	t.netOpt.Step(t.net.Enc.Params)
	t.linOpt.Step(t.lin)
	return loss, nil
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// evaluate scores epoch k on dev, keeps the best epoch's weights and
// stops after Patience epochs without a better score.
func (t *trainer) evaluate(k int, pt *learn.Point) bool {
	if t.p.DevScore == nil {
		return false
	}
	pt.DevScore = t.p.DevScore(t.m)
	if t.best.Consider(k, pt.DevScore, t.m.W) {
		w, err := t.net.Weights()
		if err == nil {
			t.bestNet, t.sinceBest = w, 0
			return false
		}
	}
	t.sinceBest++
	return *t.cfg.Patience > 0 && t.sinceBest >= *t.cfg.Patience
}

// shard is one part of a batch and the buffers it is computed in.
type shard struct {
	sents []int32
	nn    *nn.Workspace[float32]
	linG  *nn.Grads[float64]
	ws    *lattice.Workspace
	sc    lattice.Scores
	g     lattice.ScoreGrad
	// transAt backs g.TransAt, transIn the lattice's TransAt when the
	// network's conditioned transitions give it one (neural.AddScores).
	transAt, transIn []float64
	d32, dTrans      []float32
	words            []int32 // the sentence's word IDs after unknown replacement
	in               nn.Sentence
	pcg              *rand.PCG
	rng              *rand.Rand
	loss             float64
	err              error
}

func (t *trainer) newShard() *shard {
	pcg := rand.NewPCG(0, 0)
	return &shard{nn: t.net.Enc.NewWorkspace(), linG: t.lin.NewGrads(), ws: lattice.NewWorkspace(t.m.NumLabels),
		pcg: pcg, rng: rand.New(pcg)}
}

// run adds the loss and gradients of the shard's sentences.
func (sh *shard) run(t *trainer, epoch int) {
	for _, k := range sh.sents {
		loss, err := sh.sentence(t, epoch, int(k))
		if err != nil {
			sh.err = err
			return
		}
		sh.loss += loss
	}
}

// sentence adds sentence k's loss gradient to the shard's buffers and
// returns its loss.
func (sh *shard) sentence(t *trainer, epoch, k int) (float64, error) {
	data, m := t.p.Train, t.m
	lo, hi := data.Sentence(k)
	n, l := hi-lo, m.NumLabels
	if !learn.Complete(data, k) {
		return 0, nil // empty, or a gold label the model lacks: skipped, as every learner does
	}
	m.Lattice(&sh.sc, m.W, data, k)
	sh.pcg.Seed(t.p.Seed^0x6a6f696e74, uint64(epoch)<<32|uint64(k))
	sh.input(t, &t.p.Encoder.Train[k])
	scores, err := sh.nn.Forward(&sh.in, sh.rng)
	if err != nil {
		return 0, fmt.Errorf("encoder: training sentence %d: %w", k+1, err)
	}
	neural.AddScores(&sh.sc, scores, sh.nn.TransScores(), &sh.transIn)
	sh.g.State = grow(sh.g.State, n*l)
	sh.g.TransAt = nil
	if sh.sc.TransAt != nil {
		sh.transAt = grow(sh.transAt, (n-1)*l*l)
		sh.g.TransAt = sh.transAt
	}
	g := sh.linG.Dense(t.lin.List()[0])
	f0 := m.NumFeatures()
	if t.out == CRF {
		sh.g.Trans, sh.g.Start, sh.g.Stop = g[f0:f0+l*l], g[f0+l*l:f0+l*l+l], g[f0+l*l+l:f0+l*l+2*l]
	}
	loss := sh.ws.NegLogLikelihood(&sh.sc, data.Labels[lo:hi], &sh.g)
	sh.backward(m, data, g, lo, n)
	return loss, nil
}

// backward back-propagates the last sentence's gradient in its lattice's
// scores (sh.g): into the network, and into g, the linear model's
// gradient, for the sentence's tokens from lo.
func (sh *shard) backward(m *linear.Model, data *feature.Dataset, g []float64, lo, n int) {
	l := m.NumLabels
	sh.d32 = grow(sh.d32, n*l)
	for j, v := range sh.g.State {
		sh.d32[j] = float32(v)
	}
	if sh.nn.TransScores() == nil {
		sh.nn.Backward(sh.d32)
	} else {
		// Conditioned transitions: the bigram scores' gradient is the
		// lattice's per-position one, and nothing for the first token.
		ll := l * l
		sh.dTrans = grow(sh.dTrans, n*ll)
		clear(sh.dTrans[:ll])
		for j, v := range sh.g.TransAt {
			sh.dTrans[ll+j] = float32(v)
		}
		sh.nn.BackwardTrans(sh.d32, sh.dTrans)
	}
	m.AddStateGradient(g, data, lo, sh.g.State)
	if sh.g.TransAt != nil {
		m.AddPairGradient(g, data, lo, sh.g.TransAt)
	}
}

// input sets sh.in to enc with each word seen once in training read as
// the unknown word with the probability the config gives.
func (sh *shard) input(t *trainer, enc *neural.Encoded) {
	sh.in = enc.Sentence
	p := *t.cfg.UnknownReplace
	if p == 0 {
		return
	}
	sh.words = append(sh.words[:0], enc.Words...)
	for i, w := range sh.words {
		if t.p.Encoder.Counts[w] == 1 && sh.rng.Float64() < p {
			sh.words[i] = neural.Unknown
		}
	}
	sh.in.Words = sh.words
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
