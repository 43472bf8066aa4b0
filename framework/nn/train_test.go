// train_test.go trains a tiny Embedding+BiLSTM+Linear tagger with Adam on
// a task that needs left context — is this token the same as the one
// before? — and requires the loss to fall and held-out accuracy to beat
// by far what a model without context can reach.

package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// toyTagger is the network under test, a float32 production-path model.
type toyTagger struct {
	ps  *Params[float32]
	emb *Embedding[float32]
	bi  *BiLSTM[float32]
	out *Linear[float32]
	ec  EmbeddingCache[float32]
	bc  BiLSTMCache[float32]
	lc  LinearCache[float32]
	dy  []float32
}

func newToyTagger(vocab int) *toyTagger {
	ps := &Params[float32]{}
	m := &toyTagger{ps: ps, emb: NewEmbedding(ps, "emb", vocab, 8)}
	m.bi = NewBiLSTM(ps, "bi", 8, 8, 1)
	m.out = NewLinear(ps, "out", 16, 2)
	ps.Init(newRNG(1))
	return m
}

// step runs the sentence and returns the summed cross-entropy and the
// number of correct tokens; with g non-nil it back-propagates into g.
func (m *toyTagger) step(words []int32, gold []int, g *Grads[float32]) (loss float64, correct int) {
	x := m.emb.Forward(&m.ec, words)
	h := m.bi.Forward(&m.bc, x)
	y := m.out.Forward(&m.lc, h)
	m.dy = grow(m.dy, len(y))
	for t, want := range gold {
		a, b := float64(y[2*t]), float64(y[2*t+1])
		mx := math.Max(a, b)
		z := math.Exp(a-mx) + math.Exp(b-mx)
		p1 := math.Exp(b-mx) / z
		loss -= math.Log(map[bool]float64{true: p1, false: 1 - p1}[want == 1])
		if (b > a) == (want == 1) {
			correct++
		}
		m.dy[2*t], m.dy[2*t+1] = float32(1-p1), float32(p1)
		m.dy[2*t+want]--
	}
	if g != nil {
		m.emb.Backward(&m.ec, g, m.bi.Backward(&m.bc, g, m.out.Backward(&m.lc, g, m.dy)))
	}
	return loss, correct
}

// repeats draws n sentences over vocab tokens labelled 1 where a token
// equals the one before it.
func repeats(rng *rand.Rand, n, vocab int) (sents [][]int32, labels [][]int) {
	for range n {
		s := make([]int32, 6+rng.IntN(9))
		l := make([]int, len(s))
		for t := range s {
			s[t] = int32(rng.IntN(vocab))
			if t > 0 && s[t] == s[t-1] {
				l[t] = 1
			}
		}
		sents, labels = append(sents, s), append(labels, l)
	}
	return sents, labels
}

func TestTrainRepeats(t *testing.T) {
	const vocab = 5 // a token repeats with probability 1/5: "never" scores 80%
	rng := newRNG(2)
	train, trainGold := repeats(rng, 300, vocab)
	test, testGold := repeats(rng, 100, vocab)
	m := newToyTagger(vocab)
	g := m.ps.NewGrads()
	opt := &Adam[float32]{Settings: Settings{LearningRate: 0.02, ClipNorm: 5}}
	evaluate := func(sents [][]int32, gold [][]int) (loss, acc float64) {
		var c, n int
		for i, s := range sents {
			l, k := m.step(s, gold[i], nil)
			loss, c, n = loss+l, c+k, n+len(s)
		}
		return loss / float64(n), float64(c) / float64(n)
	}
	first, _ := evaluate(train, trainGold)
	var loss, acc float64
	for epoch := range 30 {
		for i := range train {
			m.step(train[i], trainGold[i], g)
			if i%8 == 7 || i == len(train)-1 {
				m.ps.Reduce([]*Grads[float32]{g})
				opt.Step(m.ps)
			}
		}
		loss, _ = evaluate(train, trainGold)
		_, acc = evaluate(test, testGold)
		if acc >= 0.99 && loss < first/10 {
			t.Logf("epoch %d: train loss %.4f (from %.4f), held-out accuracy %.4f", epoch, loss, first, acc)
			return
		}
	}
	t.Errorf("after 30 epochs: train loss %.4f (from %.4f), held-out accuracy %.4f; want < %.4f and ≥ 0.99",
		loss, first, acc, first/10)
}
