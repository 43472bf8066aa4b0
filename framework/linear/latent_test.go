package linear

import (
	"slices"
	"testing"

	"github.com/trellis-nlp/trellis/framework/lattice"
)

// TestLatentHelpers checks the state-to-label helpers of a model with 2
// hidden states per label, and that a plain model's are the identity.
func TestLatentHelpers(t *testing.T) {
	m := New(6, []int32{0}, nil, true)
	m.HiddenStates = 2
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if m.States() != 2 || m.NumOutputLabels() != 3 || m.LabelOf(5) != 2 || m.LabelOf(2) != 1 {
		t.Fatalf("states %d, labels %d, label of 5 %d", m.States(), m.NumOutputLabels(), m.LabelOf(5))
	}
	path := []int32{0, 3, 5, 2}
	m.ToLabels(path)
	if !slices.Equal(path, []int32{0, 1, 2, 1}) {
		t.Fatalf("ToLabels gives %v", path)
	}
	dst := make([]float64, 3)
	m.SumStates(dst, []float64{0.1, 0.2, 0.3, 0.05, 0.25, 0.1})
	for y, want := range []float64{0.3, 0.35, 0.35} {
		if d := dst[y] - want; d > 1e-15 || d < -1e-15 {
			t.Fatalf("SumStates gives %v", dst)
		}
	}
	// Label 1 may not follow label 0, start or end; every state of label 1
	// inherits that.
	c := &lattice.Constraints{Trans: []bool{true, false, true, true, true, true, true, true, true},
		Start: []bool{true, false, true}, Stop: []bool{true, true, false}}
	sc := m.StateConstraints(c)
	for p := 0; p < 6; p++ {
		if sc.Start[p] != c.Start[p/2] || sc.Stop[p] != c.Stop[p/2] {
			t.Fatalf("state %d: start/stop not its label's", p)
		}
		for q := 0; q < 6; q++ {
			if sc.Trans[p*6+q] != c.Trans[(p/2)*3+q/2] {
				t.Fatalf("bigram %d→%d not its labels'", p, q)
			}
		}
	}
	plain := New(3, []int32{0}, nil, true)
	if plain.StateConstraints(c) != c || plain.NumOutputLabels() != 3 || plain.LabelOf(2) != 2 {
		t.Fatal("a plain model's helpers are not the identity")
	}
	for _, k := range []int{1, -1, 4} {
		m.HiddenStates = k
		if m.Validate() == nil {
			t.Errorf("%d hidden states over 6 states validated", k)
		}
	}
}
