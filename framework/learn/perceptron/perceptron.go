package perceptron

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// Config is the perceptron learner block.
type Config struct {
	// Epochs is the number of passes over the training data (default 10).
	// A pointer, so that an explicit epochs = 0 is refused rather than
	// read as "not set".
	Epochs *int `hcl:"epochs,optional" json:"epochs,omitempty"`
	// Shuffle visits sentences in a new seeded order every epoch
	// (default true).
	Shuffle *bool `hcl:"shuffle,optional" json:"shuffle,omitempty"`
	// Average returns the averaged weights (default true); false gives the
	// plain perceptron's last weights.
	Average *bool `hcl:"average,optional" json:"average,omitempty"`
	// BestEpoch keeps the epoch with the best dev score when the spec has
	// a dev corpus (default true).
	BestEpoch *bool `hcl:"best_epoch,optional" json:"best_epoch,omitempty"`
	// Features is "observed" (attribute-label pairs seen in training get a
	// weight, as CRFsuite does; the default) or "all".
	Features string `hcl:"features,optional" json:"features,omitempty"`
}

// DefaultEpochs is enough for the averaged perceptron to level off on the
// public benchmarks (its dev score moves by less than 0.1 after ~10).
const DefaultEpochs = 10

// Learner is the averaged perceptron.
type Learner struct{ cfg Config }

var _ learn.Learner = (*Learner)(nil)

// New returns a perceptron with default settings.
func New() learn.Learner { return &Learner{} }

// Config implements learn.Learner.
func (l *Learner) Config() any { return &l.cfg }

func flag(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}

func (l *Learner) epochs() int {
	if l.cfg.Epochs == nil {
		return DefaultEpochs
	}
	return *l.cfg.Epochs
}

// Validate implements learn.Learner.
func (l *Learner) Validate() hcl.Diagnostics {
	var diags hcl.Diagnostics
	if e := l.cfg.Epochs; e != nil && (*e < 1 || *e > 100000) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid epochs",
			Detail: fmt.Sprintf("epochs must be between 1 and 100000, got %d", *e)})
	}
	diags = append(diags, learn.ValidateFeatures(l.cfg.Features)...)
	return diags
}

// Train implements learn.Learner.
func (l *Learner) Train(ctx context.Context, p *learn.Problem) (*learn.Result, error) {
	m := learn.NewModel(l.cfg.Features, p)
	order, err := learn.CompleteSentences(p, "perceptron")
	if err != nil {
		return nil, err
	}
	r := &run{
		m: m, p: p, tr: newTrainer(m, p), order: order, epochs: l.epochs(),
		src:     rand.NewPCG(p.Seed, 0x9e3779b97f4a7c15),
		shuffle: flag(l.cfg.Shuffle, true), average: flag(l.cfg.Average, true),
		bestEpoch: flag(l.cfg.BestEpoch, true) && p.DevScore != nil,
		best:      learn.NewBest(),
	}
	r.rng = rand.New(r.src)
	loop := &learn.Loop{
		Name: "perceptron", Unit: "epoch", Steps: r.epochs, Work: len(order), WorkUnit: "sentences",
		LossName: "train_error", Hint: "are some attribute values huge?",
		Step: r.epoch, Weights: func() []float64 { return r.tr.w }, Evaluate: r.evaluate,
		Save: r.save, Restore: r.restore,
	}
	if err := loop.Run(ctx, p); err != nil {
		return nil, err
	}
	info := map[string]any{"epochs": r.epochs, "features": m.NumFeatures(), "updates": r.tr.updates, "averaged": r.average}
	if r.bestEpoch {
		r.best.Restore(m.W)
		info["best_epoch"] = r.best.At
		info["best_dev_score"] = r.best.Score
	}
	return &learn.Result{Model: m, Info: info}, nil
}

// run is one training run: the trainer plus what the epochs share (the
// shuffled order, its random source, the best epoch so far).
type run struct {
	m      *linear.Model
	p      *learn.Problem
	tr     *trainer
	order  []int
	epochs int
	src    *rand.PCG
	rng    *rand.Rand

	shuffle, average, bestEpoch bool
	best                        learn.Best
}

// epoch is one pass over the training sentences; its loss is the
// fraction of mislabelled tokens.
func (r *run) epoch(_ int, tick func(done int) error) (float64, error) {
	order := r.order
	if r.shuffle {
		r.rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	errors, tokens := 0, 0
	for k, s := range order {
		if k%1024 == 0 {
			if err := tick(k); err != nil {
				return 0, err
			}
		}
		e, n := r.tr.step(s)
		errors += e
		tokens += n
	}
	return float64(errors) / float64(tokens), nil
}

// evaluate writes the model's weights when they are needed (for the dev
// score, or after the last epoch) and tracks the best epoch.
func (r *run) evaluate(epoch int, pt *learn.Point) bool {
	if r.bestEpoch || epoch == r.epochs {
		r.tr.result(r.m.W, r.average)
	}
	if r.bestEpoch {
		pt.DevScore = r.p.DevScore(r.m)
		r.best.Consider(epoch, pt.DevScore, r.m.W)
	}
	return false
}

// trainer holds the perceptron's state: current weights w, the
// timestamped sums u of the averaging trick, and decoding buffers.
type trainer struct {
	m           *linear.Model
	d           *feature.Dataset
	nl          int
	transitions bool
	w, u        []float64
	// c counts the sentences seen (the timestamp).
	c       float64
	updates int
	// Decoding reads the state weights in w itself (scorer: w changes
	// after most sentences, so a packed copy would cost more than it
	// saves) and the transition, start and stop weights from a copy
	// prepared for the Viterbi kernel with the scheme's constraints
	// applied (chain, attached to sc), kept in step with w.
	scorer *linear.Scorer
	chain  *lattice.Chain
	ws     *lattice.Workspace
	sc     lattice.Scores
	path   []int32
}

func newTrainer(m *linear.Model, p *learn.Problem) *trainer {
	nl := p.NumLabels
	t := &trainer{
		m: m, d: p.Train, nl: nl, transitions: p.Transitions,
		w: make([]float64, len(m.W)), u: make([]float64, len(m.W)), c: 1,
		ws: lattice.NewWorkspace(nl),
	}
	t.scorer = m.InPlaceScorer(t.w)
	// The decoding transitions start at zero, as w does, whether or not
	// the model has a transition template.
	zero := make([]float64, nl*nl)
	t.chain = lattice.NewChain(zero, zero[:nl], zero[:nl], p.Constraints)
	t.chain.Attach(&t.sc)
	return t
}

// step decodes sentence s and updates the weights where it errs. It
// returns the number of mislabelled tokens and the sentence length.
func (t *trainer) step(s int) (errors, n int) {
	t.scorer.Lattice(&t.sc, t.d, s)
	n = t.sc.N
	if cap(t.path) < n {
		t.path = make([]int32, n, 2*n)
	}
	path := t.path[:n]
	t.ws.Viterbi(path, &t.sc)
	lo, _ := t.d.Sentence(s)
	gold := t.d.Labels[lo : lo+n]
	for i := 0; i < n; i++ {
		if gold[i] != path[i] {
			errors++
			t.updateState(lo+i, gold[i], 1)
			t.updateState(lo+i, path[i], -1)
		}
	}
	if errors > 0 && t.transitions {
		t.updateTransitions(gold, path)
	}
	if errors > 0 {
		t.updates++
	}
	t.c++
	return errors, n
}

// updateTransitions adds the gold sequence's transition, start and stop
// features and subtracts the predicted ones, where they differ.
func (t *trainer) updateTransitions(gold, path []int32) {
	l, n := t.nl, len(gold)
	f := t.m.NumFeatures()
	if gold[0] != path[0] {
		t.chain.SetStart(int(gold[0]), t.add(f+l*l+int(gold[0]), 1))
		t.chain.SetStart(int(path[0]), t.add(f+l*l+int(path[0]), -1))
	}
	for i := 1; i < n; i++ {
		gp, gc, pp, pc := int(gold[i-1]), int(gold[i]), int(path[i-1]), int(path[i])
		if gp != pp || gc != pc {
			t.chain.SetTrans(gp, gc, t.add(f+gp*l+gc, 1))
			t.chain.SetTrans(pp, pc, t.add(f+pp*l+pc, -1))
		}
	}
	if gold[n-1] != path[n-1] {
		t.chain.SetStop(int(gold[n-1]), t.add(f+l*l+l+int(gold[n-1]), 1))
		t.chain.SetStop(int(path[n-1]), t.add(f+l*l+l+int(path[n-1]), -1))
	}
}

// updateState adds delta times the token's attribute values to the
// features (attribute, y); features the model lacks are skipped, as in
// CRFsuite (they stay zero).
func (t *trainer) updateState(tok int, y int32, delta float64) {
	d := t.d
	for k := d.TokenOff[tok]; k < d.TokenOff[tok+1]; k++ {
		if f := t.m.Feature(d.Attrs[k], y); f >= 0 {
			v := delta * d.Value(k)
			t.w[f] += v
			t.u[f] += t.c * v
		}
	}
}

// add updates one transition, start or stop weight and returns its new
// value, for the caller to pass to the chain (which keeps it -Inf if the
// scheme forbids it).
func (t *trainer) add(f int, delta float64) float64 {
	t.w[f] += delta
	t.u[f] += t.c * delta
	return t.w[f]
}

// result writes the averaged (or last) weights into dst. After T
// sentences the average of the T weight vectors is ((T+1)·w - u) / T,
// u having summed each update times the timestamp it was made at.
func (t *trainer) result(dst []float64, average bool) {
	if !average {
		copy(dst, t.w)
		return
	}
	seen := t.c - 1
	if seen == 0 {
		copy(dst, t.w)
		return
	}
	for f := range dst {
		dst[f] = ((seen+1)*t.w[f] - t.u[f]) / seen
	}
}
