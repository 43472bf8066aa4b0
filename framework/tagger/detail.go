package tagger

import (
	"math"
	"slices"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/lattice"
)

// Decoded is what the detailed decoding modes return for one sentence.
type Decoded struct {
	// Paths are the label sequences, best first: one for Viterbi, up to k
	// for n-best (fewer when the sentence has fewer allowed sequences).
	// They are in the scheme the tagger emits (the corpus's); a model
	// trained in an encoding ranks its paths in that encoding, so two
	// paths may read the same once converted when decoding is
	// unconstrained (ill-formed paths convert to the chunks conlleval
	// would count).
	Paths [][]string
	// Scores are the paths' linear scores; Probabilities their
	// probabilities under the model, exp(score - log Z).
	Scores        []float64
	Probabilities []float64
	// Marginals[i] is P(y_i = Paths[0][i]), from forward-backward. For a
	// model trained in an encoding it is the marginal of the label the
	// best path has at i in that encoding (say P(y_i = E-PER), printed as
	// I-PER in IOB1): the probability the model assigns, not a sum over
	// the encoded labels that convert to the same output label.
	Marginals []float64
}

// TagDetailed decodes a batch with the k best paths (k >= 1), their
// probabilities and the per-token marginals of the best one. The
// probabilities are normalized over the same lattice the paths are drawn
// from, constraints included. With k = 1 the path is the one the tagger's
// decoding method finds; n-best is Viterbi's. It is slower than Tag, which
// the plain tagging path uses.
//
// For a latent model (hidden states) the paths are the label sequences of
// the best state paths, duplicates dropped: ranked by their best state
// path, as Tag decodes, and up to k of those among the k·states best state
// paths (fewer when many state paths share a labelling). Their Scores and
// Probabilities are exact all the same: the log of the summed exp(score)
// of every state path with that labelling (forward-backward with the other
// states forbidden) and its probability, and Marginals[i] sums the states
// of the label at i.
func (t *Tagger) TagDetailed(sents []*corpus.Sentence, k int) ([]Decoded, error) {
	if t.joint != nil {
		return nil, ErrJointDetail
	}
	if t.trans != nil {
		return nil, ErrTransitionDetail
	}
	if t.rr != nil {
		return nil, ErrRerankDetail
	}
	return t.detailed(sents, k, true)
}

// detailed is TagDetailed; without probabilities (full false) it leaves
// out Probabilities and Marginals, and their forward-backward pass (what
// reranking reads: the paths and their scores).
func (t *Tagger) detailed(sents []*corpus.Sentence, k int, probabilities bool) ([]Decoded, error) {
	if k < 1 {
		k = 1
	}
	t.enc.Reset()
	if err := t.encode(sents); err != nil {
		return nil, err
	}
	data := t.enc.Dataset()
	out := make([]Decoded, len(sents))
	lm := t.Model.Linear
	kStates := k * lm.States()
	paths := make([][]int32, kStates)
	scores := make([]float64, kStates)
	for j, s := range sents {
		t.lattice(&t.scores, data, j)
		sc := t.scores
		found := t.best(paths, scores, &sc, k, kStates)
		for found == 0 && t.relax.Relax(&sc) {
			// No allowed path: loosen the lattice, as Tag does.
			found = t.best(paths, scores, &sc, k, kStates)
		}
		if lm.States() > 1 {
			found = t.labelPaths(paths, scores, &sc, found, k)
		}
		d := Decoded{}
		if !probabilities {
			for r := 0; r < found; r++ {
				d.Paths = append(d.Paths, t.labelStrings(paths[r]))
				d.Scores = append(d.Scores, scores[r])
			}
			out[j] = d
			continue
		}
		logZ := t.ws.ForwardBackward(&sc)
		for r := 0; r < found; r++ {
			d.Paths = append(d.Paths, t.labelStrings(paths[r]))
			d.Scores = append(d.Scores, scores[r])
			d.Probabilities = append(d.Probabilities, probability(scores[r], logZ))
		}
		if found > 0 {
			d.Marginals = make([]float64, s.Len())
			for i, y := range paths[0] {
				d.Marginals[i] = t.labelMarginal(i, y)
			}
		}
		out[j] = d
	}
	return out, nil
}

// labelStrings returns a label path's names, in the scheme the tagger
// emits, in a new slice.
func (t *Tagger) labelStrings(path []int32) []string {
	labels := make([]string, len(path))
	for i, y := range path {
		labels[i] = t.Model.Labels[y]
	}
	return t.output(labels)
}

// best finds the kStates best paths of sc with n-best Viterbi (kStates is
// k times a latent model's states per label, k for any other model), or,
// when one path is asked for (k = 1) and the tagger decodes another way
// (Options.Decode), that method's path; it returns how many it found.
func (t *Tagger) best(paths [][]int32, scores []float64, sc *lattice.Scores, k, kStates int) int {
	if t.dec.Method == lattice.DecodeViterbi || k > 1 {
		return t.ws.NBest(paths, scores, sc, kStates)
	}
	if cap(paths[0]) < sc.N {
		paths[0] = make([]int32, sc.N)
	}
	paths[0] = paths[0][:sc.N]
	if scores[0] = t.dec.Decode(paths[0], sc); math.IsInf(scores[0], -1) {
		return 0
	}
	return 1
}

// labelPaths maps the first found state paths of sc to label paths in
// place, keeping the first of each labelling (at most k of them) with its
// exact score: log Σ exp(score) over the state paths with those labels. It
// returns how many it kept. It runs forward-backward in t.ws.
func (t *Tagger) labelPaths(paths [][]int32, scores []float64, sc *lattice.Scores, found, k int) int {
	lm := t.Model.Linear
	kept := 0
	for r := 0; r < found && kept < k; r++ {
		lm.ToLabels(paths[r])
		if slices.ContainsFunc(paths[:kept], func(p []int32) bool { return slices.Equal(p, paths[r]) }) {
			continue
		}
		paths[kept], paths[r] = paths[r], paths[kept]
		scores[kept] = t.clampedLogZ(sc, paths[kept])
		kept++
	}
	return kept
}

// clampedLogZ is log Σ exp(score) over the state paths of sc whose states
// belong to labels (lattice.Workspace.LabelsLogZ).
func (t *Tagger) clampedLogZ(sc *lattice.Scores, labels []int32) float64 {
	t.clamped = slices.Grow(t.clamped[:0], sc.N*sc.L)[:sc.N*sc.L]
	return t.ws.LabelsLogZ(t.clamped, sc, labels, t.Model.Linear.States())
}

// labelMarginal is P(y_i = y) from the last forward-backward: the sum of
// y's states' marginals for a latent model.
func (t *Tagger) labelMarginal(i int, y int32) float64 {
	h := t.Model.Linear.States()
	p := 0.0
	for s := int(y) * h; s < int(y+1)*h; s++ {
		p += t.ws.StateMarginal(i, s)
	}
	return p
}

func probability(score, logZ float64) float64 {
	if math.IsInf(logZ, -1) {
		return 0
	}
	return math.Exp(score - logZ)
}
