package tagger

import (
	"math"

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
func (t *Tagger) TagDetailed(sents []*corpus.Sentence, k int) ([]Decoded, error) {
	if k < 1 {
		k = 1
	}
	t.enc.Reset()
	if err := t.enc.Encode(sents); err != nil {
		return nil, err
	}
	data := t.enc.Dataset()
	out := make([]Decoded, len(sents))
	paths := make([][]int32, k)
	scores := make([]float64, k)
	for j, s := range sents {
		t.scorer.Lattice(&t.scores, data, j)
		sc := t.scores
		found := t.best(paths, scores, &sc, k)
		if found == 0 {
			// Constraints the labels cannot satisfy: fall back to the
			// unconstrained lattice, as Tag does.
			t.free.Attach(&sc)
			found = t.best(paths, scores, &sc, k)
		}
		logZ := t.ws.ForwardBackward(&sc)
		d := Decoded{}
		for r := 0; r < found; r++ {
			labels := make([]string, s.Len())
			for i, y := range paths[r] {
				labels[i] = t.Model.Labels[y]
			}
			d.Paths = append(d.Paths, t.output(labels))
			d.Scores = append(d.Scores, scores[r])
			d.Probabilities = append(d.Probabilities, probability(scores[r], logZ))
		}
		if found > 0 {
			d.Marginals = make([]float64, s.Len())
			for i, y := range paths[0] {
				d.Marginals[i] = t.ws.StateMarginal(i, int(y))
			}
		}
		out[j] = d
	}
	return out, nil
}

// best finds the k best paths of sc with n-best Viterbi, or, when the
// tagger decodes another way (Options.Decode, with k = 1), that method's
// path; it returns how many it found.
func (t *Tagger) best(paths [][]int32, scores []float64, sc *lattice.Scores, k int) int {
	if t.dec.Method == lattice.DecodeViterbi || k > 1 {
		return t.ws.NBest(paths, scores, sc, k)
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

func probability(score, logZ float64) float64 {
	if math.IsInf(logZ, -1) {
		return 0
	}
	return math.Exp(score - logZ)
}
