package tagger

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
)

// Explanation decomposes the score of one sentence's predicted labels into
// the terms the lattice adds up: per token, the state features that fire
// for its label, the transition from the previous label, and the start and
// stop terms. The Score of every token summed gives the sentence's Score,
// which is lattice.SequenceScore of the predicted path on the lattice the
// tagger decoded (constraints included).
type Explanation struct {
	Labels []string           `json:"labels"`
	Score  float64            `json:"score"`
	Tokens []TokenExplanation `json:"tokens"`
}

// TokenExplanation is one token's share of the sentence score.
type TokenExplanation struct {
	Label string `json:"label"`
	// HiddenState is the hidden state of a latent model's path at this token
	// ("B-NP#1"), whose weights the features and transitions are; empty
	// for other models.
	HiddenState string `json:"hidden_state,omitempty"`
	// Score is State + Encoder + Trans + Start + Stop + Trigram +
	// StopTrigram (those present).
	Score float64 `json:"score"`
	// State is the sum of the contributions of every state feature of the
	// token for Label.
	State float64 `json:"state"`
	// Features are the largest contributions by absolute value (all of
	// them when Explain was asked for no limit), largest first; Rest is
	// the sum of the others and RestCount how many they are. Features
	// whose contribution is exactly 0 (weight 0, or no weight for Label)
	// are left out of both.
	Features  []Contribution `json:"features"`
	Rest      float64        `json:"rest"`
	RestCount int            `json:"rest_count"`
	// Encoder is the network's label score of the token for Label (a
	// model with a neural encoder; nil otherwise).
	Encoder *float64 `json:"encoder,omitempty"`
	// Trans is the transition score from the previous predicted label
	// (nil on the first token, and for models without transitions),
	// input-conditioned transitions included.
	Trans *float64 `json:"transition,omitempty"`
	// TransFeatures are the input-conditioned transitions in Trans: the
	// pair features (templates with labels = "bigram") of the token's
	// attributes for the bigram from the previous label, in attribute
	// order, those whose contribution is exactly 0 left out. Trans minus
	// their sum is the transition weight itself.
	TransFeatures []Contribution `json:"transition_features,omitempty"`
	// Start and Stop are set on the first and last token of a model with
	// transitions.
	Start *float64 `json:"start,omitempty"`
	Stop  *float64 `json:"stop,omitempty"`
	// Trigram, for a second-order model, is the weight of the trigram
	// into this token (the two labels before it, ⟨s⟩ before the first
	// label; unset on the first token), and StopTrigram, on the last
	// token, the weight of the trigram that closes the sentence (0 when
	// the model never saw it).
	Trigram     *float64 `json:"trigram,omitempty"`
	StopTrigram *float64 `json:"stop_trigram,omitempty"`
	// RunnerUp is the best other label for this token with its neighbours'
	// labels (a latent model: states) fixed, and Margin how much lower that sequence scores than the
	// predicted one. Both are unset when every other label is forbidden
	// there (constrained decoding) or the model has one label.
	RunnerUp string   `json:"runner_up,omitempty"`
	Margin   *float64 `json:"margin,omitempty"`
	// Marginal is P(y_i = Label | sentence) from forward-backward, for
	// models whose scores are log-probabilities up to normalization (CRF
	// and HMM; a latent CRF's sums the label's states); nil for the
	// perceptron.
	Marginal *float64 `json:"marginal,omitempty"`
}

// Contribution is one state feature's term in a token's score.
type Contribution struct {
	Attr   string  `json:"attribute"`
	Value  float64 `json:"value"`
	Weight float64 `json:"weight"`
	// Score is Value × Weight.
	Score float64 `json:"contribution"`
}

// Probabilistic reports whether the model's learner makes scores whose
// normalized exponentials are probabilities, so that marginals mean
// something: its type says so (learn.CanMarginals, asked of
// Options.Learners).
func (t *Tagger) Probabilistic() bool { return t.probabilistic }

// Explain decodes a batch exactly as Tag does (same lattice, same
// constraints, same fallback) and explains each sentence's predicted
// labels, keeping the top contributions of each token (top <= 0: all).
func (t *Tagger) Explain(sents []*corpus.Sentence, top int) ([]Explanation, error) {
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
	out := make([]Explanation, len(sents))
	for k := range sents {
		out[k] = t.explain(data, k, top)
	}
	return out, nil
}

// explain decodes sentence k of data and decomposes its path's score.
func (t *Tagger) explain(data *feature.Dataset, k, top int) Explanation {
	path := t.decodeStates(data, k) // states: the lattice's terms
	sc := t.decoded                 // the lattice the path was found in
	n := sc.N
	ex := Explanation{Labels: make([]string, n), Score: lattice.SequenceScore(&sc, path), Tokens: make([]TokenExplanation, n)}
	var marginal func(i int, y int32) float64
	if t.Probabilistic() && n > 0 {
		t.ws.ForwardBackward(&sc)
		marginal = t.labelMarginal
	}
	lm := t.Model.Linear
	start, _ := data.Sentence(k)
	net := t.networkScores(k, n)
	for i, y := range path {
		te := t.explainToken(data, start+i, int(y), top)
		if lm.States() > 1 {
			te.HiddenState = t.Model.StateName(int(y))
		}
		ex.Labels[i] = te.Label
		te.Score = te.State
		if net != nil {
			te.Encoder = ptr(net[i*sc.L+int(y)])
			te.Score += *te.Encoder
		}
		transitions := t.Model.Linear.Transitions
		if i > 0 && (transitions || transAt(&sc, i, int(path[i-1]), int(y)) != 0) {
			te.Trans = ptr(transAt(&sc, i, int(path[i-1]), int(y)))
			te.Score += *te.Trans
			te.TransFeatures = t.pairContributions(data, start+i, path[i-1], y)
		}
		if i == 0 && (transitions || sc.Start[y] != 0) {
			te.Start = ptr(sc.Start[y])
			te.Score += *te.Start
		}
		if i == n-1 && (transitions || sc.Stop[y] != 0) {
			te.Stop = ptr(sc.Stop[y])
			te.Score += *te.Stop
		}
		if lm.SecondOrder() {
			t.explainTrigrams(&te, path, i)
		}
		if alt, score := runnerUp(&sc, path, i, lm.States()); alt >= 0 {
			te.RunnerUp = t.Model.Labels[lm.LabelOf(int32(alt))]
			te.Margin = ptr(local(&sc, path, i, int(y)) - score)
		}
		if marginal != nil {
			te.Marginal = ptr(marginal(i, lm.LabelOf(y)))
		}
		ex.Tokens[i] = te
	}
	return ex
}

// networkScores is the network's [N][L] label scores of sentence k of the
// batch, nil without a network.
func (t *Tagger) networkScores(k, n int) []float64 {
	if t.net == nil {
		return nil
	}
	l := t.Model.Linear.NumLabels
	// A lattice of the network's scores alone, with a TransAt of its own
	// (the adder's buffer may be the decoded lattice's).
	sc := lattice.Scores{N: n, L: l, State: make([]float64, n*l), TransAt: make([]float64, max(n-1, 0)*l*l)}
	if err := t.net.Add(&sc, t.batch[k]); err != nil {
		panic(fmt.Sprintf("tagger: network: %v", err)) // as in lattice
	}
	return sc.State
}

// explainTrigrams sets a second-order model's trigram weights of token i
// of path and adds them to its score.
func (t *Tagger) explainTrigrams(te *TokenExplanation, path []int32, i int) {
	lm := t.Model.Linear
	n := len(path)
	weight := func(tg lattice.Trigram) float64 {
		if f := lm.Trigram(tg); f >= 0 {
			return lm.W[f]
		}
		return 0
	}
	if i > 0 {
		te.Trigram = ptr(weight(lattice.TrigramAt(path, i)))
		te.Score += *te.Trigram
	}
	if i == n-1 {
		te.StopTrigram = ptr(weight(lattice.TrigramAt(path, n)))
		te.Score += *te.StopTrigram
	}
}

// pairContributions lists the pair features of token tok's attributes
// for the bigram prev → y.
func (t *Tagger) pairContributions(data *feature.Dataset, tok int, prev, y int32) []Contribution {
	lm := t.Model.Linear
	if lm.PairOff == nil {
		return nil
	}
	var out []Contribution
	for k := data.TokenOff[tok]; k < data.TokenOff[tok+1]; k++ {
		a := data.Attrs[k]
		if f := lm.PairFeature(a, prev, y); f >= 0 {
			if v, w := data.Value(k), lm.W[f]; v*w != 0 {
				out = append(out, Contribution{Attr: t.Model.Attrs[a], Value: v, Weight: w, Score: v * w})
			}
		}
	}
	return out
}

// explainToken lists the state contributions of token tok for label y.
func (t *Tagger) explainToken(data *feature.Dataset, tok, y, top int) TokenExplanation {
	lm := t.Model.Linear
	te := TokenExplanation{Label: t.Model.Labels[lm.LabelOf(int32(y))]}
	var all []Contribution
	for k := data.TokenOff[tok]; k < data.TokenOff[tok+1]; k++ {
		a := data.Attrs[k]
		f := lm.Feature(a, int32(y))
		if f < 0 {
			continue
		}
		v, w := data.Value(k), lm.W[f]
		// Summed in attribute order, as the Scorer sums them.
		te.State += v * w
		if v*w != 0 {
			all = append(all, Contribution{Attr: t.Model.Attrs[a], Value: v, Weight: w, Score: v * w})
		}
	}
	slices.SortStableFunc(all, func(a, b Contribution) int { return cmp.Compare(math.Abs(b.Score), math.Abs(a.Score)) })
	if top > 0 && len(all) > top {
		for _, c := range all[top:] {
			te.Rest += c.Score
		}
		te.RestCount = len(all) - top
		all = all[:top]
	}
	te.Features = all
	return te
}

// local is the part of path's score that depends on position i's label,
// with i's label replaced by y: its state score, the transitions into and
// out of it, and start or stop at the ends.
func local(s *lattice.Scores, path []int32, i, y int) float64 {
	if s.Order2 != nil {
		// Label i enters three trigrams: score the whole path instead,
		// with y in place for the call.
		old := path[i]
		path[i] = int32(y)
		v := lattice.SequenceScore(s, path)
		path[i] = old
		return v
	}
	v := s.State[i*s.L+y]
	if i == 0 {
		v += s.Start[y]
	} else {
		v += transAt(s, i, int(path[i-1]), y)
	}
	if i == s.N-1 {
		v += s.Stop[y]
	} else {
		v += transAt(s, i+1, y, int(path[i+1]))
	}
	return v
}

// runnerUp returns the label other than path[i] that scores best at i with
// the other labels of path fixed, and its local score; -1 when every other
// label is forbidden (-Inf). The lattice's labels are states of h per label
// (1 but for a latent model), and the runner-up is a state of another
// label.
func runnerUp(s *lattice.Scores, path []int32, i, h int) (int, float64) {
	best, bestScore := -1, math.Inf(-1)
	for y := 0; y < s.L; y++ {
		if y/h == int(path[i])/h {
			continue
		}
		if v := local(s, path, i, y); v > bestScore {
			best, bestScore = y, v
		}
	}
	return best, bestScore
}

// transAt is the score of the bigram prev → cur into position i, per-
// position transitions included, as lattice.SequenceScore adds it.
func transAt(s *lattice.Scores, i, prev, cur int) float64 {
	v := s.Trans[prev*s.L+cur]
	if s.TransAt != nil {
		v += s.TransAt[(i-1)*s.L*s.L+prev*s.L+cur]
	}
	return v
}

func ptr(v float64) *float64 { return &v }
