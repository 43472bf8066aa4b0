package lattice

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestViterbiWideSameBits decodes random lattices, with and without
// forbidden transitions, through the all-labels step and label by label:
// the paths and scores must agree bit for bit.
func TestViterbiWideSameBits(t *testing.T) {
	if !hasAVX512 {
		t.Skip("this processor has no AVX-512: only the label-by-label scan runs")
	}
	defer func() { hasAVX512 = true }()
	r := rand.New(rand.NewPCG(24, 12))
	for _, l := range []int{1, 5, 8, 9, 23, 40} {
		for trial := 0; trial < 40; trial++ {
			s := randomScores(r, 1+r.IntN(25), l, 2, trial%2 == 0)
			if trial%4 == 1 {
				for k := range s.State {
					s.State[k] = math.Round(s.State[k]) // ties
				}
			}
			var paths [2][]int32
			var scores [2]float64
			for k, wide := range []bool{true, false} {
				hasAVX512 = wide
				paths[k] = make([]int32, s.N)
				w := NewWorkspace(l)
				scores[k] = w.Viterbi(paths[k], s)
				if wide && s.N > 1 && !w.chain.wide {
					t.Fatalf("L=%d trial %d: the chain did not choose the wide step", l, trial)
				}
			}
			if !sameBits(scores[:1], scores[1:]) || fmt.Sprint(paths[0]) != fmt.Sprint(paths[1]) {
				t.Fatalf("L=%d trial %d: wide %v (%v), label by label %v (%v)", l, trial, paths[0], scores[0], paths[1], scores[1])
			}
		}
	}
}

// TestViterbiStepAVX512 checks the all-labels Viterbi step against the
// label-by-label scan (maxPlusGo over a column of the transitions) on
// ties, -Inf, +Inf and NaN, at lengths around its blocks of eight, and
// that it writes nothing past L.
func TestViterbiStepAVX512(t *testing.T) {
	if !hasAVX512 {
		t.Skip("this processor has no AVX-512: the label-by-label scan runs, and the other tests check it")
	}
	r := rand.New(rand.NewPCG(24, 11))
	const guard = 9
	for _, l := range []int{1, 2, 7, 8, 9, 15, 16, 17, 23, 24, 25, 40} {
		t.Run(fmt.Sprintf("L=%d", l), func(t *testing.T) {
			for trial := 0; trial < 2000; trial++ {
				prev, trans, st := make([]float64, l), make([]float64, l*l), make([]float64, l)
				fillScanScores(r, prev)
				fillScanScores(r, trans)
				fillScanScores(r, st)
				cur, bp := make([]float64, l+guard), make([]int32, l+guard)
				for k := l; k < l+guard; k++ {
					cur[k], bp[k] = 42, 42
				}
				viterbiStep(cur[:l], bp[:l], prev, trans, st)
				col := make([]float64, l)
				for y := range l {
					for p := range l {
						col[p] = trans[p*l+y]
					}
					best, arg := maxPlusGo(prev, col)
					if want := best + st[y]; math.Float64bits(cur[y]) != math.Float64bits(want) || bp[y] != arg {
						t.Fatalf("trial %d label %d: (%v, %d), the scan gives (%v, %d)", trial, y, cur[y], bp[y], want, arg)
					}
				}
				for k := l; k < l+guard; k++ {
					if cur[k] != 42 || bp[k] != 42 {
						t.Fatalf("trial %d: wrote past L at %d", trial, k)
					}
				}
			}
		})
	}
}

// TestPortableLatticeSameBits runs whole forward-backward passes with the
// AVX kernels (and vector exp) and with the portable ones: log Z, the state marginals and
// the transition expectations must agree bit for bit.
func TestPortableLatticeSameBits(t *testing.T) {
	if !hasAVX {
		t.Skip("this processor has no AVX: only the portable kernels run")
	}
	vexp := hasVectorExp
	defer func() { hasAVX, hasVectorExp = true, vexp }()
	r := rand.New(rand.NewPCG(8, 1))
	for _, l := range []int{1, 3, 4, 5, 8, 16, 17, 22, 23, 40} {
		t.Run(fmt.Sprintf("L=%d", l), func(t *testing.T) {
			for trial := 0; trial < 10; trial++ {
				n := 1 + r.IntN(30)
				s := randomScores(r, n, l, 2, trial%3 == 0)
				var z [2]float64
				var marg, trans [2][]float64
				for k, avx := range []bool{true, false} {
					hasAVX, hasVectorExp = avx, avx && vexp
					w := NewWorkspace(l)
					z[k] = w.ForwardBackward(s)
					marg[k] = make([]float64, n*l)
					w.StateMarginals(marg[k])
					trans[k] = make([]float64, l*l)
					w.AddTransMarginals(trans[k], s, 0.5)
				}
				if !sameBits(z[:1], z[1:]) || !sameBits(marg[0], marg[1]) || !sameBits(trans[0], trans[1]) {
					t.Fatalf("N=%d: AVX and portable kernels differ (log Z %v, %v)", n, z[0], z[1])
				}
			}
		})
	}
}
