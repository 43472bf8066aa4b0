// checkpoint_test.go checks checkpoints: a run of the tiny encoder stopped
// after some epochs, saved (WriteExact and the optimiser's MarshalState)
// and resumed in a fresh encoder and optimiser ends with the same bits as
// a run never stopped, for Adam and SGD, lazy or not, float32 and float64;
// a state from before the first Step round-trips; every malformed or
// mismatched state or weight block is an error wrapping ErrFormat that
// changes nothing.

package nn

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"
)

// ckptData is the training set: 12 sentences, 3 batches of 4 per epoch.
func ckptData() []*Sentence {
	rng := newRNG(70)
	var data []*Sentence
	for i := range 12 {
		data = append(data, randomSentence(rng, tinyConfig(), 2+i%4))
	}
	return data
}

// settingsOf returns the Settings of an SGD or Adam.
func settingsOf[T Float](o Optimizer[T]) *Settings {
	switch o := o.(type) {
	case *SGD[T]:
		return &o.Settings
	case *Adam[T]:
		return &o.Settings
	}
	panic("unknown optimiser")
}

// trainEpochs trains e with o for epochs [from, to): per epoch 3 batches of
// 4 sentences in 2 shards of 2, dropout seeded by (epoch, sentence), loss
// ½‖scores − target‖² with target 1 at label word mod Labels, then Epoch
// advanced.
func trainEpochs[T Float](e *Encoder[T], o Optimizer[T], data []*Sentence, from, to int) {
	ws := []*Workspace[T]{e.NewWorkspace(), e.NewWorkspace()}
	grads := []*Grads[T]{ws[0].Grads(), ws[1].Grads()}
	pcg := rand.NewPCG(0, 0)
	rng, labels := rand.New(pcg), e.Config.Labels
	for epoch := from; epoch < to; epoch++ {
		for b := 0; b < len(data); b += 4 {
			for k := b; k < b+4; k++ {
				pcg.Seed(uint64(epoch), uint64(k))
				w := ws[(k-b)/2]
				scores, err := w.Forward(data[k], rng)
				if err != nil {
					panic(err)
				}
				d := append([]T(nil), scores...)
				for i := range d {
					if i%labels == int(data[k].Words[i/labels])%labels {
						d[i]--
					}
				}
				w.Backward(d)
			}
			e.Params.Reduce(grads)
			o.Step(e.Params)
		}
		settingsOf(o).Epoch++
	}
}

func exact[T Float](t *testing.T, ps *Params[T]) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := ps.WriteExact(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteExact: %d bytes reported, %d written, error %v", n, buf.Len(), err)
	}
	return buf.Bytes()
}

func marshal[T Float](t *testing.T, o Optimizer[T], ps *Params[T]) []byte {
	t.Helper()
	data, err := o.MarshalState(ps)
	if err != nil {
		t.Fatalf("MarshalState: %v", err)
	}
	return data
}

type ckptCase[T Float] struct {
	name    string
	buffers bool // the optimiser keeps buffers (momentum, moments)
	mk      func() Optimizer[T]
}

// ckptCases are the optimisers checked, with a decaying rate so that the
// epoch matters and clipping so that the norm does.
func ckptCases[T Float]() []ckptCase[T] {
	set := Settings{LearningRate: 0.05, ClipNorm: 1, Decay: 0.3}
	lazy := set
	lazy.Lazy = true
	return []ckptCase[T]{
		{"Adam", true, func() Optimizer[T] { return &Adam[T]{Settings: set} }},
		{"Adam lazy", true, func() Optimizer[T] { return &Adam[T]{Settings: lazy, Beta1: 0.8} }},
		{"SGD momentum", true, func() Optimizer[T] { return &SGD[T]{Settings: set, Momentum: 0.9} }},
		{"SGD momentum lazy", true, func() Optimizer[T] { return &SGD[T]{Settings: lazy, Momentum: 0.5} }},
		{"SGD", false, func() Optimizer[T] { return &SGD[T]{Settings: set} }},
	}
}

func TestCheckpointResume(t *testing.T) {
	t.Run("float32", testResume[float32])
	t.Run("float64", testResume[float64])
}

// testResume trains for total epochs straight, and for at epochs then
// resumed from a checkpoint in a fresh encoder and optimiser, and wants
// the same bits. It also checks the test has teeth: resuming without the
// optimiser's buffers, or (float64) from WriteTo's rounded weights, ends
// elsewhere.
func testResume[T Float](t *testing.T) {
	const total, at = 4, 2
	cfg, data := tinyConfig(), ckptData()
	for _, c := range ckptCases[T]() {
		t.Run(c.name, func(t *testing.T) {
			full := newEncoder[T](t, cfg, 71)
			trainEpochs(full, c.mk(), data, 0, total)
			want := exact(t, full.Params)

			first, o := newEncoder[T](t, cfg, 71), c.mk()
			trainEpochs(first, o, data, 0, at)
			weights, state := exact(t, first.Params), marshal(t, o, first.Params)

			resume := func(load func(*Params[T]) error, restore bool) []byte {
				e, err := NewEncoder[T](cfg)
				if err != nil {
					t.Fatal(err)
				}
				if err := load(e.Params); err != nil {
					t.Fatalf("loading the weights: %v", err)
				}
				o := c.mk()
				if restore {
					if err := o.UnmarshalState(e.Params, state); err != nil {
						t.Fatalf("UnmarshalState: %v", err)
					}
					if got := settingsOf(o).Epoch; got != at {
						t.Fatalf("restored Epoch %d, want %d", got, at)
					}
					if again := marshal(t, o, e.Params); !bytes.Equal(again, state) {
						t.Error("restored state marshals to different bytes")
					}
				} else {
					settingsOf(o).Epoch = at
				}
				trainEpochs(e, o, data, at, total)
				return exact(t, e.Params)
			}
			readExact := func(ps *Params[T]) error { _, err := ps.ReadExact(bytes.NewReader(weights)); return err }
			if !bytes.Equal(resume(readExact, true), want) {
				t.Errorf("resumed after epoch %d: weights after epoch %d differ from the uninterrupted run's", at, total)
			}
			if c.buffers && bytes.Equal(resume(readExact, false), want) {
				t.Error("resuming without the optimiser's buffers gave the same weights: the test checks nothing")
			}
			if widthOf[T]() == 8 {
				rounded := serialise(t, first.Params)
				readFrom := func(ps *Params[T]) error { _, err := ps.ReadFrom(bytes.NewReader(rounded)); return err }
				if bytes.Equal(resume(readFrom, true), want) {
					t.Error("resuming from float32-rounded weights gave the same weights: the test checks nothing")
				}
			}
		})
	}
}

// TestStateBeforeStep: a state marshalled before any Step (no buffers)
// round-trips, restores the epoch, unbinds an optimiser that had stepped,
// and training from it matches training with the original.
func TestStateBeforeStep(t *testing.T) {
	cfg, data := tinyConfig(), ckptData()
	for _, c := range ckptCases[float32]() {
		t.Run(c.name, func(t *testing.T) {
			e := newEncoder[float32](t, cfg, 74)
			o := c.mk()
			settingsOf(o).Epoch = 3
			state := marshal(t, o, e.Params)
			fresh := c.mk()
			if err := fresh.UnmarshalState(e.Params, state); err != nil {
				t.Fatal(err)
			}
			if got := settingsOf(fresh).Epoch; got != 3 {
				t.Errorf("Epoch %d, want 3", got)
			}
			if !bytes.Equal(marshal(t, fresh, e.Params), state) {
				t.Error("into a fresh optimiser: marshals to different bytes")
			}
			used := c.mk()
			trainEpochs(newEncoder[float32](t, cfg, 75), used, data, 0, 1)
			if err := used.UnmarshalState(e.Params, state); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(marshal(t, used, e.Params), state) {
				t.Error("into an optimiser that had stepped: marshals to different bytes (still bound?)")
			}
			a, b := newEncoder[float32](t, cfg, 74), newEncoder[float32](t, cfg, 74)
			trainEpochs(a, o, data, 3, 4)
			trainEpochs(b, used, data, 3, 4)
			if !bytes.Equal(exact(t, a.Params), exact(t, b.Params)) {
				t.Error("training from the restored state differs from training with the original")
			}
		})
	}
}

// TestStateNoAllocs: a restored optimiser has its buffers: Step allocates
// nothing.
func TestStateNoAllocs(t *testing.T) {
	e := newEncoder[float32](t, tinyConfig(), 76)
	g := e.Params.NewGrads()
	g.Row(e.Word.Table, 2)[0] = 1
	g.Dense(e.Out.B)[1] = 1
	e.Params.Reduce([]*Grads[float32]{g})
	for _, c := range ckptCases[float32]() {
		src, dst := c.mk(), c.mk()
		src.Step(e.Params)
		if err := dst.UnmarshalState(e.Params, marshal(t, src, e.Params)); err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(5, func() { dst.Step(e.Params) }); a != 0 {
			t.Errorf("%s: Step after UnmarshalState allocates %v times", c.name, a)
		}
	}
}

// TestMarshalStateOtherParams: marshalling for Params other than those
// the optimiser stepped is an error.
func TestMarshalStateOtherParams(t *testing.T) {
	a, b := newEncoder[float32](t, tinyConfig(), 77), newEncoder[float32](t, tinyConfig(), 77)
	for _, c := range ckptCases[float32]()[:4] {
		o := c.mk()
		trainEpochs(a, o, ckptData()[:4], 0, 1)
		if _, err := o.MarshalState(b.Params); err == nil {
			t.Errorf("%s: MarshalState for another Params: no error", c.name)
		}
	}
}

// patched returns a copy of data with the little-endian v (4 or 8 bytes
// wide) at off.
func patched(data []byte, off int, v uint64, width int) []byte {
	out := append([]byte(nil), data...)
	if width == 4 {
		binary.LittleEndian.PutUint32(out[off:], uint32(v))
	} else {
		binary.LittleEndian.PutUint64(out[off:], v)
	}
	return out
}

func TestStateMismatch(t *testing.T) {
	cfg, data := tinyConfig(), ckptData()
	stateOf := func(c ckptCase[float32]) []byte {
		e, o := newEncoder[float32](t, cfg, 78), c.mk()
		trainEpochs(e, o, data, 0, 1)
		return marshal(t, o, e.Params)
	}
	e64 := newEncoder[float64](t, cfg, 78)
	o64 := ckptCases[float64]()[0].mk()
	trainEpochs(e64, o64, data, 0, 1)
	state64 := marshal(t, o64, e64.Params)
	cases := ckptCases[float32]()
	adam, sgd := stateOf(cases[0]), stateOf(cases[2])
	t.Run("Adam", func(t *testing.T) { checkMismatch(t, cases[0], adam, sgd, state64) })
	t.Run("SGD", func(t *testing.T) { checkMismatch(t, cases[2], sgd, adam, state64) })
}

// badState is a state that must not load into a model of cfg.
type badState struct {
	name string
	cfg  EncoderConfig
	data []byte
}

// checkMismatch loads broken variants of good (a state of c's optimiser
// for tinyConfig), of another kind's state and of a float64 state into a
// trained optimiser of case c, and wants errors wrapping ErrFormat that
// leave it unchanged. Offsets follow the layout on Adam.MarshalState.
func checkMismatch(t *testing.T, c ckptCase[float32], good, otherKind, state64 []byte) {
	other := func(mod func(*EncoderConfig)) EncoderConfig {
		cfg := tinyConfig()
		mod(&cfg)
		return cfg
	}
	same := tinyConfig()
	cases := []badState{
		{"hidden size", other(func(c *EncoderConfig) { c.Hidden = 4 }), good},
		{"one layer", other(func(c *EncoderConfig) { c.Layers = 1 }), good},
		{"column name", other(func(c *EncoderConfig) { c.Extra[0].Name = "tag" }), good},
		{"no char CNN", other(func(c *EncoderConfig) { c.Chars = 0 }), good},
		{"empty", same, nil},
		{"magic only", same, good[:8]},
		{"cut in header", same, good[:20]},
		{"cut in a name", same, good[:45]},
		{"truncated", same, good[:len(good)-3]},
		{"trailing byte", same, append(append([]byte(nil), good...), 0)},
		{"bad magic", same, append([]byte("TRLSNN01"), good[8:]...)},
		{"other kind", same, otherKind},
		{"unknown kind", same, patched(good, 8, 9, 4)},
		{"float64 state", same, state64},
		{"width 8", same, patched(good, 12, 8, 4)},
		{"3 buffers", same, patched(good, 16, 3, 4)},
		{"huge step count", same, patched(good, 28, 1<<63, 8)},
		{"parameter count", same, patched(good, 36, 99, 4)},
		{"huge name size", same, patched(good, 40, 0x7fffffff, 4)},
	}
	if _, ok := c.mk().(*Adam[float32]); ok {
		cases = append(cases,
			badState{"no steps with buffers", same, patched(good, 28, 0, 8)},
			badState{"1 buffer", same, patched(good, 16, 1, 4)})
	} else {
		cases = append(cases, badState{"SGD with steps", same, patched(good, 28, 1, 8)})
	}
	data := ckptData()
	for _, m := range cases {
		e, o := newEncoder[float32](t, m.cfg, 79), c.mk()
		trainEpochs(e, o, data, 0, 1)
		before := marshal(t, o, e.Params)
		err := o.UnmarshalState(e.Params, m.data)
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: error %v, want one wrapping ErrFormat", m.name, err)
		}
		if !bytes.Equal(marshal(t, o, e.Params), before) {
			t.Errorf("%s: a failed UnmarshalState changed the optimiser", m.name)
		}
	}
}

// TestExactRoundTrip: WriteExact/ReadExact keep float64 weights bit for
// bit (WriteTo rounds them), and for float32 hold WriteTo's numbers.
func TestExactRoundTrip(t *testing.T) {
	cfg := tinyConfig()
	src := newEncoder[float64](t, cfg, 80)
	data := exact(t, src.Params)
	dst := newEncoder[float64](t, cfg, 81)
	r := bytes.NewReader(append(append([]byte(nil), data...), "trailer"...))
	n, err := dst.Params.ReadExact(r)
	if err != nil || n != int64(len(data)) || r.Len() != len("trailer") {
		t.Fatalf("ReadExact: %d bytes of %d, %d left, %v", n, len(data), r.Len(), err)
	}
	rounded := 0
	for i, p := range dst.Params.List() {
		for j, v := range p.W {
			w := src.Params.List()[i].W[j]
			if v != w {
				t.Fatalf("%s[%d]: read %v, wrote %v", p.Name, j, v, w)
			}
			if float64(float32(w)) != w {
				rounded++
			}
		}
	}
	if rounded == 0 {
		t.Error("no weight needs float64: the round trip checks nothing")
	}
	s32 := newEncoder[float32](t, cfg, 80)
	if x, f := exact(t, s32.Params), serialise(t, s32.Params); !bytes.Equal(x[12:], f[8:]) {
		t.Error("float32: WriteExact's body differs from WriteTo's")
	}
}

func TestExactMismatch(t *testing.T) {
	cfg := tinyConfig()
	data := exact(t, newEncoder[float64](t, cfg, 82).Params)
	data32 := exact(t, newEncoder[float32](t, cfg, 82).Params)
	hidden := tinyConfig()
	hidden.Hidden = 4
	cases := map[string]struct {
		cfg  EncoderConfig
		data []byte
	}{
		"hidden size":   {hidden, data},
		"float32 block": {cfg, data32},
		"WriteTo block": {cfg, serialise(t, newEncoder[float64](t, cfg, 82).Params)},
		"empty":         {cfg, nil},
		"truncated":     {cfg, data[:len(data)-5]},
		"cut in header": {cfg, data[:10]},
	}
	for name, c := range cases {
		ps := newEncoder[float64](t, c.cfg, 83).Params
		before := exact(t, ps)
		if _, err := ps.ReadExact(bytes.NewReader(c.data)); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: error %v, want one wrapping ErrFormat", name, err)
		}
		if !bytes.Equal(exact(t, ps), before) {
			t.Errorf("%s: a failed ReadExact changed the weights", name)
		}
	}
	ps := newEncoder[float64](t, cfg, 83).Params
	if _, err := ps.ReadFrom(bytes.NewReader(data)); !errors.Is(err, ErrFormat) {
		t.Errorf("ReadFrom of a WriteExact block: error %v, want one wrapping ErrFormat", err)
	}
}
