package linear

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/trellis-nlp/trellis/framework/feature"
)

func randomData(r *rand.Rand, values bool) *feature.Dataset {
	d := feature.NewDataset()
	for s := 0; s < 20; s++ {
		for i := 0; i < 1+r.IntN(5); i++ {
			for k := 0; k < 1+r.IntN(4); k++ {
				d.Attrs = append(d.Attrs, int32(r.IntN(6)))
				if values {
					d.Values = append(d.Values, r.NormFloat64())
				}
			}
			d.TokenOff = append(d.TokenOff, len(d.Attrs))
			d.Labels = append(d.Labels, int32(r.IntN(3)))
		}
		d.SentOff = append(d.SentOff, len(d.Labels))
	}
	return d
}

// TestStateScores compares the sparse scoring with the definition.
func TestStateScores(t *testing.T) {
	for _, values := range []bool{false, true} {
		r := rand.New(rand.NewPCG(1, 2))
		d := randomData(r, values)
		for _, m := range []*Model{NewDense(6, 3, true), NewObserved(d, 6, 3, true)} {
			if err := m.Validate(); err != nil {
				t.Fatal(err)
			}
			if !m.Sorted() {
				t.Fatal("labels not sorted within attributes")
			}
			for i := range m.W {
				m.W[i] = r.NormFloat64()
			}
			got := make([]float64, d.NumTokens()*3)
			m.StateScores(got, m.W, d, 0, d.NumTokens())
			for tok := 0; tok < d.NumTokens(); tok++ {
				for y := int32(0); y < 3; y++ {
					want := 0.0
					for k := d.TokenOff[tok]; k < d.TokenOff[tok+1]; k++ {
						if f := m.Feature(d.Attrs[k], y); f >= 0 {
							want += d.Value(k) * m.W[f]
						}
					}
					if diff := got[tok*3+int(y)] - want; diff > 1e-12 || diff < -1e-12 {
						t.Fatalf("values=%v token %d label %d: %v, want %v", values, tok, y, got[tok*3+int(y)], want)
					}
				}
			}
		}
	}
}

// TestObserved: exactly the (attribute, label) pairs of the data get a
// feature, and Feature finds each of them.
func TestObserved(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	d := randomData(r, false)
	m := NewObserved(d, 6, 3, true)
	seen := map[[2]int32]bool{}
	for tok := 0; tok < d.NumTokens(); tok++ {
		for k := d.TokenOff[tok]; k < d.TokenOff[tok+1]; k++ {
			seen[[2]int32{d.Attrs[k], d.Labels[tok]}] = true
		}
	}
	if m.NumFeatures() != len(seen) {
		t.Fatalf("%d features for %d observed pairs", m.NumFeatures(), len(seen))
	}
	for a := int32(0); a < 6; a++ {
		for y := int32(0); y < 3; y++ {
			f := m.Feature(a, y)
			if (f >= 0) != seen[[2]int32{a, y}] {
				t.Fatalf("Feature(%d,%d) = %d, observed %v", a, y, f, seen[[2]int32{a, y}])
			}
			if f >= 0 && m.FeatLabel[f] != y {
				t.Fatalf("Feature(%d,%d) points at label %d", a, y, m.FeatLabel[f])
			}
		}
	}
	if len(m.W) != m.NumFeatures()+3*3+2*3 || len(m.Trans()) != 9 || len(m.Start()) != 3 || len(m.Stop()) != 3 {
		t.Fatal("weight vector layout wrong")
	}
}

func TestValidateRejects(t *testing.T) {
	for name, m := range map[string]*Model{
		"no labels":       {NumLabels: 0, FeatOff: []int32{0}, W: nil},
		"offsets":         {NumLabels: 1, FeatOff: []int32{0, 2}, FeatLabel: []int32{0}, W: make([]float64, 4)},
		"label range":     {NumLabels: 1, FeatOff: []int32{0, 1}, FeatLabel: []int32{3}, W: make([]float64, 4)},
		"weights length":  {NumLabels: 1, FeatOff: []int32{0, 1}, FeatLabel: []int32{0}, W: make([]float64, 2)},
		"decreasing offs": {NumLabels: 1, FeatOff: []int32{0, 1, 0, 1}, FeatLabel: []int32{0}, W: make([]float64, 4)},
		// 3 labels: 2 features + 9 transitions + 3 start + 3 stop weights.
		"repeated label":   {NumLabels: 3, FeatOff: []int32{0, 2}, FeatLabel: []int32{1, 1}, W: make([]float64, 17)},
		"decreasing label": {NumLabels: 3, FeatOff: []int32{0, 2}, FeatLabel: []int32{2, 0}, W: make([]float64, 17)},
	} {
		if err := m.Validate(); err == nil {
			t.Errorf("%s: Validate accepted a broken model", name)
		}
	}
}

// TestObservedMasksMatchLists checks that the bit-mask construction of
// NewObserved's structure gives the offsets and labels of the list one,
// for label counts up to the mask's 64, with unknown (-1) gold labels and
// attributes that occur with no label or twice in a token.
func TestObservedMasksMatchLists(t *testing.T) {
	for _, labels := range []int{1, 2, 3, 22, 63, 64} {
		t.Run(fmt.Sprint(labels), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(labels), 9))
			const attrs = 40
			d := feature.NewDataset()
			for s := 0; s < 30; s++ {
				for i := 0; i < 1+r.IntN(6); i++ {
					for k := 0; k < r.IntN(5); k++ {
						d.Attrs = append(d.Attrs, int32(r.IntN(attrs-5))) // the last 5 never occur
					}
					d.TokenOff = append(d.TokenOff, len(d.Attrs))
					y := int32(r.IntN(labels))
					if r.IntN(10) == 0 {
						y = -1
					}
					d.Labels = append(d.Labels, y)
				}
				d.SentOff = append(d.SentOff, len(d.Labels))
			}
			offM, labM := observedMasks(d, attrs)
			offL, labL := observedLists(d, attrs)
			if !slices.Equal(offM, offL) || !slices.Equal(labM, labL) {
				t.Fatalf("masks: %v %v\nlists: %v %v", offM, labM, offL, labL)
			}
			if len(labL) == 0 {
				t.Fatal("no features: the test data is degenerate")
			}
		})
	}
}
