package online

import (
	"math/rand/v2"
	"testing"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/learn"
)

// deltaRule moves the weights along Δ scaled by its norm, as PA and AROW
// do: it exercises Delta, Dot and Add.
type deltaRule struct{}

func (deltaRule) Start(int)        {}
func (deltaRule) State() []float64 { return nil }
func (deltaRule) Update(t *Trainer, tok0 int, gold, pred []int32, errors int) bool {
	feats, vals := t.Delta(tok0, gold, pred)
	norm := 0.0
	for _, v := range vals {
		norm += v * v
	}
	if norm == 0 {
		return false
	}
	tau := (float64(errors) - t.Dot(feats, vals)) / norm
	for k, f := range feats {
		t.Add(int(f), tau*vals[k])
	}
	return true
}

// TestStepAllocatesNothing: once the buffers have grown (one pass), a
// training step — decode, Δ, update — allocates nothing.
func TestStepAllocatesNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	d := feature.NewDataset()
	for s := 0; s < 50; s++ {
		for i := 1 + r.IntN(8); i > 0; i-- {
			y, a := int32(r.IntN(4)), int32(r.IntN(4))
			if r.IntN(3) > 0 {
				a = y // the label's attribute, two times in three: never separable
			}
			d.Attrs = append(d.Attrs, a, int32(4+r.IntN(3)))
			d.TokenOff = append(d.TokenOff, len(d.Attrs))
			d.Labels = append(d.Labels, y)
		}
		d.SentOff = append(d.SentOff, len(d.Labels))
	}
	p := &learn.Problem{Train: d, NumAttrs: 7, NumLabels: 4, Transitions: true, Seed: 1, Threads: 1, Log: zerolog.Nop()}
	m := learn.NewModel("all", p)
	tr := newTrainer(m, p, deltaRule{})
	for s := 0; s < d.NumSentences(); s++ {
		tr.Step(s)
	}
	s, before := 0, tr.updates
	if n := testing.AllocsPerRun(200, func() {
		tr.Step(s % d.NumSentences())
		s++
	}); n != 0 {
		t.Fatalf("%v allocations per step", n)
	}
	if tr.updates == before {
		t.Fatal("no update was made while counting; the check proves nothing")
	}
}
