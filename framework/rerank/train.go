// train.go holds the reranker's settings and its two learners over
// encoded lists: the averaged perceptron and maxent (a log-linear model
// over each list, trained by L-BFGS), both aiming at the oracle-best
// candidates.
package rerank

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/trellis-nlp/trellis/framework/optim"
)

// The trainers a Settings.Trainer names.
const (
	TrainerPerceptron = "perceptron"
	TrainerMaxEnt     = "maxent"
)

// Settings configure a reranker; a model records them.
type Settings struct {
	// Features are the feature groups (Groups); nil: all of them, empty:
	// none. The score feature is always there.
	Features []string `json:"features"`
	// Trainer is TrainerPerceptron or TrainerMaxEnt.
	Trainer string `json:"trainer"`
	// Epochs are the perceptron's passes over the lists.
	Epochs int `json:"epochs,omitempty"`
	// C2 weighs maxent's penalty C2·‖w‖².
	C2 float64 `json:"c2,omitempty"`
	// MaxIterations bounds maxent's L-BFGS iterations; 0: until it converges.
	MaxIterations int `json:"max_iterations,omitempty"`
	// ScoreInit is the score feature's starting weight: 1 starts the
	// reranker as the first pass.
	ScoreInit float64 `json:"score_init"`
	// Seed seeds the perceptron's shuffling, its only random choice.
	Seed uint64 `json:"seed"`
}

// DefaultSettings are a perceptron of 10 epochs over every feature group,
// starting from the first pass.
func DefaultSettings() Settings {
	return Settings{Trainer: TrainerPerceptron, Epochs: 10, C2: 1, ScoreInit: 1}
}

// learner returns the Learner the settings describe.
func (s Settings) learner() (Learner, error) {
	if _, err := parseGroups(s.Features); err != nil {
		return nil, err
	}
	switch {
	case s.Trainer == TrainerPerceptron && s.Epochs >= 1:
		return &Perceptron{Epochs: s.Epochs, Seed: s.Seed}, nil
	case s.Trainer == TrainerPerceptron:
		return nil, fmt.Errorf("%w: epochs = %d, want at least 1", ErrSettings, s.Epochs)
	case s.Trainer == TrainerMaxEnt && s.C2 >= 0 && s.MaxIterations >= 0:
		return &MaxEnt{C2: s.C2, MaxIterations: s.MaxIterations}, nil
	case s.Trainer == TrainerMaxEnt:
		return nil, fmt.Errorf("%w: c2 = %g and max_iterations = %d, want both >= 0", ErrSettings, s.C2, s.MaxIterations)
	}
	return nil, fmt.Errorf("%w: trainer %q (want %q or %q)", ErrSettings, s.Trainer, TrainerPerceptron, TrainerMaxEnt)
}

// Learner trains weights on an encoded set (with gold), starting from w
// and leaving the result there.
type Learner interface {
	Fit(ctx context.Context, set *Set, w []float64) error
}

var (
	_ Learner = (*Perceptron)(nil)
	_ Learner = (*MaxEnt)(nil)
)

// Train encodes lists (gold labels required) and trains a reranker on
// them; the model holds the features with a nonzero weight.
func Train(ctx context.Context, lists []List, s Settings) (*Model, error) {
	if err := checkLists(lists, true); err != nil {
		return nil, err
	}
	dict := NewDict()
	ex, err := NewExtractor(dict, s.Features)
	if err != nil {
		return nil, err
	}
	set, err := Encode(lists, ex)
	if err != nil {
		return nil, err
	}
	w, err := Fit(ctx, set, dict.Len(), s)
	if err != nil {
		return nil, err
	}
	return NewModel(s, dict, w)
}

// Fit trains weights over dim features (the dictionary's length when the
// set was encoded, or more) on set, which must have been encoded with
// s.Features, and returns them: ScoreInit for the score feature, zero
// for the others, then the learner's steps.
func Fit(ctx context.Context, set *Set, dim int, s Settings) ([]float64, error) {
	lr, err := s.learner()
	if err != nil {
		return nil, err
	}
	if !set.HasGold() {
		return nil, ErrNoGold
	}
	w := make([]float64, dim)
	w[scoreFeature] = s.ScoreInit
	if err := lr.Fit(ctx, set, w); err != nil {
		return nil, err
	}
	for id, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: feature %d is %g", ErrNotFinite, id, v)
		}
	}
	return w, nil
}

// trainable reports whether list i can teach anything: some candidate is
// not oracle-best.
func trainable(set *Set, oracle []bool, i int) bool {
	c0, k := set.candidates(i)
	for j := range k {
		if !oracle[c0+j] {
			return true
		}
	}
	return false
}

// Perceptron is the averaged structured perceptron over lists (Collins
// 2002): when the best-scoring candidate is not oracle-best, the weights
// move towards the oracle target (SentenceOracle) and away from it.
type Perceptron struct {
	Epochs int
	Seed   uint64 // epoch e visits the lists in an order drawn from (Seed, e)
}

// perceptronRun is one Fit's state: the weights, the sums for averaging
// (Daumé's trick: u adds t·Δ for the t-th visit, and the average of the
// weights after each visit is w − u/t), the oracle.
type perceptronRun struct {
	set    *Set
	w, u   []float64
	t      int
	oracle []bool
	target []int
}

func newPerceptronRun(set *Set, w []float64) *perceptronRun {
	return &perceptronRun{set: set, w: w, u: make([]float64, len(w)), oracle: set.oracleBest(), target: set.SentenceOracle()}
}

// Fit runs the epochs and leaves the averaged weights in w.
func (p *Perceptron) Fit(ctx context.Context, set *Set, w []float64) error {
	r := newPerceptronRun(set, w)
	for e := range p.Epochs {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, i := range rand.New(rand.NewPCG(p.Seed, uint64(e))).Perm(set.Lists()) {
			if trainable(set, r.oracle, i) {
				r.step(i)
			}
		}
	}
	r.average()
	return nil
}

// average turns w into the average of the weights after each visit.
func (r *perceptronRun) average() {
	if r.t == 0 {
		return
	}
	for id := range r.w {
		r.w[id] -= r.u[id] / float64(r.t)
	}
}

// step visits list i: an update when its best candidate is not
// oracle-best.
func (r *perceptronRun) step(i int) {
	c0, _ := r.set.candidates(i)
	pred := r.set.best(r.w, i)
	if !r.oracle[c0+pred] {
		r.add(c0+r.target[i], 1)
		r.add(c0+pred, -1)
	}
	r.t++
}

// add adds sign times candidate c's features to the weights.
func (r *perceptronRun) add(c int, sign float64) {
	s, t := r.set, float64(r.t)
	d := sign * s.real[c]
	r.w[scoreFeature] += d
	r.u[scoreFeature] += t * d
	for _, id := range s.ids[s.start[c]:s.start[c+1]] {
		r.w[id] += sign
		r.u[id] += t * sign
	}
}

// MaxEnt is a log-linear model over each list, p(j) ∝ exp(w·f_j), trained
// to put its mass on the oracle-best candidates: the loss of a list is
// −log Σ_{j oracle-best} p(j) (Charniak & Johnson 2005), summed, plus
// C2·‖w‖²; L-BFGS minimizes it (framework/optim).
type MaxEnt struct {
	C2            float64
	MaxIterations int
}

// Fit minimizes the objective from w.
func (m *MaxEnt) Fit(ctx context.Context, set *Set, w []float64) error {
	obj := newMaxentObjective(set, m.C2)
	_, err := optim.Minimize(ctx, w, obj.eval, optim.Settings{MaxIterations: m.MaxIterations})
	return err
}

// maxentObjective is one Fit's state: the oracle and per-list scratch.
type maxentObjective struct {
	set    *Set
	c2     float64
	oracle []bool
	score  []float64 // [k] one list's candidate scores, then p(j) − q(j)
}

func newMaxentObjective(set *Set, c2 float64) *maxentObjective {
	return &maxentObjective{set: set, c2: c2, oracle: set.oracleBest()}
}

// eval is the objective at w and its gradient: per list, E_p[f] − E_q[f],
// q being p restricted to the oracle-best candidates.
func (o *maxentObjective) eval(w, grad []float64) float64 {
	set := o.set
	f := 0.0
	for id, v := range w {
		f += o.c2 * v * v
		grad[id] = 2 * o.c2 * v
	}
	for i := range set.Lists() {
		if !trainable(set, o.oracle, i) {
			continue // every candidate oracle-best: zero loss, zero gradient
		}
		f += o.list(w, grad, i)
	}
	return f
}

// list adds list i's gradient to grad and returns its loss.
func (o *maxentObjective) list(w, grad []float64, i int) float64 {
	set := o.set
	c0, k := set.candidates(i)
	o.score = o.score[:0]
	top := math.Inf(-1)
	for j := range k {
		v := set.score(w, c0+j)
		o.score = append(o.score, v)
		top = max(top, v)
	}
	var z, zo float64
	for j, v := range o.score {
		e := math.Exp(v - top)
		o.score[j] = e
		z += e
		if o.oracle[c0+j] {
			zo += e
		}
	}
	for j, e := range o.score {
		d := e / z
		if o.oracle[c0+j] {
			d -= e / zo
		}
		if d == 0 {
			continue
		}
		c := c0 + j
		grad[scoreFeature] += d * set.real[c]
		for _, id := range set.ids[set.start[c]:set.start[c+1]] {
			grad[id] += d
		}
	}
	return math.Log(z) - math.Log(zo)
}
