// This file holds the learner: its registration face, the training run's
// state (model, current and averaged weights, the search) and the epochs.

package transition

import (
	"context"
	"errors"
	"math/rand/v2"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/linear"
	search "github.com/trellis-nlp/trellis/framework/transition"
)

// Learner is the transition-based labeler.
type Learner struct{ cfg Config }

var (
	_ learn.Learner           = (*Learner)(nil)
	_ learn.DecisionLearner   = (*Learner)(nil)
	_ learn.CheckpointLearner = (*Learner)(nil)
)

// New returns a transition learner with default settings.
func New() learn.Learner { return &Learner{} }

// Config implements learn.Learner.
func (l *Learner) Config() any { return &l.cfg }

// Validate implements learn.Learner.
func (l *Learner) Validate() hcl.Diagnostics { return l.cfg.Validate() }

// SearchBeam implements learn.DecisionLearner.
func (l *Learner) SearchBeam() int { return l.cfg.beam() }

// SavesCheckpoints implements learn.CheckpointLearner: its epochs run on
// learn.Loop.
func (*Learner) SavesCheckpoints() bool { return true }

// ErrCheckpoint is the error of a checkpoint that does not fit the
// problem being resumed.
var ErrCheckpoint = errors.New("transition: the checkpoint does not fit this problem")

// shuffleStream and rollinStream are the PCG streams of the document
// shuffle and the roll-in draws.
const (
	shuffleStream = 0x7472616e73697431
	rollinStream  = 0x7472616e73697432
)

// Train implements learn.Learner.
func (l *Learner) Train(ctx context.Context, p *learn.Problem) (*learn.Result, error) {
	r, err := newRun(p, &l.cfg)
	if err != nil {
		return nil, err
	}
	loop := &learn.Loop{
		Name: "transition", Unit: "epoch", CurveUnit: learn.Epoch, Steps: r.epochs, Work: len(r.sents), WorkUnit: "sentences",
		LossName: "update_rate", Hint: "are some attribute values huge?",
		Step: r.epoch, Weights: func() []float64 { return r.w }, Evaluate: r.evaluate,
		Save: r.save, Restore: r.restore,
	}
	if err := loop.Run(ctx, p); err != nil {
		return nil, err
	}
	info := map[string]any{"epochs": r.epochs, "features": r.m.NumFeatures(), "history_attributes": r.lay.H(),
		"updates": r.updates, "averaged": r.average, "beam": r.width}
	if r.width > 1 {
		info["update"] = r.update.String()
	} else {
		info["beta"], info["beta_decay"] = r.beta, r.decay
	}
	if r.bestEpoch {
		r.best.Restore(r.m.W)
		info["best_epoch"], info["best_dev_score"] = r.best.At, r.best.Score
	}
	var extra []string
	if r.lay != nil {
		extra = r.lay.Names()
	}
	return &learn.Result{Model: r.m, Info: info, ExtraAttrs: extra, SearchBeam: r.width}, nil
}

// run is one training run.
type run struct {
	p  *learn.Problem
	m  *linear.Model
	nl int
	// w are the current weights, u the timestamped sums of the averaging
	// trick, c the timestamp (sentences seen + 1).
	w, u []float64
	c    float64
	// nf is the number of state features (history ones included), hBase
	// the first history feature: the history weights are the [H][L]
	// matrix w[hBase : hBase+H*L].
	nf, hBase int
	lay       *search.Layout
	srch      *search.Search
	scorer    *linear.Scorer
	chain     *lattice.Chain
	sc        lattice.Scores
	in        search.Sentence
	doc       search.Document

	// docs are the runs [start, end) of the complete training sentences
	// by document, order the documents' visiting order; sents the
	// complete sentences.
	docs  [][2]int
	order []int
	sents []int

	epochs, width     int
	update            Update
	beta, decay       float64
	shuffle, average  bool
	bestEpoch         bool
	best              learn.Best
	shuffleRng, draws *rand.Rand
	// shuffleSrc and drawSrc are their sources, which checkpoints save.
	shuffleSrc, drawSrc *rand.PCG
	updates             int
	delta               delta
	// types[y] is label y's type, which the greedy oracle prefers to
	// keep (nil without label names).
	types []int32
	// Buffers: cand an [L] vector of one position's candidate scores,
	// rolled the [n] labels rolled in so far, worst a copy of the most
	// violating prefix (up to [n]), act the active history attributes of
	// one position.
	cand   []float64
	rolled []int32
	worst  []int32
	act    []int32
}

// newRun builds the model (the mapper's attributes, then the history
// attributes with every label) and the run's state.
func newRun(p *learn.Problem, c *Config) (*run, error) {
	sents, err := learn.CompleteSentences(p, "transition")
	if err != nil {
		return nil, err
	}
	r := &run{p: p, nl: p.NumLabels, epochs: num(c.Epochs, DefaultEpochs), width: c.beam(),
		beta: num(c.Beta, DefaultBeta), decay: num(c.BetaDecay, DefaultBetaDecay),
		shuffle: num(c.Shuffle, true), average: num(c.Average, true),
		bestEpoch: num(c.BestEpoch, true) && p.DevScore != nil, best: learn.NewBest(), sents: sents, c: 1,
		shuffleSrc: rand.NewPCG(p.Seed, shuffleStream), drawSrc: rand.NewPCG(p.Seed, rollinStream)}
	r.shuffleRng, r.draws = rand.New(r.shuffleSrc), rand.New(r.drawSrc)
	r.update, _ = parseUpdate(c.Update)
	if h := p.History; h != nil {
		r.types = labelTypes(h.Labels)
	}
	if h := p.History; h != nil && h.Name != "" {
		if r.lay, err = search.NewLayout(h.Name, h.Decisions, h.Labels); err != nil {
			return nil, err
		}
	}
	r.m, r.hBase = withHistory(learn.NewModel(c.Features, p), p.NumAttrs, r.lay.H())
	r.nf = r.m.NumFeatures()
	r.w, r.u = make([]float64, len(r.m.W)), make([]float64, len(r.m.W))
	r.scorer = r.m.InPlaceScorer(r.w)
	zero := make([]float64, r.nl*r.nl)
	r.chain = lattice.NewChain(zero, zero[:r.nl], zero[:r.nl], p.Constraints)
	r.chain.Attach(&r.sc)
	r.srch = search.New(r.lay, r.width)
	r.in = search.Sentence{Scores: &r.sc, History: r.w[r.hBase : r.hBase+r.lay.H()*r.nl]}
	r.in.Context.Doc = &r.doc
	r.docs = documents(p, sents)
	r.order = make([]int, len(r.docs))
	for i := range r.order {
		r.order[i] = i
	}
	r.delta.init(len(r.w))
	r.cand = make([]float64, r.nl)
	return r, nil
}

// withHistory returns base's structure with h more attributes after its
// numAttrs, each with a feature for every label, and the index of the
// first of those features.
func withHistory(base *linear.Model, numAttrs, h int) (*linear.Model, int) {
	l := base.NumLabels
	off := append([]int32(nil), base.FeatOff...)
	lab := append([]int32(nil), base.FeatLabel...)
	first := int(off[numAttrs])
	for a := 0; a < h; a++ {
		off = append(off, off[len(off)-1]+int32(l))
		for y := 0; y < l; y++ {
			lab = append(lab, int32(y))
		}
	}
	return linear.New(l, off, lab, base.Transitions), first
}

// documents groups the complete sentences into runs of one document each
// (History.Documents; every sentence its own without it).
func documents(p *learn.Problem, sents []int) [][2]int {
	var docs [][2]int
	var ids []int32
	if p.History != nil {
		ids = p.History.Documents
	}
	for k, s := range sents {
		if k > 0 && ids != nil && ids[s] == ids[sents[k-1]] {
			docs[len(docs)-1][1] = k + 1
			continue
		}
		docs = append(docs, [2]int{k, k + 1})
	}
	return docs
}

// epoch is one pass over the documents in a (seeded) shuffled order; its
// loss is the fraction of sentences that made an update.
func (r *run) epoch(k int, tick func(done int) error) (float64, error) {
	if r.shuffle {
		r.shuffleRng.Shuffle(len(r.order), func(i, j int) { r.order[i], r.order[j] = r.order[j], r.order[i] })
	}
	beta := r.beta
	for e := 1; e < k; e++ {
		beta *= r.decay
	}
	done, updated := 0, 0
	for _, d := range r.order {
		r.doc.Reset()
		for _, s := range r.sents[r.docs[d][0]:r.docs[d][1]] {
			if done%1024 == 0 {
				if err := tick(done); err != nil {
					return 0, err
				}
			}
			if r.sentence(s, beta) {
				updated++
			}
			r.c++
			done++
		}
	}
	return float64(updated) / float64(max(done, 1)), nil
}

// sentence trains on sentence s and reports whether it updated.
func (r *run) sentence(s int, beta float64) bool {
	d := r.p.Train
	r.scorer.Lattice(&r.sc, d, s)
	lo, hi := d.Sentence(s)
	gold := d.Labels[lo:hi]
	if h := r.p.History; h != nil && h.Keys != nil {
		r.in.Context.SetKeys(h.Keys[lo:hi])
	}
	var committed []int32
	r.delta.reset()
	if r.width == 1 {
		committed = r.greedy(lo, gold, beta)
	} else {
		r.beam(lo, gold)
		committed = gold // later sentences read the gold history (see README)
	}
	r.doc.Commit(r.lay, r.in.Context.Keys, committed)
	if r.delta.apply(r) {
		r.updates++
		return true
	}
	return false
}

// evaluate writes the averaged (or last) weights into the model when they
// are needed and tracks the best epoch on dev.
func (r *run) evaluate(epoch int, pt *learn.Point) bool {
	if r.bestEpoch || epoch == r.epochs {
		r.result(r.m.W)
	}
	if r.bestEpoch {
		pt.DevScore = r.p.DevScore(r.m)
		r.best.Consider(epoch, pt.DevScore, r.m.W)
	}
	return false
}

// result writes the averaged weights ((c·w − u)/(c−1) after c−1
// sentences) or the last ones into dst.
func (r *run) result(dst []float64) {
	seen := r.c - 1
	if !r.average || seen == 0 {
		copy(dst, r.w)
		return
	}
	for f := range dst {
		dst[f] = ((seen+1)*r.w[f] - r.u[f]) / seen
	}
}

// add adds v to weight f, keeping the averaging sums and the decoding
// chain in step.
func (r *run) add(f int, v float64) {
	r.w[f] += v
	r.u[f] += r.c * v
	r.syncChain(f)
}

// syncChain copies weight f into the decoding chain when it is a
// transition, start or stop weight (the chain keeps forbidden bigrams at
// -Inf).
func (r *run) syncChain(f int) {
	l := r.nl
	switch k := f - r.nf; {
	case k < 0:
	case k < l*l:
		r.chain.SetTrans(k/l, k%l, r.w[f])
	case k < l*l+l:
		r.chain.SetStart(k-l*l, r.w[f])
	default:
		r.chain.SetStop(k-l*l-l, r.w[f])
	}
}
