package lattice

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

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
