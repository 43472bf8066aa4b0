package tagger

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// TestDecoderMatchesLattice checks that the tagging path's decoder gives
// the bits linear.Model.StateScores and lattice.Workspace.Viterbi give:
// dense and sparse models, unit and real attribute values, constrained
// transitions (-Inf), ties, and lattices where every path is forbidden.
func TestDecoderMatchesLattice(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		l := 1 + rng.IntN(24)
		numAttrs := 1 + rng.IntN(30)
		dense := trial%2 == 0
		var lm *linear.Model
		if dense {
			lm = linear.NewDense(numAttrs, l, true)
		} else {
			off := make([]int32, numAttrs+1)
			var lab []int32
			for a := 0; a < numAttrs; a++ {
				for y := 0; y < l; y++ {
					if rng.IntN(3) == 0 {
						lab = append(lab, int32(y))
					}
				}
				off[a+1] = int32(len(lab))
			}
			lm = linear.New(l, off, lab, true)
		}
		for i := range lm.W {
			// Coarse weights make ties common.
			lm.W[i] = float64(rng.IntN(5)-2) / 2
		}
		trans := append([]float64(nil), lm.Trans()...)
		start := append([]float64(nil), lm.Start()...)
		stop := append([]float64(nil), lm.Stop()...)
		if trial%3 != 0 {
			for i := range trans {
				if rng.IntN(3) == 0 {
					trans[i] = math.Inf(-1)
				}
			}
			for i := range start {
				if rng.IntN(4) == 0 {
					start[i] = math.Inf(-1)
				}
				if rng.IntN(4) == 0 {
					stop[i] = math.Inf(-1)
				}
			}
		}
		d := newDecoder(lm, trans, start, stop)
		if dense && d.dense == nil {
			t.Fatalf("trial %d: a dense model not read in place", trial)
		}

		data := feature.NewDataset()
		withValues := trial%4 == 1
		if withValues {
			data.Values = []float64{}
		}
		nsent := 1 + rng.IntN(4)
		for s := 0; s < nsent; s++ {
			n := rng.IntN(8)
			for i := 0; i < n; i++ {
				for k := rng.IntN(5); k > 0; k-- {
					data.Attrs = append(data.Attrs, int32(rng.IntN(numAttrs)))
					if withValues {
						data.Values = append(data.Values, float64(rng.IntN(7))/3)
					}
				}
				data.TokenOff = append(data.TokenOff, len(data.Attrs))
				data.Labels = append(data.Labels, -1)
			}
			data.SentOff = append(data.SentOff, len(data.Labels))
		}

		ws := lattice.NewWorkspace(l)
		var sc lattice.Scores
		for s := 0; s < nsent; s++ {
			lo, hi := data.Sentence(s)
			n := hi - lo
			lm.Lattice(&sc, lm.W, data, s)
			got := make([]float64, n*l)
			d.stateScores(got, data, lo, hi)
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(sc.State[i]) {
					t.Fatalf("trial %d sentence %d: state %v, want %v", trial, s, got, sc.State[:n*l])
				}
			}
			sc.Trans, sc.Start, sc.Stop = trans, start, stop
			want := make([]int32, n)
			wantScore := ws.Viterbi(want, &sc)
			path := make([]int32, n)
			score := d.viterbi(path, got)
			if !reflect.DeepEqual(path, want) || math.Float64bits(score) != math.Float64bits(wantScore) {
				t.Fatalf("trial %d sentence %d: viterbi %v (%v), want %v (%v)", trial, s, path, score, want, wantScore)
			}
		}
	}
}
