// loss.go holds NegLogLikelihood: the CRF loss of a gold sequence and its
// gradient with respect to the lattice's scores, for score producers
// (a neural encoder) that back-propagate from the lattice.

package lattice

// ScoreGrad receives the gradient of a loss with respect to a lattice's
// scores (Scores.State, Trans, Start, Stop).
type ScoreGrad struct {
	// State is an [N][L] matrix whose element [i][y] is the derivative
	// with respect to State[i*L+y]. It is overwritten: state scores
	// belong to one sentence.
	State []float64
	// TransAt, for a lattice with per-position transitions
	// (Scores.TransAt), is an [N-1][L*L] matrix whose element
	// [i-1][p*L+c] is the derivative with respect to TransAt's same entry
	// (the bigram p → c into position i), overwritten; nil skips it.
	TransAt []float64
	// Trans ([prev*L+cur], L*L), Start and Stop (L each), when non-nil,
	// are added to: transitions are shared by the sentences of a batch,
	// whose gradients a caller sums.
	Trans, Start, Stop []float64
}

// NegLogLikelihood returns −log P(gold | s) = log Z − score(gold) and
// writes its gradient into g: for the state scores the marginals minus
// the gold indicators, P(y_i = y) − [gold_i = y]; for the transitions,
// start and stop scores the expected counts minus the gold counts. It
// runs forward-backward in w, so w then holds s's marginals. s must be
// first order, allow gold, and N ≥ 1; with per-position transitions, the
// pair marginals minus the gold bigram go to g.TransAt. It allocates
// nothing.
func (w *Workspace) NegLogLikelihood(s *Scores, gold []int32, g *ScoreGrad) float64 {
	if s.Order2 != nil {
		panic("lattice: NegLogLikelihood of a second-order lattice")
	}
	if len(gold) != s.N || s.N == 0 {
		panic("lattice: NegLogLikelihood gold length differs from N, or N is 0")
	}
	logZ := w.ForwardBackward(s)
	nll := logZ - SequenceScore(s, gold)
	n, l := s.N, s.L
	w.StateMarginals(g.State[:n*l])
	if g.Trans != nil {
		w.AddTransMarginals(g.Trans, s, 1)
	}
	if g.Start != nil {
		for y := range l {
			g.Start[y] += g.State[y]
		}
		g.Start[gold[0]]--
	}
	if g.Stop != nil {
		last := g.State[(n-1)*l : n*l]
		for y := range l {
			g.Stop[y] += last[y]
		}
		g.Stop[gold[n-1]]--
	}
	if s.TransAt != nil && g.TransAt != nil {
		ll := l * l
		for i := 1; i < n; i++ {
			row := g.TransAt[(i-1)*ll : i*ll]
			w.PairMarginals(row, s, i)
			row[int(gold[i-1])*l+int(gold[i])]--
		}
	}
	for i, y := range gold {
		g.State[i*l+int(y)]--
		if i > 0 && g.Trans != nil {
			g.Trans[int(gold[i-1])*l+int(y)]--
		}
	}
	return nll
}
