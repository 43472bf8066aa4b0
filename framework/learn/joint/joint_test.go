package joint

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/linear"
	"github.com/trellis-nlp/trellis/framework/neural"
	"github.com/trellis-nlp/trellis/framework/nn"
)

// toy draws sentences over words a…e whose label (0, 1, 2) is 1 when the
// word repeats the previous one, 2 after a label 1 (so the CRF's
// transitions matter), else 0: context no single word gives.
func toy(r *rand.Rand, n int) (sents []*corpus.Sentence, labels [][]int32) {
	words := []string{"a", "b", "c", "d", "e"}
	for range n {
		s := &corpus.Sentence{}
		var ys []int32
		prev := ""
		for i := range 3 + r.IntN(5) {
			w := words[r.IntN(len(words))]
			if i > 0 && r.IntN(3) == 0 {
				w = prev
			}
			y := int32(0)
			switch {
			case i > 0 && w == prev:
				y = 1
			case i > 0 && ys[i-1] == 1:
				y = 2
			}
			s.Tokens = append(s.Tokens, []string{w})
			ys = append(ys, y)
			prev = w
		}
		sents, labels = append(sents, s), append(labels, ys)
	}
	return sents, labels
}

// attrs: one attribute per word (a sparse emission template), or none.
func dataset(sents []*corpus.Sentence, labels [][]int32, sparse bool) *feature.Dataset {
	d := feature.NewDataset()
	for k, s := range sents {
		for i, tok := range s.Tokens {
			if sparse {
				d.Attrs = append(d.Attrs, int32(tok[0][0]-'a'))
			}
			d.TokenOff = append(d.TokenOff, len(d.Attrs))
			d.Labels = append(d.Labels, labels[k][i])
		}
		d.SentOff = append(d.SentOff, len(d.Labels))
	}
	return d
}

func tinyConfig() neural.Config {
	zero, patience := 0.0, 5
	c := neural.Config{WordDim: 4, CharDim: 3, CharFilters: 3, CharWindow: 3, Hidden: 5, Dropout: &zero,
		UnknownReplace: &zero, Epochs: 40, BatchSize: 4, LearningRate: 0.02, Patience: &patience}
	if d := c.Resolve(func(string) *hcl.Range { return nil }); d.HasErrors() {
		panic(d)
	}
	return c
}

// problem builds a learn.Problem with an encoder over sents.
func problem(t *testing.T, sents []*corpus.Sentence, labels [][]int32, sparse bool, cfg neural.Config, threads int) (*learn.Problem, *linear.Model) {
	t.Helper()
	in := neural.Input{Word: 0}
	vocab, counts := neural.BuildVocab(sents, in, cfg.Lowercase, *cfg.ZeroDigits, cfg.MinCount)
	net, err := neural.New(neural.Header{Config: cfg, Vocab: vocab, WordColumn: "word", Labels: 3})
	if err != nil {
		t.Fatal(err)
	}
	net.Init(7)
	enc := &learn.Encoder{Net: net, Counts: counts, Train: make([]neural.Encoded, len(sents))}
	for k, s := range sents {
		vocab.Encode(&enc.Train[k], s, in)
	}
	d := dataset(sents, labels, sparse)
	attrs := 0
	if sparse {
		attrs = 5
	}
	p := &learn.Problem{Train: d, NumAttrs: attrs, NumLabels: 3, Transitions: true, Seed: 3, Threads: threads,
		Log: zerolog.Nop(), Encoder: enc}
	m, err := learn.StartModel("", p)
	if err != nil {
		t.Fatal(err)
	}
	return p, m
}

// TestGradient checks the gradient the trainer takes for a sentence —
// every network weight, the sparse state and pair weights and the
// transitions —
// against central finite differences of the same loss computed
// independently in float64: an nn.Encoder[float64] with the network's
// weights, its scores added to the templates' state scores, and the
// lattice's log-likelihood. It also checks that the gradient the encoder
// receives is the lattice's marginals minus gold.
func TestGradient(t *testing.T) {
	t.Run("state features", func(t *testing.T) { checkGradient(t, nil, neural.Plain) })
	// A character BiLSTM instead of the CNN.
	t.Run("char bilstm", func(t *testing.T) { checkGradient(t, nil, neural.Plain, neural.CharBiLSTM) })
	// Words a and c also score label bigrams (input-conditioned
	// transitions: per-position transition scores in the lattice).
	t.Run("pair features", func(t *testing.T) { checkGradient(t, []bool{true, false, true, false, false}, neural.Plain) })
	// The network's bigram scores too (transition = "conditioned"), with
	// and without pair features beside them.
	t.Run("conditioned", func(t *testing.T) { checkGradient(t, nil, neural.Conditioned) })
	t.Run("conditioned and pairs", func(t *testing.T) { checkGradient(t, []bool{true, false, true, false, false}, neural.Conditioned) })
}

// checkGradient is TestGradient for one setting; char, when given, is the
// character encoder (the CNN otherwise).
func checkGradient(t *testing.T, pairs []bool, transition string, char ...string) {
	sents, labels := toy(rand.New(rand.NewPCG(1, 1)), 6)
	cfg := tinyConfig()
	cfg.Transition = transition
	if len(char) > 0 {
		cfg.Char, cfg.CharHidden = char[0], 3
	}
	p, m := problem(t, sents, labels, true, cfg, 1)
	if pairs != nil {
		p.Pairs = pairs
		var err error
		if m, err = learn.StartModel("", p); err != nil {
			t.Fatal(err)
		}
		if m.NumPairs() == 0 {
			t.Fatal("no pair features: the test tests nothing")
		}
	}
	r := rand.New(rand.NewPCG(2, 2))
	for f := range m.W {
		m.W[f] = r.NormFloat64() * 0.5
	}
	tr, err := newTrainer(p, m, CRF, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	sh := tr.shards[0]
	const k = 3 // a a a c c: state features, and pair features of a and c
	if _, err := sh.sentence(tr, 1, k); err != nil {
		t.Fatal(err)
	}
	checkMarginals(t, sh)
	ref := newReference(t, tr, k)
	// The float32 network's gradient against float64 finite differences.
	for _, par := range tr.net.Enc.Params.List() {
		g := gradOf(sh.nn.Grads(), par)
		ref64 := ref.enc.Params.Lookup(par.Name)
		for i := range ref64.W {
			fd := ref.fd(&ref64.W[i])
			if math.Abs(fd-float64(g[i])) > 1e-3*math.Max(1, math.Abs(fd)) {
				t.Fatalf("%s[%d]: gradient %v, finite difference %v", par.Name, i, g[i], fd)
			}
		}
	}
	lin := sh.linG.Dense(tr.lin.List()[0])
	for f := range m.W {
		fd := ref.fd(&ref.w[f])
		if math.Abs(fd-lin[f]) > 1e-3*math.Max(1, math.Abs(fd)) {
			t.Fatalf("linear weight %d: gradient %v, finite difference %v", f, lin[f], fd)
		}
	}
}

// gradOf is parameter par's gradient in g, dense.
func gradOf(g *nn.Grads[float32], par *nn.Param[float32]) []float32 {
	if !par.Sparse {
		return g.Dense(par)
	}
	out := make([]float32, len(par.W))
	for r := range par.Rows() {
		copy(out[r*par.Cols():], g.Row(par, r))
	}
	return out
}

// checkMarginals checks the state gradient of the shard's last sentence
// against marginals minus gold from a forward-backward of its lattice.
func checkMarginals(t *testing.T, sh *shard) {
	t.Helper()
	n, l := sh.sc.N, sh.sc.L
	ws := lattice.NewWorkspace(l)
	ws.ForwardBackward(&sh.sc)
	marg := make([]float64, n*l)
	ws.StateMarginals(marg)
	for i := range n {
		for y := range l {
			want := marg[i*l+y]
			if sh.g.State[i*l+y] != want && sh.g.State[i*l+y] != want-1 {
				t.Fatalf("state gradient [%d][%d] = %v, marginal %v", i, y, sh.g.State[i*l+y], want)
			}
		}
	}
}

// reference is the loss of one sentence in float64, for finite
// differences.
type reference struct {
	t     *testing.T
	enc   *nn.Encoder[float64]
	ws    *nn.Workspace[float64]
	m     *linear.Model
	w     []float64
	data  *feature.Dataset
	k     int
	input *nn.Sentence
}

func newReference(t *testing.T, tr *trainer, k int) *reference {
	enc, err := nn.NewEncoder[float64](tr.net.Enc.Config)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := tr.net.Enc.Params.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := enc.Params.ReadFrom(&buf); err != nil {
		t.Fatal(err)
	}
	return &reference{t: t, enc: enc, ws: enc.NewWorkspace(), m: tr.m, w: append([]float64(nil), tr.m.W...),
		data: tr.p.Train, k: k, input: &tr.p.Encoder.Train[k].Sentence}
}

// loss is the sentence's negative log-likelihood under the current
// weights.
func (r *reference) loss() float64 {
	var sc lattice.Scores
	r.m.Lattice(&sc, r.w, r.data, r.k)
	scores, err := r.ws.Forward(r.input, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	for j, v := range scores {
		sc.State[j] += v
	}
	if tr := r.ws.TransScores(); tr != nil {
		ll := sc.L * sc.L
		if sc.TransAt == nil {
			sc.TransAt = make([]float64, (sc.N-1)*ll)
		}
		for j := range sc.TransAt {
			sc.TransAt[j] += tr[ll+j]
		}
	}
	lo, hi := r.data.Sentence(r.k)
	g := lattice.ScoreGrad{State: make([]float64, len(sc.State))}
	return lattice.NewWorkspace(sc.L).NegLogLikelihood(&sc, r.data.Labels[lo:hi], &g)
}

// fd is the central finite difference of the loss in *x.
func (r *reference) fd(x *float64) float64 {
	const h = 1e-5
	v := *x
	*x = v + h
	up := r.loss()
	*x = v - h
	down := r.loss()
	*x = v
	return (up - down) / (2 * h)
}

// accuracy is the token accuracy of m with net on sents (Viterbi).
func accuracy(t *testing.T, m *linear.Model, net *neural.Network, sents []*corpus.Sentence, labels [][]int32, sparse bool) float64 {
	t.Helper()
	add, err := net.NewAdder([]string{"word"})
	if err != nil {
		t.Fatal(err)
	}
	d := dataset(sents, labels, sparse)
	ws := lattice.NewWorkspace(m.NumLabels)
	var sc lattice.Scores
	right, all := 0, 0
	for k, s := range sents {
		m.Lattice(&sc, m.W, d, k)
		if err := add.Add(&sc, s); err != nil {
			t.Fatal(err)
		}
		path := make([]int32, sc.N)
		ws.Viterbi(path, &sc)
		for i, y := range path {
			if y == labels[k][i] {
				right++
			}
			all++
		}
	}
	return float64(right) / float64(all)
}

// TestTrain trains the BiLSTM-CRF and the BiLSTM-softmax on the toy task
// (which no single word's features solve) with a dev set: both learn it,
// the model kept is the best epoch's, and 1 and 3 threads give the same
// bytes.
func TestTrain(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	train, trainY := toy(r, 150)
	dev, devY := toy(r, 40)
	var first []byte
	for _, c := range []struct {
		out     Output
		threads int
	}{{CRF, 1}, {CRF, 3}, {Softmax, 2}} {
		cfg := tinyConfig()
		p, m := problem(t, train, trainY, false, cfg, c.threads)
		if c.out == Softmax {
			p.Transitions = false
			var err error
			if m, err = learn.StartModel("", p); err != nil {
				t.Fatal(err)
			}
		}
		net := p.Encoder.Net
		p.DevScore = func(m *linear.Model) float64 { return accuracy(t, m, net, dev, devY, false) }
		res, err := Train(context.Background(), p, m, c.out, Settings{C2: 0.1})
		if err != nil {
			t.Fatal(err)
		}
		acc := accuracy(t, res.Model, res.Network, dev, devY, false)
		if acc < 0.95 || acc != res.Info["best_dev_score"] {
			t.Fatalf("output %d: dev accuracy %v (best dev score %v), want at least 0.95 and equal", c.out, acc, res.Info["best_dev_score"])
		}
		w, err := res.Network.Weights()
		if err != nil {
			t.Fatal(err)
		}
		w = append(w, linearBytes(res.Model.W)...)
		switch {
		case c.out == CRF && first == nil:
			first = w
		case c.out == CRF && !bytes.Equal(first, w):
			t.Fatalf("threads %d: the weights differ from 1 thread's", c.threads)
		}
	}
}

func linearBytes(w []float64) []byte {
	var b []byte
	for _, v := range w {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// TestResume interrupts training after epoch 2 (a checkpoint saved every
// epoch) and resumes from it in a new trainer: the model and network end
// with the bytes of the uninterrupted run, and the curve is replayed.
func TestResume(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	train, trainY := toy(r, 60)
	dev, devY := toy(r, 20)
	run := func(resume []byte, keep *[][]byte) ([]byte, int) {
		cfg := tinyConfig()
		cfg.Epochs = 6
		drop := 0.3
		cfg.Dropout = &drop
		p, m := problem(t, train, trainY, true, cfg, 2)
		net := p.Encoder.Net
		p.DevScore = func(m *linear.Model) float64 { return accuracy(t, m, net, dev, devY, true) }
		p.Checkpoints = &learn.Checkpoints{Every: 1, Resume: resume, Save: func(b []byte) error {
			if keep != nil {
				*keep = append(*keep, b)
			}
			return nil
		}}
		points := 0
		p.Observe = func(learn.Point) { points++ }
		res, err := Train(context.Background(), p, m, CRF, Settings{C2: 1})
		if err != nil {
			t.Fatal(err)
		}
		w, err := res.Network.Weights()
		if err != nil {
			t.Fatal(err)
		}
		return append(w, linearBytes(res.Model.W)...), points
	}
	var states [][]byte
	whole, points := run(nil, &states)
	if len(states) < 2 {
		t.Fatalf("%d checkpoints saved, want at least 2", len(states))
	}
	resumed, replayed := run(states[1], nil)
	if !bytes.Equal(whole, resumed) {
		t.Fatal("the resumed run's weights differ from the uninterrupted run's")
	}
	if replayed != points {
		t.Fatalf("resumed run observed %d points, the uninterrupted %d", replayed, points)
	}
	if _, err := Train(context.Background(), func() *learn.Problem {
		p, _ := problem(t, train, trainY, true, tinyConfig(), 1)
		p.Checkpoints = &learn.Checkpoints{Every: 1, Resume: []byte("{}")}
		return p
	}(), func() *linear.Model { _, m := problem(t, train, trainY, true, tinyConfig(), 1); return m }(), CRF, Settings{}); err == nil {
		t.Fatal("a checkpoint of another shape was accepted")
	}
}
