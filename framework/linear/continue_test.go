package linear

import (
	"math/rand/v2"
	"testing"
)

// TestContinue checks the continued structure feature by feature against
// both models: every feature of either is in it, those of init with
// init's weight, all others zero; transitions, start and stop are init's
// for init's labels and zero for the new ones.
func TestContinue(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	init := NewObserved(randomData(r, false), 6, 3, true)
	for i := range init.W {
		init.W[i] = r.NormFloat64()
	}
	// The new data has 2 more attributes and one more label.
	d := randomData(r, false)
	for k := range d.Attrs {
		d.Attrs[k] = int32(r.IntN(8))
	}
	for k := range d.Labels {
		d.Labels[k] = int32(r.IntN(4))
	}
	m := NewObserved(d, 8, 4, true)
	out, err := Continue(init, m)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Validate(); err != nil || !out.Sorted() {
		t.Fatalf("invalid or unsorted structure: %v", err)
	}
	want := 0
	for a := int32(0); a < 8; a++ {
		for y := int32(0); y < 4; y++ {
			fi, fm, fo := -1, m.Feature(a, y), out.Feature(a, y)
			if a < 6 && y < 3 {
				fi = init.Feature(a, y)
			}
			switch {
			case (fi >= 0 || fm >= 0) != (fo >= 0):
				t.Errorf("feature (%d, %d): in init %v, in m %v, continued %v", a, y, fi >= 0, fm >= 0, fo >= 0)
			case fi >= 0 && out.W[fo] != init.W[fi]:
				t.Errorf("feature (%d, %d) weight %v, want init's %v", a, y, out.W[fo], init.W[fi])
			case fi < 0 && fo >= 0 && out.W[fo] != 0:
				t.Errorf("new feature (%d, %d) weight %v, want 0", a, y, out.W[fo])
			}
			if fo >= 0 {
				want++
			}
		}
	}
	if out.NumFeatures() != want {
		t.Errorf("%d features, want %d", out.NumFeatures(), want)
	}
	for p := 0; p < 4; p++ {
		for c := 0; c < 4; c++ {
			w := 0.0
			if p < 3 && c < 3 {
				w = init.Trans()[p*3+c]
			}
			if got := out.Trans()[p*4+c]; got != w {
				t.Errorf("transition %d→%d is %v, want %v", p, c, got, w)
			}
		}
		w0, w1 := 0.0, 0.0
		if p < 3 {
			w0, w1 = init.Start()[p], init.Stop()[p]
		}
		if out.Start()[p] != w0 || out.Stop()[p] != w1 {
			t.Errorf("start/stop of %d: %v %v, want %v %v", p, out.Start()[p], out.Stop()[p], w0, w1)
		}
	}
	noTrans := NewObserved(d, 8, 4, false)
	pt, err := Continue(init, noTrans)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range pt.W[pt.NumFeatures():] {
		if w != 0 {
			t.Fatal("a model without transitions got the continued model's transition weights")
		}
	}
	if _, err := Continue(m, init); err == nil {
		t.Error("continuing a larger model on a smaller structure: no error")
	}
}
