package tnt

import (
	"math"

	"github.com/trellis-nlp/trellis/framework/lattice"
)

// TagCounts are the tag n-gram counts of TnT's transitions over L labels.
// A context index is a label or L for ⟨s⟩, an outcome index a label or L
// for ⟨/s⟩; each outcome of a sentence ⟨s⟩ ⟨s⟩ t1 … tn ⟨/s⟩ (t1 … tn
// and ⟨/s⟩) counts once in Uni, Bi and Tri.
type TagCounts struct {
	L int
	// Uni[c], Bi[b*(L+1)+c], Tri[(a*(L+1)+b)*(L+1)+c].
	Uni, Bi, Tri []float64
}

// NewTagCounts returns zero counts over l labels.
func NewTagCounts(l int) *TagCounts {
	k := l + 1
	return &TagCounts{L: l, Uni: make([]float64, k), Bi: make([]float64, k*k), Tri: make([]float64, k*k*k)}
}

// AddSentence counts the label sequence y (labels 0 … L-1).
func (tc *TagCounts) AddSentence(y []int32) {
	k, bound := tc.L+1, tc.L
	a, b := bound, bound
	for i := 0; i <= len(y); i++ {
		c := bound
		if i < len(y) {
			c = int(y[i])
		}
		tc.Uni[c]++
		tc.Bi[b*k+c]++
		tc.Tri[(a*k+b)*k+c]++
		a, b = b, c
	}
}

// contextCounts are the denominators of the conditional estimates: the
// counts of the contexts as contexts, so that ⟨s⟩ counts the sentences.
type contextCounts struct {
	uni []float64 // uni[b] = f(b) = Σc Bi[b, c]
	bi  []float64 // bi[a*k+b] = f(a, b) = Σc Tri[a, b, c]
	n   float64   // Σ Uni: the tags counted
}

// contexts returns the denominators of the conditional estimates.
func (tc *TagCounts) contexts() *contextCounts {
	k := tc.L + 1
	ctx := &contextCounts{uni: make([]float64, k), bi: make([]float64, k*k)}
	for b := 0; b < k; b++ {
		for c := 0; c < k; c++ {
			ctx.uni[b] += tc.Bi[b*k+c]
			for a := 0; a < k; a++ {
				ctx.bi[a*k+b] += tc.Tri[(a*k+b)*k+c]
			}
		}
	}
	for _, v := range tc.Uni {
		ctx.n += v
	}
	return ctx
}

// ratio is (num−1)/(den−1), 0 when den−1 is 0 (Brants 2000, figure 1:
// "if the denominator in one of the expressions is 0, we define the
// result of that expression to be 0").
func ratio(num, den float64) float64 {
	if den-1 == 0 {
		return 0
	}
	return (num - 1) / (den - 1)
}

// Lambdas returns λ1, λ2, λ3 by deleted interpolation (Brants 2000,
// figure 1): every trigram (t1, t2, t3) seen in training adds its count
// f(t1,t2,t3) to the λ whose estimate, with that one occurrence deleted,
// is largest — (f(t1,t2,t3)−1)/(f(t1,t2)−1) for λ3, (f(t2,t3)−1)/(f(t2)−1)
// for λ2, (f(t3)−1)/(N−1) for λ1 — and the λs are normalized to sum to 1.
// The paper does not say what a tie does; here the count is shared
// equally by the tied λs (so that the result does not depend on an order
// of the three), as NLTK's TnT does.
func (tc *TagCounts) Lambdas() [3]float64 {
	k := tc.L + 1
	ctx := tc.contexts()
	var lam [3]float64
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			for c := 0; c < k; c++ {
				f := tc.Tri[(a*k+b)*k+c]
				if f == 0 {
					continue
				}
				est := [3]float64{
					ratio(tc.Uni[c], ctx.n),
					ratio(tc.Bi[b*k+c], ctx.uni[b]),
					ratio(f, ctx.bi[a*k+b]),
				}
				best := max(est[0], est[1], est[2])
				tied := 0.0
				for _, e := range est {
					if e == best {
						tied++
					}
				}
				for j, e := range est {
					if e == best {
						lam[j] += f / tied
					}
				}
			}
		}
	}
	total := lam[0] + lam[1] + lam[2]
	if total == 0 {
		return [3]float64{1, 0, 0}
	}
	for j := range lam {
		lam[j] /= total
	}
	return lam
}

// Prob returns the interpolated P(c | a, b) for context indices a, b and
// outcome index c. A conditional whose context was never seen is 0.
func (tc *TagCounts) Prob(lam [3]float64, a, b, c int) float64 {
	return tc.prob(lam, tc.contexts(), a, b, c)
}

// prob is Prob with the context counts ctx computed once.
func (tc *TagCounts) prob(lam [3]float64, ctx *contextCounts, a, b, c int) float64 {
	k := tc.L + 1
	p := lam[0] * tc.Uni[c] / ctx.n
	if d := ctx.uni[b]; d > 0 {
		p += lam[1] * tc.Bi[b*k+c] / d
	}
	if d := ctx.bi[a*k+b]; d > 0 {
		p += lam[2] * tc.Tri[(a*k+b)*k+c] / d
	}
	return p
}

// weights writes the start weights (log P(t | ⟨s⟩, ⟨s⟩)) and the
// weights of trigrams ts (tri[k] is ts[k]'s) of the interpolated model.
func (tc *TagCounts) weights(lam [3]float64, start, tri []float64, ts []lattice.Trigram) {
	l := tc.L
	ctx := tc.contexts()
	for t := 0; t < l; t++ {
		start[t] = logp(tc.prob(lam, ctx, l, l, t))
	}
	idx := func(v int32) int { // the counts' index: L for a boundary
		if v == lattice.Boundary {
			return l
		}
		return int(v)
	}
	for k, tg := range ts {
		tri[k] = logp(tc.prob(lam, ctx, idx(tg.A), idx(tg.B), idx(tg.C)))
	}
}

// Theta returns the standard deviation of the tag probabilities p (the
// sample's, with s−1; 0 for fewer than two tags): the suffix model's
// smoothing weight θ (Brants 2000, section 2.3).
func Theta(p []float64) float64 {
	s := float64(len(p))
	if s < 2 {
		return 0
	}
	var mean float64
	for _, v := range p {
		mean += v
	}
	mean /= s
	var ss float64
	for _, v := range p {
		ss += (v - mean) * (v - mean)
	}
	return math.Sqrt(ss / (s - 1))
}
