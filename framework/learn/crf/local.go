package crf

import "math"

// localSentence is the locally normalized objective of one sentence (the
// maxent and MEMM forms): the negative log-likelihood
//
//	Σ_i log Σ_c exp(z_i[c]) − z_i[y_i],   z_i[c] = State[i][c] + t_i[c]
//
// where t_i is Start for i = 0 and Trans[y_(i-1)][·] for the gold previous
// label otherwise (zero without transitions: maxent). It writes each
// token's softmax over z_i into g as expected feature counts: the state
// features', and the start's or the gold previous label's transition
// row's. The empirical counts are subtracted once by Evaluate.
func (wk *worker) localSentence(o *objective, x []float64, s int, g []float64) float64 {
	m, d, l := o.m, o.d, o.m.NumLabels
	lo, hi := d.Sentence(s)
	n := hi - lo
	state := wk.sc.State[:n*l]
	wk.stateScores(m, state, x, d, lo, hi)
	f0 := m.NumFeatures()
	trans, start := x[f0:f0+l*l], x[f0+l*l:f0+l*l+l]
	marg := wk.marg[:n*l]
	loss := 0.0
	for i := 0; i < n; i++ {
		z := marg[i*l : (i+1)*l]
		copy(z, state[i*l:(i+1)*l])
		var t []float64
		if o.kind.trans == withTransitions {
			t = start
			if i > 0 {
				prev := int(d.Labels[lo+i-1])
				t = trans[prev*l : (prev+1)*l]
			}
			for c := range z {
				z[c] += t[c]
			}
		}
		gold := z[d.Labels[lo+i]]
		logZ := softmax(z)
		loss += logZ - gold
		if o.kind.trans == withTransitions {
			gt := g[f0+l*l : f0+l*l+l] // start
			if i > 0 {
				prev := int(d.Labels[lo+i-1])
				gt = g[f0+prev*l : f0+(prev+1)*l]
			}
			for c, p := range z {
				gt[c] += p
			}
		}
	}
	m.AddStateGradient(g, d, lo, marg)
	return loss
}

// softmax replaces z by its softmax and returns log Σ exp(z).
func softmax(z []float64) float64 {
	mx := math.Inf(-1)
	for _, v := range z {
		mx = max(mx, v)
	}
	sum := 0.0
	for c, v := range z {
		e := math.Exp(v - mx)
		z[c] = e
		sum += e
	}
	for c := range z {
		z[c] /= sum
	}
	return mx + math.Log(sum)
}
