package linear

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/trellis-nlp/trellis/framework/lattice"
)

// TestScaledLattice: ScaledLattice(v, scale, w) scores a sentence as
// Lattice does under the weights scale·v (the state and pair scores up to
// rounding: each sum is multiplied once instead of each weight), and
// takes the transition, start and stop weights from w as they are; so
// for chain models with and without pair features and valued attributes,
// and for locally normalized ones, whose normalizers follow from the
// scaled scores.
func TestScaledLattice(t *testing.T) {
	for _, c := range []struct {
		pairs, values, local bool
	}{{false, false, false}, {false, true, false}, {true, false, false}, {true, true, false}, {false, false, true}} {
		name := fmt.Sprintf("pairs=%v/values=%v/local=%v", c.pairs, c.values, c.local)
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(41, uint64(len(name))))
			for trial := 0; trial < 30; trial++ {
				l, na := 1+r.IntN(4), 2+r.IntN(6)
				m := randomModel(r, na, l, false)
				if c.pairs {
					pair := make([]bool, na)
					for a := range pair {
						pair[a] = r.IntN(2) == 0
					}
					m = withRandomPairs(r, m, pair)
				}
				m.Local = c.local
				d := randomSentences(r, na, 4, 5, c.values)
				scale := 0.25 + r.Float64()
				v := make([]float64, len(m.W))
				w := make([]float64, len(m.W))
				for f := range v {
					v[f] = r.NormFloat64()
					w[f] = scale * v[f]
				}
				for sent := 0; sent < d.NumSentences(); sent++ {
					var got, want lattice.Scores
					m.ScaledLattice(&got, v, scale, w, d, sent)
					m.Lattice(&want, w, d, sent)
					checkClose(t, "State", got.State, want.State)
					checkClose(t, "TransAt", got.TransAt, want.TransAt)
					for _, p := range [][2][]float64{{got.Trans, want.Trans}, {got.Start, want.Start}, {got.Stop, want.Stop}} {
						checkClose(t, "transitions", p[0], p[1])
						if len(p[0]) > 0 && &p[0][0] != &p[1][0] {
							t.Fatal("ScaledLattice's transition weights are not w's")
						}
					}
					lo, hi := d.Sentence(sent)
					states := make([]float64, (hi-lo)*l)
					m.ScaledStateScores(states, v, scale, d, lo, hi)
					plain := make([]float64, (hi-lo)*l)
					m.StateScores(plain, w, d, lo, hi)
					checkClose(t, "ScaledStateScores", states, plain)
				}
			}
		})
	}
}

func checkClose(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
			t.Fatalf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}
