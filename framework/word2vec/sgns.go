// sgns.go: the arithmetic of skip-gram with negative sampling: the
// sigmoid table, the update of one (input, output) pair, the vector
// kernels, the random number generator and the noise distribution.

package word2vec

import "math"

// The sigmoid table, as word2vec.c's expTable: σ(f) for f in
// (−maxExp, maxExp) read from sigmoidSize cells; beyond, the gradient is
// taken as if σ were 0 or 1.
const (
	maxExp      = 6
	sigmoidSize = 1000
)

// sigmoidTable holds σ at the left edge of each cell.
type sigmoidTable [sigmoidSize]float32

// newSigmoidTable computes the table with exp, whose arithmetic is the
// same on every machine (math.Exp may use FMA instructions on some CPUs
// and not on others, so its last bit could differ).
func newSigmoidTable() *sigmoidTable {
	var t sigmoidTable
	for i := range t {
		x := (float64(float64(i)/sigmoidSize*2) - 1) * maxExp
		e := exp(x)
		t[i] = float32(e / (e + 1))
	}
	return &t
}

// exp is e^x for |x| ≤ 8 by Taylor series of x/1024 and ten squarings:
// relative error below 1e-12, with only additions, multiplications and
// divisions, each rounded (the conversions forbid fused multiply-adds).
func exp(x float64) float64 {
	r := x / 1024
	sum, term := 1.0, 1.0
	for k := 1; k <= 8; k++ {
		term = float64(term*r) / float64(k)
		sum += term
	}
	for range 10 {
		sum = float64(sum * sum)
	}
	return sum
}

// gradient is (label − σ(f))·alpha with σ read from the table, 0 or 1
// outside it, as word2vec.c computes g; 0 when f is NaN (the run has
// diverged, which Train reports).
func (t *sigmoidTable) gradient(f, label, alpha float32) float32 {
	switch {
	case f > -maxExp && f < maxExp:
		// word2vec.c scales by the integer 1000/6/2 = 83, which reads σ
		// a little left of f and never uses the table's last cells; this
		// is the cell f falls in.
		i := min(int((f+maxExp)*(float32(sigmoidSize)/(2*maxExp))), sigmoidSize-1)
		return (label - t[i]) * alpha
	case f >= maxExp:
		return (label - 1) * alpha
	case f <= -maxExp:
		return label * alpha
	}
	return 0
}

// step is one logistic-regression update of skip-gram with negative
// sampling, for the input vector in and the output vector out of a
// target with label 1 (the observed word) or 0 (a noise word): with
// f = in·out and g = (label − σ(f))·alpha it adds g·out to the
// accumulated input gradient acc (applied to in by the caller once all
// targets are done, as word2vec does) and g·in to out. It returns g.
func step(in, out, acc []float32, label, alpha float32, sig *sigmoidTable) float32 {
	g := sig.gradient(dot(in, out), label, alpha)
	axpy(g, out, acc)
	axpy(g, in, out)
	return g
}

// dot is a·b over len(a) values, summed in four lanes. The float32
// conversions round each product, so the compiler may not fuse them
// into multiply-adds: the sum is the same on every architecture.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	for len(a) >= 4 && len(b) >= 4 {
		x, y := a[:4:4], b[:4:4]
		s0 += float32(x[0] * y[0])
		s1 += float32(x[1] * y[1])
		s2 += float32(x[2] * y[2])
		s3 += float32(x[3] * y[3])
		a, b = a[4:], b[4:]
	}
	for i := range a {
		s0 += float32(a[i] * b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy adds alpha·x to y, each product rounded before the addition (see
// dot).
func axpy(alpha float32, x, y []float32) {
	y = y[:len(x)]
	for len(x) >= 4 && len(y) >= 4 {
		u, v := x[:4:4], y[:4:4]
		v[0] += float32(alpha * u[0])
		v[1] += float32(alpha * u[1])
		v[2] += float32(alpha * u[2])
		v[3] += float32(alpha * u[3])
		x, y = x[4:], y[4:]
	}
	for i := range x {
		y[i] += float32(alpha * x[i])
	}
}

// rng is SplitMix64 (Steele, Lea and Flood 2014): a 64-bit state, one
// addition and two multiplications a number, and a fixed sequence for a
// seed whatever the Go version (math/rand's helpers promise less).
type rng struct{ s uint64 }

// newRNG returns the generator of stream n under seed: the streams of
// one seed start far apart.
func newRNG(seed, n uint64) rng {
	r := rng{seed}
	r.s = r.next() ^ (n * 0xd1b54a32d192ed03)
	return r
}

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// below returns a number in [0, n), n ≥ 1, by Lemire's multiply (a bias
// of at most n/2³² is nothing for windows and vocabularies).
func (r *rng) below(n int) int {
	return int((r.next() >> 32) * uint64(n) >> 32)
}

// noise draws the noise words of negative sampling from the unigram
// distribution raised to the 3/4 power (Mikolov et al. 2013), by Vose's
// alias method: one random number a draw, and 8 bytes a word where
// word2vec.c fills a table of 10⁸ entries.
type noise struct {
	// keep[i] is the chance, scaled to 2³², that a draw landing on cell i
	// gives word i rather than alias[i].
	keep  []uint64
	alias []int32
}

// newNoise builds the alias table of counts^0.75. The power is taken as
// √c·√√c, exactly rounded square roots, so that the table is the same on
// every machine.
func newNoise(counts []int64) *noise {
	n := len(counts)
	p := make([]float64, n)
	total := 0.0
	for i, c := range counts {
		r := math.Sqrt(float64(c))
		p[i] = float64(r * math.Sqrt(r)) // rounded: not fused into the sum
		total += p[i]
	}
	ns := &noise{keep: make([]uint64, n), alias: make([]int32, n)}
	var small, large []int32
	for i := range p {
		p[i] = p[i] * float64(n) / total
		if p[i] < 1 {
			small = append(small, int32(i))
		} else {
			large = append(large, int32(i))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		ns.keep[s] = uint64(float64(p[s] * (1 << 32)))
		ns.alias[s] = l
		p[l] = (p[l] + p[s]) - 1
		if p[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	// What is left holds probability 1 up to rounding.
	for _, i := range append(small, large...) {
		ns.keep[i] = 1 << 32
		ns.alias[i] = i
	}
	return ns
}

// draw returns a noise word: the high 32 bits of a random number pick
// the cell, the low 32 bits choose between its word and its alias.
func (ns *noise) draw(r *rng) int32 {
	x := r.next()
	i := int32((x >> 32) * uint64(len(ns.keep)) >> 32)
	if x&0xffffffff < ns.keep[i] {
		return i
	}
	return ns.alias[i]
}
