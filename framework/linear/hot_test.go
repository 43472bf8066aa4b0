package linear

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/trellis-nlp/trellis/framework/feature"
)

// hotModel draws a sparse model whose attributes have from none to all of
// the l labels, so that some are hot and some not, with real weights.
func hotModel(r *rand.Rand, numAttrs, l int) *Model {
	off := make([]int32, numAttrs+1)
	var lab []int32
	for a := 0; a < numAttrs; a++ {
		p := r.Float64()
		for y := 0; y < l; y++ {
			if r.Float64() < p {
				lab = append(lab, int32(y))
			}
		}
		off[a+1] = int32(len(lab))
	}
	m := New(l, off, lab, true)
	for i := range m.W {
		m.W[i] = rowValue(r)
	}
	return m
}

// hotSentences draws sentences whose tokens have up to 80 attributes, so
// that runs of hot attributes exceed a batch (32).
func hotSentences(r *rand.Rand, numAttrs, nsent int) *feature.Dataset {
	d := feature.NewDataset()
	for s := 0; s < nsent; s++ {
		for i := 1 + r.IntN(6); i > 0; i-- {
			for k := r.IntN(81); k > 0; k-- {
				d.Attrs = append(d.Attrs, int32(r.IntN(numAttrs)))
			}
			d.TokenOff = append(d.TokenOff, len(d.Attrs))
			d.Labels = append(d.Labels, -1)
		}
		d.SentOff = append(d.SentOff, len(d.Labels))
	}
	return d
}

// TestHotRowsSameBits: scoring with hot rows (packed, and in place with
// gathered weights) gives the bits of the sparse in-place loops, also
// after Set, and expected counts added through hot rows and Scatter give
// the bits of the sparse loop — with the AVX kernels and the portable
// ones.
func TestHotRowsSameBits(t *testing.T) {
	defer useAVX(hasAVX)
	for _, kernels := range []string{"dispatched", "portable"} {
		useAVX(kernels == "dispatched")
		t.Run(kernels, func(t *testing.T) {
			r := rand.New(rand.NewPCG(15, 22))
			for _, l := range []int{2, 3, 5, 8, 22, 23, 41} {
				t.Run(fmt.Sprintf("L=%d", l), func(t *testing.T) {
					for trial := 0; trial < 10; trial++ {
						checkHotRows(t, r, l)
					}
				})
			}
		})
	}
}

func checkHotRows(t *testing.T, r *rand.Rand, l int) {
	t.Helper()
	numAttrs := 1 + r.IntN(60)
	m := hotModel(r, numAttrs, l)
	d := hotSentences(r, numAttrs, 3)
	n := d.NumTokens()
	h := m.HotRows()
	if m.dense() {
		return
	}
	want := make([]float64, n*l)
	m.StateScores(want, m.W, d, 0, n)
	packed := m.NewScorer(m.W)
	if (packed.hot != nil) != (h.Len() > 0) {
		t.Fatalf("packed scorer hot rows %v, model has %d", packed.hot != nil, h.Len())
	}
	in := m.InPlaceScorer(m.W)
	in.UseHotRows(h, h.Gather(nil, m.W))
	for name, s := range map[string]*Scorer{"packed": packed, "in place": in} {
		got := make([]float64, n*l)
		s.StateScores(got, d, 0, n)
		if k := firstDiff(got, want); k >= 0 {
			t.Fatalf("%s with %d hot rows: score %d = %v, the sparse loops give %v", name, h.Len(), k, got[k], want[k])
		}
	}
	for k := 0; k < 20 && m.NumFeatures() > 0; k++ {
		f := r.IntN(m.NumFeatures())
		m.W[f] = rowValue(r)
		packed.Set(f, m.W[f])
	}
	m.StateScores(want, m.W, d, 0, n)
	got := make([]float64, n*l)
	packed.StateScores(got, d, 0, n)
	if !sameNumbers(got, want) {
		t.Fatal("packed scores differ after Set")
	}

	// Expected counts: the sparse loop against hot rows and Scatter.
	marg := randomRows(r, n*l)
	wantG, gotG := make([]float64, len(m.W)), make([]float64, len(m.W))
	dense := make([]float64, h.Len()*l)
	for tok := 0; tok < n; tok++ {
		row := marg[tok*l : (tok+1)*l]
		for k := d.TokenOff[tok]; k < d.TokenOff[tok+1]; k++ {
			a := d.Attrs[k]
			for f := m.FeatOff[a]; f < m.FeatOff[a+1]; f++ {
				wantG[f] += row[m.FeatLabel[f]]
			}
		}
		h.AddExpectations(gotG, dense, d.Attrs[d.TokenOff[tok]:d.TokenOff[tok+1]], row)
	}
	h.Scatter(gotG, dense)
	if !sameNumbers(gotG, wantG) {
		t.Fatalf("expected counts through %d hot rows differ from the sparse loop", h.Len())
	}
}

func TestHotRowsChoice(t *testing.T) {
	// Attribute 0 scores all 6 labels, 1 one, 2 two (a third: hot), 3 none.
	m := New(6, []int32{0, 6, 7, 9, 9}, []int32{0, 1, 2, 3, 4, 5, 2, 1, 4}, true)
	h := m.HotRows()
	if got, want := fmt.Sprint(h.ref, h.attrs), fmt.Sprint([]int64{-1, 6<<32 | 7, -2, 9<<32 | 9}, []int32{0, 2}); got != want {
		t.Fatalf("rows %s, want %s", got, want)
	}
	for f := range m.W[:m.NumFeatures()] {
		m.W[f] = float64(f + 1)
	}
	if got, want := fmt.Sprint(h.Gather(nil, m.W)), "[1 2 3 4 5 6 0 8 0 0 9 0]"; got != want {
		t.Fatalf("Gather = %s, want %s", got, want)
	}
	if NewDense(3, 4, true).HotRows().Len() != 0 {
		t.Fatal("a dense model has hot rows")
	}
}

// firstDiff returns the first index where a and b differ in bits, or -1.
// Two NaNs count as equal: which of two NaN operands' payload a sum
// carries depends on the operand order the compiler picks for x += y,
// which Go leaves open; every other value must match bit for bit.
func firstDiff(a, b []float64) int {
	for k := range a {
		if math.Float64bits(a[k]) != math.Float64bits(b[k]) && !(math.IsNaN(a[k]) && math.IsNaN(b[k])) {
			return k
		}
	}
	return -1
}

// sameNumbers reports whether a and b hold the same values bit for bit,
// NaNs aside (see firstDiff).
func sameNumbers(a, b []float64) bool { return len(a) == len(b) && firstDiff(a, b) < 0 }
