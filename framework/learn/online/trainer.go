package online

import (
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// Trainer holds an online learner's state: current weights w, the
// timestamped sums u of the averaging trick, and decoding buffers. A Rule
// changes the weights only through Add, AddState and AddTransitions, which
// keep the sums and the decoding copy of the transitions in step.
type Trainer struct {
	m           *linear.Model
	d           *feature.Dataset
	nl          int
	transitions bool
	rule        Rule
	w, u        []float64
	// c counts the sentences seen (the timestamp).
	c float64
	// updates counts the sentences whose update changed the weights.
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
	// Delta's buffers: the sum per weight, whether a weight is in the
	// list, and the list (distinct indices, first-touched order).
	acc   []float64
	seen  []bool
	feats []int32
	vals  []float64
}

func newTrainer(m *linear.Model, p *learn.Problem, rule Rule) *Trainer {
	nl := p.NumLabels
	t := &Trainer{
		m: m, d: p.Train, nl: nl, transitions: p.Transitions, rule: rule,
		w: make([]float64, len(m.W)), u: make([]float64, len(m.W)), c: 1,
		ws: lattice.NewWorkspace(nl),
	}
	t.scorer = m.InPlaceScorer(t.w)
	// The decoding transitions start at zero, whether or not the model
	// has a transition template, and then at w's when it has one.
	zero := make([]float64, nl*nl)
	t.chain = lattice.NewChain(zero, zero[:nl], zero[:nl], p.Constraints)
	if m.SecondOrder() {
		// The trigram weights are read from w in place.
		t.chain.SetOrder2(m.Order2(), m.TrigramWeights(t.w))
	}
	t.chain.Attach(&t.sc)
	// A continued model (init_model) starts from its weights w0. The
	// averaging sums start at c·w0 (c = 1) as if w0 had been added at the
	// first step, so that Result averages this run's weights, w0 + the
	// updates so far, and is w0 before any step.
	copy(t.w, m.W)
	copy(t.u, m.W)
	if t.transitions {
		nf := m.NumFeatures()
		for f := nf; f < m.PairBase(); f++ {
			t.Add(f, 0)
		}
	}
	return t
}

// Step decodes sentence s and, where it errs, lets the rule update the
// weights. It returns the number of mislabelled tokens and the sentence
// length.
func (t *Trainer) Step(s int) (errors, n int) {
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
		}
	}
	if errors > 0 && t.rule.Update(t, lo, gold, path, errors) {
		t.updates++
	}
	t.c++
	return errors, n
}

// W returns the current weights (read only: change them through Add).
func (t *Trainer) W() []float64 { return t.w }

// Transitions reports whether the model has transition, start and stop
// weights (a transition template).
func (t *Trainer) Transitions() bool { return t.transitions }

// Add adds delta to weight f, keeping the averaging sums and, for a
// transition, start or stop weight, the decoding chain (which keeps it
// -Inf if the scheme forbids it) in step.
func (t *Trainer) Add(f int, delta float64) {
	t.w[f] += delta
	t.u[f] += t.c * delta
	nf, l := t.m.NumFeatures(), t.nl
	switch k := f - nf; {
	case k < 0:
	case k < l*l:
		t.chain.SetTrans(k/l, k%l, t.w[f])
	case k < l*l+l:
		t.chain.SetStart(k-l*l, t.w[f])
	case k < l*l+2*l:
		t.chain.SetStop(k-l*l-l, t.w[f])
	default:
		// A trigram or a pair feature: the chain and the scorer read them
		// from w in place.
	}
}

// AddPairs adds the gold sequence's pair features (input-conditioned
// transitions, linear.Model.PairOff) and subtracts the predicted ones at
// every position whose bigram differs, for the sentence whose first
// token is tok0. It reports whether it changed a weight.
func (t *Trainer) AddPairs(tok0 int, gold, pred []int32) (changed bool) {
	if t.m.PairOff == nil {
		return false
	}
	d := t.d
	for i := 1; i < len(gold); i++ {
		if gold[i-1] == pred[i-1] && gold[i] == pred[i] {
			continue
		}
		tok := tok0 + i
		for k := d.TokenOff[tok]; k < d.TokenOff[tok+1]; k++ {
			v := d.Value(k)
			if f := t.m.PairFeature(d.Attrs[k], gold[i-1], gold[i]); f >= 0 {
				t.Add(f, v)
				changed = changed || v != 0
			}
			if f := t.m.PairFeature(d.Attrs[k], pred[i-1], pred[i]); f >= 0 {
				t.Add(f, -v)
				changed = changed || v != 0
			}
		}
	}
	return changed
}

// AddState adds delta times token tok's attribute values to the features
// (attribute, y); features the model lacks are skipped, as in CRFsuite
// (they stay zero). It reports whether it changed a weight.
func (t *Trainer) AddState(tok int, y int32, delta float64) (changed bool) {
	d := t.d
	for k := d.TokenOff[tok]; k < d.TokenOff[tok+1]; k++ {
		if f := t.m.Feature(d.Attrs[k], y); f >= 0 {
			v := delta * d.Value(k)
			t.w[f] += v
			t.u[f] += t.c * v
			changed = changed || v != 0
		}
	}
	return changed
}

// AddTransitions adds the gold sequence's transition, start and stop
// features and subtracts the predicted ones, where they differ (the
// perceptron's update). When gold and path differ anywhere, some start,
// transition or stop weight differs and changes.
func (t *Trainer) AddTransitions(gold, path []int32) {
	t.transitionDiff(gold, path, t.Add)
}

// transitionDiff calls add(f, +1) for each start, transition and stop
// feature of gold and add(f, -1) for path's, where the two differ, in one
// fixed order (start, transitions by position, stop, then a second-order
// model's trigrams by position): AddTransitions applies them, Delta
// collects them.
func (t *Trainer) transitionDiff(gold, path []int32, add func(f int, v float64)) {
	l, n := t.nl, len(gold)
	f := t.m.NumFeatures()
	if gold[0] != path[0] {
		add(f+l*l+int(gold[0]), 1)
		add(f+l*l+int(path[0]), -1)
	}
	for i := 1; i < n; i++ {
		gp, gc, pp, pc := int(gold[i-1]), int(gold[i]), int(path[i-1]), int(path[i])
		if gp != pp || gc != pc {
			add(f+gp*l+gc, 1)
			add(f+pp*l+pc, -1)
		}
	}
	if gold[n-1] != path[n-1] {
		add(f+l*l+l+int(gold[n-1]), 1)
		add(f+l*l+l+int(path[n-1]), -1)
	}
	if t.m.SecondOrder() {
		t.trigramDiff(gold, path, add)
	}
}

// trigramDiff is transitionDiff's part for the trigrams, closing ones
// included, at each position where gold's and path's differ. A trigram
// the model lacks (a path may close with one) has no weight to change.
func (t *Trainer) trigramDiff(gold, path []int32, add func(f int, v float64)) {
	for i := 1; i <= len(gold); i++ {
		g, p := lattice.TrigramAt(gold, i), lattice.TrigramAt(path, i)
		if g == p {
			continue
		}
		if f := t.m.Trigram(g); f >= 0 {
			add(f, 1)
		}
		if f := t.m.Trigram(p); f >= 0 {
			add(f, -1)
		}
	}
}

// Delta returns Δ = Φ(gold) − Φ(pred) for the sentence whose first token
// is tok0: the weights whose features differ between the two sequences
// (distinct indices, in the order first met: state features position by
// position, then start, transitions, stop, then pair features) and the
// difference of their values, exact zeros left out. The slices are reused by the next call.
func (t *Trainer) Delta(tok0 int, gold, pred []int32) (feats []int32, vals []float64) {
	if t.acc == nil {
		t.acc, t.seen = make([]float64, len(t.w)), make([]bool, len(t.w))
	}
	t.feats = t.feats[:0]
	d := t.d
	for i := range gold {
		if gold[i] == pred[i] {
			continue // the two sequences' state features cancel here
		}
		tok := tok0 + i
		for k := d.TokenOff[tok]; k < d.TokenOff[tok+1]; k++ {
			v := d.Value(k)
			if f := t.m.Feature(d.Attrs[k], gold[i]); f >= 0 {
				t.collect(f, v)
			}
			if f := t.m.Feature(d.Attrs[k], pred[i]); f >= 0 {
				t.collect(f, -v)
			}
		}
	}
	if t.transitions {
		t.transitionDiff(gold, pred, t.collect)
	}
	if t.m.PairOff != nil {
		for i := 1; i < len(gold); i++ {
			if gold[i-1] == pred[i-1] && gold[i] == pred[i] {
				continue
			}
			tok := tok0 + i
			for k := d.TokenOff[tok]; k < d.TokenOff[tok+1]; k++ {
				v := d.Value(k)
				if f := t.m.PairFeature(d.Attrs[k], gold[i-1], gold[i]); f >= 0 {
					t.collect(f, v)
				}
				if f := t.m.PairFeature(d.Attrs[k], pred[i-1], pred[i]); f >= 0 {
					t.collect(f, -v)
				}
			}
		}
	}
	// Gather the sums and reset the buffers for the next call.
	t.vals = t.vals[:0]
	kept := t.feats[:0]
	for _, f := range t.feats {
		v := t.acc[f]
		t.acc[f], t.seen[f] = 0, false
		if v != 0 {
			kept = append(kept, f)
			t.vals = append(t.vals, v)
		}
	}
	t.feats = kept
	return t.feats, t.vals
}

func (t *Trainer) collect(f int, v float64) {
	if !t.seen[f] {
		t.seen[f] = true
		t.feats = append(t.feats, int32(f))
	}
	t.acc[f] += v
}

// Dot returns Σ w[f]·v over a Delta: the gold sequence's score minus the
// predicted one's under the current weights.
func (t *Trainer) Dot(feats []int32, vals []float64) float64 {
	s := 0.0
	for k, f := range feats {
		s += t.w[f] * vals[k]
	}
	return s
}

// Result writes the averaged (or last) weights into dst. After T
// sentences the average of the T weight vectors is ((T+1)·w - u) / T,
// u having summed each update times the timestamp it was made at.
func (t *Trainer) Result(dst []float64, average bool) {
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
