package tagger

import (
	"math"
	"slices"

	"github.com/trellis-nlp/trellis/framework/corpus"
)

// Marginals returns, for each sentence of the batch, P(y_i = y | sentence)
// for every token i and every label y (in the order of Model.Labels), from
// forward-backward over the lattice Tag decodes: the same constraints, and
// the same unconstrained fallback when they forbid every path, so the
// marginals describe the distribution whose most probable sequence Tag
// returns under Viterbi decoding (greedy, beam and posterior decoding pick
// other sequences from the same lattice). For
// learners that are not probabilistic (see Probabilistic) they are the
// normalized exponentiated scores, as CRFsuite reports for its
// non-probabilistic trainers. A latent model's marginal of a label is the
// sum of its hidden states' marginals: exact, unlike its decoded path.
func (t *Tagger) Marginals(sents []*corpus.Sentence) ([][][]float64, error) {
	if t.joint != nil {
		return nil, ErrJointDetail
	}
	if t.trans != nil {
		return nil, ErrTransitionDetail
	}
	if t.rr != nil {
		return nil, ErrRerankDetail
	}
	t.enc.Reset()
	if err := t.encode(sents); err != nil {
		return nil, err
	}
	data := t.enc.Dataset()
	l := len(t.Model.Labels)
	lm := t.Model.Linear
	states := make([]float64, 0, lm.NumLabels)
	out := make([][][]float64, len(sents))
	for k := range sents {
		t.lattice(&t.scores, data, k)
		sc := t.scores
		n := sc.N
		if n == 0 {
			out[k] = [][]float64{}
			continue
		}
		for logZ := t.ws.ForwardBackward(&sc); math.IsInf(logZ, -1) && t.relax.Relax(&sc); {
			logZ = t.ws.ForwardBackward(&sc)
		}
		flat := make([]float64, n*l)
		if lm.States() == 1 {
			t.ws.StateMarginals(flat)
		} else {
			states = slices.Grow(states[:0], n*lm.NumLabels)[:n*lm.NumLabels]
			t.ws.StateMarginals(states)
			lm.SumStates(flat, states)
		}
		rows := make([][]float64, n)
		for i := range rows {
			rows[i] = flat[i*l : (i+1)*l : (i+1)*l]
		}
		out[k] = rows
	}
	return out, nil
}
