// layers_test.go checks every layer's gradients — input and parameters —
// against central finite differences in float64, and the dropout mask.

package nn

import (
	"math"
	"testing"
)

func TestLinearGrad(t *testing.T) {
	ps := &Params[float64]{}
	l := NewLinear(ps, "lin", 4, 3)
	randomise(ps, newRNG(1), 0.5)
	x := randVec(newRNG(2), 5*4, 1)
	var c LinearCache[float64]
	checkLayer(t, ps, x,
		func() []float64 { return l.Forward(&c, x) },
		func(g *Grads[float64], dy []float64) []float64 { return l.Backward(&c, g, dy) })
}

func TestEmbeddingGradRepeatedIDs(t *testing.T) {
	ps := &Params[float64]{}
	e := NewEmbedding(ps, "emb", 6, 3)
	ps.Init(newRNG(1))
	ids := []int32{2, 0, 2, 5, 2}
	var c EmbeddingCache[float64]
	checkLayer(t, ps, nil,
		func() []float64 { return e.Forward(&c, ids) },
		func(g *Grads[float64], dy []float64) []float64 { e.Backward(&c, g, dy); return nil })
	touched := e.Table.Touched()
	if len(touched) != 3 || touched[0] != 2 || touched[1] != 0 || touched[2] != 5 {
		t.Errorf("touched rows %v, want [2 0 5]", touched)
	}
	for _, r := range []int{1, 3, 4} {
		for _, v := range e.Table.G[r*3 : (r+1)*3] {
			if v != 0 {
				t.Errorf("row %d was not used but has gradient %v", r, v)
			}
		}
	}
}

func TestLSTMGrad(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n       int
		reverse bool
	}{{"T1", 1, false}, {"T5", 5, false}, {"reverse_T1", 1, true}, {"reverse_T5", 5, true}} {
		t.Run(tc.name, func(t *testing.T) {
			ps := &Params[float64]{}
			l := NewLSTM(ps, "lstm", 3, 4, tc.reverse)
			randomise(ps, newRNG(3), 0.6)
			x := randVec(newRNG(4), tc.n*3, 1)
			var c LSTMCache[float64]
			var zero []string
			if tc.n == 1 {
				zero = []string{"lstm.Wh"} // no recurrence in one step
			}
			checkLayer(t, ps, x,
				func() []float64 { return l.Forward(&c, x) },
				func(g *Grads[float64], dy []float64) []float64 { return l.Backward(&c, g, dy) }, zero...)
		})
	}
}

// TestLSTMReverseIsMirror checks that the reversed LSTM on x is the forward
// LSTM on x reversed, read backwards: the direction is right to left.
func TestLSTMReverseIsMirror(t *testing.T) {
	ps := &Params[float64]{}
	f := NewLSTM(ps, "f", 2, 3, false)
	ps.Init(newRNG(5))
	r := *f
	r.Reverse = true
	n := 4
	x := randVec(newRNG(6), n*2, 1)
	xr := make([]float64, len(x))
	for i := range n {
		copy(xr[i*2:(i+1)*2], x[(n-1-i)*2:(n-i)*2])
	}
	var cf, cr LSTMCache[float64]
	hf := f.Forward(&cf, xr)
	hr := r.Forward(&cr, x)
	for i := range n {
		for j := range 3 {
			if a, b := hr[i*3+j], hf[(n-1-i)*3+j]; a != b {
				t.Fatalf("h[%d][%d] = %v reversed, %v mirrored forward", i, j, a, b)
			}
		}
	}
}

func TestBiLSTMGradTwoLayers(t *testing.T) {
	ps := &Params[float64]{}
	b := NewBiLSTM(ps, "bi", 3, 2, 2)
	randomise(ps, newRNG(7), 0.6)
	x := randVec(newRNG(8), 4*3, 1)
	var c BiLSTMCache[float64]
	checkLayer(t, ps, x,
		func() []float64 { return b.Forward(&c, x) },
		func(g *Grads[float64], dy []float64) []float64 { return b.Backward(&c, g, dy) })
}

func TestCharCNNGrad(t *testing.T) {
	// A 6-char word, one shorter than the window, a one-char word, a word
	// with a repeated character, and an empty word.
	words := [][]int32{{1, 2, 3, 4, 5, 6}, {7, 1}, {3}, {2, 2, 5}, {}}
	for _, window := range []int{1, 3, 4, 5} {
		t.Run("window"+string(rune('0'+window)), func(t *testing.T) {
			ps := &Params[float64]{}
			cn := NewCharCNN(ps, "char", 8, 3, 4, window)
			randomise(ps, newRNG(9), 0.7)
			var c CharCNNCache[float64]
			checkLayer(t, ps, nil,
				func() []float64 { return cn.Forward(&c, words) },
				func(g *Grads[float64], dy []float64) []float64 { cn.Backward(&c, g, dy); return nil })
		})
	}
}

// TestCharLSTMGrad checks the char LSTM's weights and character
// embeddings by finite differences, on words of many lengths, a repeated
// character and an empty word.
func TestCharLSTMGrad(t *testing.T) {
	words := [][]int32{{1, 2, 3, 4, 5, 6}, {7, 1}, {3}, {2, 2, 5}, {}}
	ps := &Params[float64]{}
	cl := NewCharLSTM(ps, "char", 8, 3, 4)
	randomise(ps, newRNG(11), 0.7)
	var c CharLSTMCache[float64]
	checkLayer(t, ps, nil,
		func() []float64 { return cl.Forward(&c, words) },
		func(g *Grads[float64], dy []float64) []float64 { cl.Backward(&c, g, dy); return nil })
}

// TestCharLSTMStates: a word's vector is the forward LSTM's last state
// and the backward LSTM's first, as the two LSTMs give them on the word
// alone; an empty word reads one zero vector.
func TestCharLSTMStates(t *testing.T) {
	ps := &Params[float64]{}
	cl := NewCharLSTM(ps, "char", 5, 2, 3)
	randomise(ps, newRNG(12), 0.7)
	var c CharLSTMCache[float64]
	out := cl.Forward(&c, [][]int32{{1, 4, 2}, {}})
	x := append(append(append([]float64(nil), cl.Emb.Row(1)...), cl.Emb.Row(4)...), cl.Emb.Row(2)...)
	var fc, bc LSTMCache[float64]
	hf, hb := cl.Fwd.Forward(&fc, x), cl.Bwd.Forward(&bc, x)
	want := append(append([]float64(nil), hf[2*3:]...), hb[:3]...)
	hf0, hb0 := cl.Fwd.Forward(&fc, make([]float64, 2)), cl.Bwd.Forward(&bc, make([]float64, 2))
	want = append(append(want, hf0...), hb0...)
	for i := range want {
		if out[i] != want[i] {
			t.Fatalf("out[%d] = %v, want %v", i, out[i], want[i])
		}
	}
}

// TestCharCNNPadding checks the windows directly: a one-char word under a
// window of 3 is [pad, c, pad], so its features are tanh(b + K's middle
// slot · E[c]).
func TestCharCNNPadding(t *testing.T) {
	ps := &Params[float64]{}
	cn := NewCharCNN(ps, "char", 4, 2, 3, 3)
	randomise(ps, newRNG(10), 0.7)
	var c CharCNNCache[float64]
	out := cn.Forward(&c, [][]int32{{2}, {}})
	e := cn.Emb.Row(2)
	for f := range 3 {
		k := cn.K.Row(f)
		want := math.Tanh(cn.B.W[f] + k[2]*e[0] + k[3]*e[1])
		if math.Abs(out[f]-want) > 1e-15 {
			t.Errorf("one-char word, filter %d: %v, want %v", f, out[f], want)
		}
		if want := math.Tanh(cn.B.W[f]); out[3+f] != want {
			t.Errorf("empty word, filter %d: %v, want tanh(bias) %v", f, out[3+f], want)
		}
	}
}

func TestDropout(t *testing.T) {
	d := Dropout[float64]{P: 0.3}
	x := randVec(newRNG(11), 20000, 1)
	var c DropoutCache[float64]
	if y := d.Forward(&c, x, nil); &y[0] != &x[0] {
		t.Error("inference dropout is not the identity")
	}
	if dy := d.Backward(&c, x); &dy[0] != &x[0] {
		t.Error("inference dropout backward is not the identity")
	}
	y := d.Forward(&c, x, newRNG(12))
	dropped := 0
	for i := range x {
		switch {
		case y[i] == 0:
			dropped++
		case math.Abs(y[i]-x[i]/0.7) > 1e-15:
			t.Fatalf("kept element %d is %v, want %v/0.7", i, y[i], x[i])
		}
	}
	if frac := float64(dropped) / float64(len(x)); math.Abs(frac-0.3) > 0.015 {
		t.Errorf("dropped %.3f of the elements, want 0.3", frac)
	}
	y2 := append([]float64(nil), d.Forward(&DropoutCache[float64]{}, x, newRNG(12))...)
	for i := range y {
		if y[i] != y2[i] {
			t.Fatal("the same seed gave a different mask")
		}
	}
	// Gradient with the mask fixed by reseeding before every Forward.
	x = x[:50]
	checkLayer(t, &Params[float64]{}, x,
		func() []float64 { return d.Forward(&c, x, newRNG(13)) },
		func(_ *Grads[float64], dy []float64) []float64 { return d.Backward(&c, dy) })
}
