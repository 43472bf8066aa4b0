package memm

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/crf"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// The label-bias example of Lafferty, McCallum and Pereira (2001): "rib"
// is tagged r1 i b and "rob" r2 o b, and "rib" is the more frequent. The
// only attribute of a token is the token itself, so the first decision
// (r1 or r2) sees nothing but "r". Labels and attributes:
const (
	r1, i, b, r2, o = 0, 1, 2, 3, 4 // labels
	aR, aI, aO, aB  = 0, 1, 2, 3    // attributes (one per token)
)

// ribRob is the training data: rib times "rib", rob times "rob".
func ribRob(rib, rob int) *feature.Dataset {
	d := feature.NewDataset()
	add := func(attrs, labels []int32) {
		for k := range attrs {
			d.Attrs = append(d.Attrs, attrs[k])
			d.TokenOff = append(d.TokenOff, len(d.Attrs))
			d.Labels = append(d.Labels, labels[k])
		}
		d.SentOff = append(d.SentOff, len(d.Labels))
	}
	for k := 0; k < rib; k++ {
		add([]int32{aR, aI, aB}, []int32{r1, i, b})
	}
	for k := 0; k < rob; k++ {
		add([]int32{aR, aO, aB}, []int32{r2, o, b})
	}
	return d
}

func train(t *testing.T, form crf.Form, d *feature.Dataset) *linear.Model {
	t.Helper()
	l := crf.NewForm(form)
	c2 := 0.05
	switch c := l.Config().(type) { // the CRF's block, or maxent's and the MEMM's
	case *crf.Config:
		c.C2 = &c2
	case *crf.LocalConfig:
		c.C2 = &c2
	}
	p := &learn.Problem{Train: d, NumAttrs: 4, NumLabels: 5, Transitions: true, Seed: 1, Threads: 1, Log: zerolog.Nop()}
	res, err := l.Train(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return res.Model
}

// decode tags the attribute sequence as the tagger would (the model's
// own lattice, Viterbi), and returns the path and the marginals.
func decode(m *linear.Model, attrs ...int32) ([]int32, []float64) {
	d := feature.NewDataset()
	for _, a := range attrs {
		d.Attrs = append(d.Attrs, a)
		d.TokenOff = append(d.TokenOff, len(d.Attrs))
		d.Labels = append(d.Labels, -1)
	}
	d.SentOff = append(d.SentOff, len(d.Labels))
	var sc lattice.Scores
	m.Lattice(&sc, m.W, d, 0)
	ws := lattice.NewWorkspace(m.NumLabels)
	path := make([]int32, sc.N)
	ws.Viterbi(path, &sc)
	ws.ForwardBackward(&sc)
	marg := make([]float64, sc.N*sc.L)
	ws.StateMarginals(marg)
	return path, marg
}

// TestLabelBias: trained on 4 "rib" for every "rob", the CRF tags "rob"
// r2 o b — the o, seen later, outweighs the prior of r1 in the global
// score — while the MEMM cannot: its first factor P(y0 | "r") is 0.8 for
// r1 whatever follows, and each later factor is a distribution over what
// follows the label already chosen, so the o can only pick among r1's
// successors, never revise r1. Both tag "rib" right; the MEMM has seen
// "rob" and tags its training data wrong, which is the point.
func TestLabelBias(t *testing.T) {
	d := ribRob(8, 2)
	rob := []int32{r2, o, b}
	for _, tc := range []struct {
		form crf.Form
		want bool // tags "rob" right
	}{{crf.Chain, true}, {crf.Local, false}} {
		t.Run(tc.form.String(), func(t *testing.T) {
			m := train(t, tc.form, d)
			if path, _ := decode(m, aR, aI, aB); fmt.Sprint(path) != fmt.Sprint([]int32{r1, i, b}) {
				t.Fatalf(`"rib" tagged %v, want [r1 i b] = %v`, path, []int32{r1, i, b})
			}
			path, marg := decode(m, aR, aO, aB)
			t.Logf(`"rob" tagged %v; first token's marginals %.3f`, path, marg[:5])
			if got := fmt.Sprint(path) == fmt.Sprint(rob); got != tc.want {
				t.Fatalf(`"rob" tagged %v (marginals of the first token %.3f): right = %v, want %v`, path, marg[:5], got, tc.want)
			}
			if tc.form == crf.Local {
				// The MEMM's marginal of the first label is its first
				// factor, the same for "rob" as for "rib": the rest of
				// the sentence cannot move it.
				_, margRib := decode(m, aR, aI, aB)
				if math.Abs(marg[r1]-margRib[r1]) > 1e-12 || marg[r1] < 0.5 {
					t.Fatalf("P(y0 = r1) is %v for rob and %v for rib; want the same, > 0.5", marg[r1], margRib[r1])
				}
			} else if marg[r2] < 0.5 {
				t.Fatalf("CRF: P(y0 = r2 | rob) = %v, want > 0.5", marg[r2])
			}
		})
	}
}
