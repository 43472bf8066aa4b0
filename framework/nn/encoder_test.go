// encoder_test.go checks the whole Encoder: the finite-difference gradient
// of every parameter through the full composition, float32 against
// float64, zero allocations after warm-up, byte-identical gradients
// whatever the number of goroutines, input validation and the FLOP count.

package nn

import (
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// tinyConfig is a small encoder with every part: an extra column, the char
// CNN, two BiLSTM layers and both dropouts.
func tinyConfig() EncoderConfig {
	return EncoderConfig{
		Words: 7, WordDim: 3,
		Extra: []Column{{Name: "pos", Size: 4, Dim: 2}},
		Chars: 6, CharDim: 2, CharFilters: 3, CharWindow: 3,
		Hidden: 3, Layers: 2, Labels: 4,
		InputDropout: 0.25, OutputDropout: 0.2,
	}
}

// randomSentence draws a sentence of n tokens for cfg.
func randomSentence(rng *rand.Rand, cfg EncoderConfig, n int) *Sentence {
	s := &Sentence{Words: make([]int32, n), Chars: make([][]int32, n)}
	for t := range n {
		s.Words[t] = int32(rng.IntN(cfg.Words))
		if cfg.Chars > 0 {
			m := rng.IntN(7) // 0 … 6 characters: empty, shorter than the window, longer
			for range m {
				s.Chars[t] = append(s.Chars[t], int32(rng.IntN(cfg.Chars)))
			}
		}
	}
	for _, col := range cfg.Extra {
		ids := make([]int32, n)
		for t := range ids {
			ids[t] = int32(rng.IntN(col.Size))
		}
		s.Extra = append(s.Extra, ids)
	}
	return s
}

func newEncoder[T Float](t testing.TB, cfg EncoderConfig, seed uint64) *Encoder[T] {
	t.Helper()
	e, err := NewEncoder[T](cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.Params.Init(newRNG(seed))
	return e
}

// TestEncoderGrad checks ∂(Σ E⊙scores)/∂θ for every parameter θ of the
// whole composition by central differences, with dropout on and its masks
// fixed by reseeding the generator before every Forward.
func TestEncoderGrad(t *testing.T) {
	for _, kind := range []CharKind{CharKindCNN, CharKindLSTM} {
		cfg := tinyConfig()
		cfg.CharKind, cfg.CharHidden = kind, 2
		encoderGrad(t, cfg)
	}
}

func encoderGrad(t *testing.T, cfg EncoderConfig) {
	e := newEncoder[float64](t, cfg, 31)
	randomise(e.Params, newRNG(32), 0.5)
	s := randomSentence(newRNG(33), cfg, 5)
	s.Chars[1] = []int32{4} // a one-character word
	s.Chars[2] = nil        // an empty one
	w := e.NewWorkspace()
	fwd := func() []float64 {
		y, err := w.Forward(s, newRNG(34))
		if err != nil {
			t.Fatal(err)
		}
		return y
	}
	y := fwd()
	E := randVec(newRNG(35), len(y), 1)
	w.Backward(E)
	e.Params.Reduce([]*Grads[float64]{w.Grads()})
	for _, p := range e.Params.List() {
		fdCheck(t, p.Name, p.W, p.G, func() float64 { return dot(E, fwd()) }, false)
	}
}

// TestEncoderTransGrad is TestEncoderGrad for an encoder with
// Transitions: a loss that reads both heads, every parameter's gradient
// against finite differences (the bigram head's row 0 given zero weight,
// as BackwardTrans asks).
func TestEncoderTransGrad(t *testing.T) {
	cfg := tinyConfig()
	cfg.Transitions = true
	e := newEncoder[float64](t, cfg, 51)
	randomise(e.Params, newRNG(52), 0.5)
	s := randomSentence(newRNG(53), cfg, 4)
	w := e.NewWorkspace()
	ll := cfg.Labels * cfg.Labels
	var E, F []float64
	loss := func() float64 {
		y, err := w.Forward(s, newRNG(54))
		if err != nil {
			t.Fatal(err)
		}
		return dot(E, y) + dot(F, w.TransScores())
	}
	y, _ := w.Forward(s, newRNG(54))
	E = randVec(newRNG(55), len(y), 1)
	F = randVec(newRNG(56), len(w.TransScores()), 1)
	clear(F[:ll])
	w.BackwardTrans(E, append([]float64(nil), F...))
	e.Params.Reduce([]*Grads[float64]{w.Grads()})
	if e.Params.Lookup("trans.W") == nil {
		t.Fatal("no trans.W parameter")
	}
	for _, p := range e.Params.List() {
		fdCheck(t, p.Name, p.W, p.G, loss, false)
	}
}

// TestEncoderFloat32 runs the float32 path on the float64 model's weights
// (rounded) and checks that its scores and gradients agree to float32
// precision.
func TestEncoderFloat32(t *testing.T) {
	cfg := tinyConfig()
	e32 := newEncoder[float32](t, cfg, 41)
	e64 := newEncoder[float64](t, cfg, 41)
	for i, p := range e32.Params.List() {
		q := e64.Params.List()[i]
		for j, v := range p.W {
			q.W[j] = float64(v)
		}
	}
	rng := newRNG(42)
	w32, w64 := e32.NewWorkspace(), e64.NewWorkspace()
	for range 3 {
		s := randomSentence(rng, cfg, 6)
		y32, err := w32.Forward(s, newRNG(43))
		if err != nil {
			t.Fatal(err)
		}
		y64, _ := w64.Forward(s, newRNG(43))
		E := randVec(rng, len(y64), 1)
		for i := range y64 {
			if math.Abs(float64(y32[i])-y64[i]) > 1e-5 {
				t.Fatalf("score %d: float32 %v, float64 %v", i, y32[i], y64[i])
			}
		}
		w32.Backward(toF32(E))
		w64.Backward(E)
	}
	e32.Params.Reduce([]*Grads[float32]{w32.Grads()})
	e64.Params.Reduce([]*Grads[float64]{w64.Grads()})
	for i, p := range e64.Params.List() {
		var diff, norm float64
		for j, v := range p.G {
			d := float64(e32.Params.List()[i].G[j]) - v
			diff, norm = diff+d*d, norm+v*v
		}
		if rel := math.Sqrt(diff / norm); !(rel < 1e-5) {
			t.Errorf("%s: float32 gradient differs from float64 by %.2g (relative 2-norm)", p.Name, rel)
		}
	}
}

// TestBiLSTMNoAllocs: forward+backward of a BiLSTM allocates nothing once
// its cache has grown to the sentence.
func TestBiLSTMNoAllocs(t *testing.T) {
	ps := &Params[float32]{}
	b := NewBiLSTM(ps, "bi", 20, 16, 2)
	ps.Init(newRNG(51))
	g := ps.NewGrads()
	x := toF32(randVec(newRNG(52), 12*20, 1))
	dy := toF32(randVec(newRNG(53), 12*32, 1))
	var c BiLSTMCache[float32]
	run := func() {
		b.Forward(&c, x)
		b.Backward(&c, g, dy)
	}
	run()
	if a := testing.AllocsPerRun(20, run); a != 0 {
		t.Errorf("BiLSTM forward+backward allocates %v times after warm-up", a)
	}
}

// TestEncoderNoAllocs: a training step of the whole encoder (dropout
// generator reseeded per sentence, forward, backward) allocates nothing
// after warm-up on sentences up to the longest seen.
func TestEncoderNoAllocs(t *testing.T) {
	for _, kind := range []CharKind{CharKindCNN, CharKindLSTM} {
		cfg := tinyConfig()
		cfg.CharKind = kind
		encoderNoAllocs(t, cfg)
	}
}

func encoderNoAllocs(t *testing.T, cfg EncoderConfig) {
	e := newEncoder[float32](t, cfg, 61)
	w := e.NewWorkspace()
	rng := newRNG(62)
	long, short := randomSentence(rng, cfg, 9), randomSentence(rng, cfg, 4)
	pcg := rand.NewPCG(0, 0)
	drop := rand.New(pcg)
	dy := toF32(randVec(rng, 9*cfg.Labels, 1))
	i := uint64(0)
	run := func() {
		for _, s := range []*Sentence{long, short} {
			i++
			pcg.Seed(7, i)
			if _, err := w.Forward(s, drop); err != nil {
				t.Fatal(err)
			}
			w.Backward(dy[:len(s.Words)*cfg.Labels])
		}
	}
	run()
	if a := testing.AllocsPerRun(10, run); a != 0 {
		t.Errorf("encoder training step allocates %v times after warm-up", a)
	}
	sh := []*Grads[float32]{w.Grads()}
	e.Params.Reduce(sh)
	if a := testing.AllocsPerRun(5, func() { run(); e.Params.Reduce(sh) }); a != 0 {
		t.Errorf("Reduce allocates %v times after warm-up", a)
	}
}

// TestParallelDeterministic back-propagates a batch split into four fixed
// shards with one goroutine and with four, and checks that the reduced
// gradients are the same bytes.
func TestParallelDeterministic(t *testing.T) {
	cfg := tinyConfig()
	e := newEncoder[float32](t, cfg, 71)
	rng := newRNG(72)
	var batch []*Sentence
	for range 12 {
		batch = append(batch, randomSentence(rng, cfg, 3+rng.IntN(8)))
	}
	const shards = 4
	ws := make([]*Workspace[float32], shards)
	gs := make([]*Grads[float32], shards)
	for i := range ws {
		ws[i] = e.NewWorkspace()
		gs[i] = ws[i].Grads()
	}
	// runShard back-propagates sentences i, i+shards, … into shard i, with
	// the dropout generator seeded by sentence index.
	runShard := func(i int) {
		for k := i; k < len(batch); k += shards {
			drop := rand.New(rand.NewPCG(1, uint64(k)))
			y, err := ws[i].Forward(batch[k], drop)
			if err != nil {
				panic(err)
			}
			dy := make([]float32, len(y))
			for j := range dy {
				dy[j] = float32(math.Sin(float64(j + k)))
			}
			ws[i].Backward(dy)
		}
	}
	snapshot := func() [][]float32 {
		var out [][]float32
		for _, p := range e.Params.List() {
			out = append(out, append([]float32(nil), p.G...))
		}
		return out
	}
	for i := range shards {
		runShard(i)
	}
	e.Params.Reduce(gs)
	serial := snapshot()
	var wg sync.WaitGroup
	for i := shards - 1; i >= 0; i-- { // started in reverse, finishing in any order
		wg.Go(func() { runShard(i) })
	}
	wg.Wait()
	e.Params.Reduce(gs)
	parallel := snapshot()
	for i, p := range e.Params.List() {
		for j := range p.G {
			if math.Float32bits(serial[i][j]) != math.Float32bits(parallel[i][j]) {
				t.Fatalf("%s[%d]: %v serially, %v in parallel", p.Name, j, serial[i][j], parallel[i][j])
			}
		}
	}
	if e.Params.GradNorm() == 0 {
		t.Fatal("zero gradient: the test says nothing")
	}
}

func TestEncoderInputErrors(t *testing.T) {
	cfg := tinyConfig()
	e := newEncoder[float32](t, cfg, 81)
	w := e.NewWorkspace()
	good := randomSentence(newRNG(82), cfg, 3)
	for name, mutate := range map[string]func(s *Sentence){
		"word ID":        func(s *Sentence) { s.Words[1] = 7 },
		"negative ID":    func(s *Sentence) { s.Words[0] = -1 },
		"missing column": func(s *Sentence) { s.Extra = nil },
		"short column":   func(s *Sentence) { s.Extra[0] = s.Extra[0][:2] },
		"column ID":      func(s *Sentence) { s.Extra[0][2] = 4 },
		"missing chars":  func(s *Sentence) { s.Chars = s.Chars[:2] },
		"character ID":   func(s *Sentence) { s.Chars[0] = []int32{6} },
		"negative char":  func(s *Sentence) { s.Chars[2] = []int32{0, -3} },
	} {
		s := &Sentence{Words: append([]int32(nil), good.Words...), Extra: [][]int32{append([]int32(nil), good.Extra[0]...)}, Chars: append([][]int32(nil), good.Chars...)}
		mutate(s)
		if _, err := w.Forward(s, nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	y, err := w.Forward(&Sentence{Extra: [][]int32{nil}}, nil)
	if err != nil || len(y) != 0 {
		t.Errorf("empty sentence: %v, %v", y, err)
	}
	w.Backward(nil)
	for _, bad := range []EncoderConfig{
		{Words: 0, Labels: 3},
		{Words: 5, Labels: 0},
		{Words: 5, Labels: 3, InputDropout: 1},
		{Words: 5, Labels: 3, Hidden: -1},
		{Words: 5, Labels: 3, Extra: []Column{{Name: "a", Size: 2, Dim: 2}, {Name: "a", Size: 2, Dim: 2}}},
		{Words: 5, Labels: 3, Extra: []Column{{Size: 2, Dim: 2}}},
	} {
		if _, err := NewEncoder[float32](bad); err == nil || !strings.HasPrefix(err.Error(), "nn: ") {
			t.Errorf("config %+v: error %v", bad, err)
		}
	}
}

// TestFLOPsPerToken checks the formula on the benchmark's shape by hand.
func TestFLOPsPerToken(t *testing.T) {
	e := newEncoder[float32](t, benchConfig(), 91)
	fwd, bwd := e.FLOPsPerToken(6)
	// Din = 100 + 30; conv 6·2·3·30·30; LSTM 2·(2·130·400 + 2·100·400); out 2·200·9.
	conv, dense := 6*2*3*30*30.0, 2*(2*130*400+2*100*400.0)+2*200*9.0
	if fwd != conv+dense || bwd != 2*dense+4*3*30*30 {
		t.Errorf("FLOPsPerToken = %v, %v; want %v, %v", fwd, bwd, conv+dense, 2*dense+4*3*30*30)
	}
}

// TestNumParams: NumParams counts the weights NewEncoder allocates, for
// encoders with and without columns, characters, layers and transitions.
func TestNumParams(t *testing.T) {
	for _, c := range []EncoderConfig{
		{Words: 7, Labels: 3},
		{Words: 9, WordDim: 5, Chars: 6, CharDim: 3, CharFilters: 4, CharWindow: 2, Hidden: 3, Layers: 2, Labels: 4},
		{Words: 9, WordDim: 5, Chars: 6, CharKind: CharKindLSTM, CharDim: 3, CharHidden: 2, Hidden: 3, Layers: 2, Labels: 4},
		{Words: 9, WordDim: 5, Extra: []Column{{Name: "pos", Size: 4, Dim: 2}}, Hidden: 3, Labels: 4, Transitions: true},
	} {
		e, err := NewEncoder[float32](c)
		if err != nil {
			t.Fatal(err)
		}
		n, err := c.NumParams()
		if err != nil || n != int64(e.Params.Size()) {
			t.Errorf("%+v: NumParams %d (%v), the encoder has %d", c, n, err, e.Params.Size())
		}
	}
}
