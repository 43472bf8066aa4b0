package linear

import (
	"math"
	"reflect"
	"testing"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
)

// twoSentences is a dataset of the label sequences 0 1 1 and 1, one
// attribute (0) per token, attribute 1 marked for pair features.
func twoSentences() *feature.Dataset {
	d := feature.NewDataset()
	for _, ys := range [][]int32{{0, 1, 1}, {1}} {
		for _, y := range ys {
			d.Attrs = append(d.Attrs, 0, 1)
			d.TokenOff = append(d.TokenOff, len(d.Attrs))
			d.Labels = append(d.Labels, y)
		}
		d.SentOff = append(d.SentOff, len(d.Labels))
	}
	return d
}

func TestWithTrigrams(t *testing.T) {
	d := twoSentences()
	m := WithPairs(NewObserved(d, 2, 2, true), d, []bool{false, true})
	for k := range m.W {
		m.W[k] = float64(k + 1)
	}
	pairs := append([]float64(nil), m.Pairs()...)
	m2, err := WithTrigrams(m, d)
	if err != nil {
		t.Fatal(err)
	}
	b := int32(lattice.Boundary)
	want := []lattice.Trigram{{A: b, B: 0, C: 1}, {A: b, B: 1, C: b}, {A: 0, B: 1, C: 1}, {A: 1, B: 1, C: b}}
	if !reflect.DeepEqual(m2.Trigrams, want) {
		t.Fatalf("trigrams %v, want %v", m2.Trigrams, want)
	}
	if err := m2.Validate(); err != nil {
		t.Fatal(err)
	}
	// The first-order weights keep their places, the trigrams' are zero
	// and the pair features move after them.
	tb := m2.TrigramBase()
	if !reflect.DeepEqual(m2.W[:tb], m.W[:tb]) || !reflect.DeepEqual(m2.Pairs(), pairs) || m2.PairBase() != tb+4 {
		t.Fatalf("weights %v from %v", m2.W, m.W)
	}
	for _, v := range m2.TrigramWeights(m2.W) {
		if v != 0 {
			t.Fatalf("trigram weights %v, want zeros", m2.TrigramWeights(m2.W))
		}
	}
	g := make([]float64, len(m2.W))
	m2.AddTrigrams(g, []int32{0, 1, 1}, 1)
	m2.AddTrigrams(g, []int32{1}, 2)
	m2.AddTrigrams(g, []int32{1, 0}, 5) // no trigram of it is the model's
	if got := m2.TrigramWeights(g); !reflect.DeepEqual(got, []float64{1, 2, 1, 1}) {
		t.Fatalf("gold trigram counts %v", got)
	}
	// The lattice of a sentence is second order with the trigram weights.
	copy(m2.TrigramWeights(m2.W), []float64{0.5, -1, 2, 3})
	var sc lattice.Scores
	m2.Lattice(&sc, m2.W, d, 0)
	if sc.Order2 == nil || len(sc.Trigram) != 4 {
		t.Fatal("the lattice is not second order")
	}
	first := sc
	first.Order2, first.Trigram = nil, nil
	if got, want := lattice.SequenceScore(&sc, []int32{0, 1, 1}), lattice.SequenceScore(&first, []int32{0, 1, 1})+0.5+2+3; math.Abs(got-want) > 1e-12 {
		t.Fatalf("score %v, want %v", got, want)
	}
	if !math.IsInf(lattice.SequenceScore(&sc, []int32{1, 1, 0}), -1) {
		t.Fatal("a path with unseen trigrams scores finite")
	}
}

func TestValidateTrigrams(t *testing.T) {
	d := twoSentences()
	for _, c := range []struct {
		name   string
		mutate func(m *Model)
	}{
		{"unsorted", func(m *Model) { m.Trigrams[0], m.Trigrams[1] = m.Trigrams[1], m.Trigrams[0] }},
		{"out of range", func(m *Model) { m.Trigrams[3].B = 7 }},
		{"local", func(m *Model) { m.Local = true }},
		{"no transitions", func(m *Model) { m.Transitions = false }},
		{"weights short", func(m *Model) { m.W = m.W[:len(m.W)-1] }},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := WithTrigrams(NewObserved(d, 2, 2, true), d)
			if err != nil {
				t.Fatal(err)
			}
			c.mutate(m)
			if m.Validate() == nil {
				t.Fatal("no error")
			}
		})
	}
	if _, err := WithTrigrams(NewObserved(d, 2, 2, false), d); err == nil {
		t.Fatal("a model without transitions was made second order")
	}
}
