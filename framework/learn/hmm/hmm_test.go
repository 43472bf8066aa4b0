package hmm

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/learn"
)

// groups is a feature mapper reduced to what the HMM reads of it (its
// templates' types, which it does not read, empty).
type groups struct {
	attr, unknown []int32
	n             int
}

func (g groups) NumGroups() int        { return g.n }
func (g groups) AttrGroups() []int32   { return g.attr }
func (g groups) UnknownAttrs() []int32 { return g.unknown }
func (g groups) GroupTypes() []string  { return make([]string, g.n) }

var _ learn.Mapper = groups{}

// TestCountAndDivide checks the weights against probabilities computed by
// hand on a two-sentence corpus with one template.
func TestCountAndDivide(t *testing.T) {
	// Attributes: 0 = w=the, 1 = w=dog, 2 = w=runs, 3 = unknown. Labels: 0 = D, 1 = N, 2 = V.
	d := &feature.Dataset{
		Attrs:    []int32{0, 1, 2, 0, 1},
		TokenOff: []int{0, 1, 2, 3, 4, 5},
		SentOff:  []int{0, 3, 5},
		Labels:   []int32{0, 1, 2, 0, 1},
	}
	ae, at := 0.5, 1.0
	l := &Learner{cfg: Config{EmissionSmoothing: &ae, TransitionSmoothing: &at}}
	if diags := l.Validate(); diags.HasErrors() {
		t.Fatal(diags)
	}
	p := &learn.Problem{
		Train: d, NumAttrs: 4, NumLabels: 3, Mapper: groups{attr: []int32{0, 0, 0, 0}, n: 1, unknown: []int32{3}},
		Transitions: true, Log: zerolog.Nop(),
	}
	res, err := l.Train(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Model
	w := func(a, y int) float64 { return m.W[a*3+y] }
	// Label N emitted "dog" twice; vocabulary 3 words; the hapax word
	// "runs" (label V) gives V one unknown count.
	// P(dog|N) = (2+.5) / (2 + .5*3 + 0 + .5)
	near(t, "P(dog|N)", w(1, 1), math.Log(2.5/4.0))
	near(t, "P(unk|N)", w(3, 1), math.Log(0.5/4.0))
	near(t, "P(unk|V)", w(3, 2), math.Log(1.5/(1+1.5+1+0.5)))
	near(t, "P(the|V)", w(0, 2), math.Log(0.5/4.0))
	// Transitions: D→N twice out of 2 D tokens; 3 labels + STOP.
	near(t, "P(N|D)", m.Trans()[0*3+1], math.Log(3.0/(2+4)))
	near(t, "P(STOP|N)", m.Stop()[1], math.Log(2.0/(2+4))) // N is followed by V once and STOP once
	near(t, "P(start=D)", m.Start()[0], math.Log(3.0/(2+3)))
	// Every emission distribution sums to one over the vocabulary plus
	// the unknown value.
	for y := 0; y < 3; y++ {
		var s float64
		for a := 0; a < 4; a++ {
			s += math.Exp(w(a, y))
		}
		near(t, "sum", s, 1)
	}
	// Transition rows plus stop sum to one.
	for prev := 0; prev < 3; prev++ {
		s := math.Exp(m.Stop()[prev])
		for y := 0; y < 3; y++ {
			s += math.Exp(m.Trans()[prev*3+y])
		}
		near(t, "trans row", s, 1)
	}
}

func TestNoTransitionsKeepsZeros(t *testing.T) {
	d := &feature.Dataset{Attrs: []int32{0, 1}, TokenOff: []int{0, 1, 2}, SentOff: []int{0, 2}, Labels: []int32{0, 1}}
	res, err := New().Train(context.Background(), &learn.Problem{
		Train: d, NumAttrs: 2, NumLabels: 2, Mapper: groups{attr: []int32{0, 0}, n: 1}, Log: zerolog.Nop(),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range res.Model.W[res.Model.NumFeatures():] {
		if v != 0 {
			t.Fatal("transition weights set without the transition template")
		}
	}
}

func TestValidate(t *testing.T) {
	neg := -1.0
	for _, c := range []Config{{EmissionSmoothing: &neg}, {TransitionSmoothing: &neg}, {Unknown: "guess"}} {
		if !(&Learner{cfg: c}).Validate().HasErrors() {
			t.Errorf("%+v accepted", c)
		}
	}
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// wordTemplate emits "w=<word>" from column 0.
type wordTemplate struct{}

func (wordTemplate) Config() any               { return &struct{}{} }
func (wordTemplate) Validate() hcl.Diagnostics { return nil }
func (wordTemplate) Compile(string, feature.Columns) (feature.Extractor, error) {
	return wordExtractor{}, nil
}

type wordExtractor struct{}

func (wordExtractor) Extract(s *corpus.Sentence, sink feature.Sink) error {
	for i, tok := range s.Tokens {
		sink.Add(i, []byte("w="+tok[0]), 1)
	}
	return nil
}

// TestFeatureMapper trains on a problem whose groups and unknown-value
// attributes come from a fitted *feature.Mapper, as in a run: the weights
// are those of the same problem described by hand.
func TestFeatureMapper(t *testing.T) {
	mp, err := feature.NewMapper([]feature.MapperTemplate{{Spec: feature.TemplateSpec{Type: "word", Name: "w"}, Template: wordTemplate{}}},
		feature.Columns{Names: []string{"word", "tag"}, Label: 1})
	if err != nil {
		t.Fatal(err)
	}
	d, err := mp.Fit(context.Background(), []*corpus.Sentence{
		{Tokens: [][]string{{"the", "D"}, {"dog", "N"}, {"runs", "V"}}},
		{Tokens: [][]string{{"the", "D"}, {"dog", "N"}}},
	}, feature.FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	train := func(m learn.Mapper) []float64 {
		res, err := New().Train(context.Background(), &learn.Problem{
			Train: d, NumAttrs: mp.Attrs().Len(), NumLabels: mp.Labels().Len(), Mapper: m, Transitions: true, Log: zerolog.Nop(),
		})
		if err != nil {
			t.Fatal(err)
		}
		return res.Model.W
	}
	got, want := train(mp), train(groups{attr: []int32{0, 0, 0, 0}, n: 1, unknown: []int32{3}})
	if !slices.Equal(got, want) {
		t.Errorf("weights with the feature mapper\n%v\nwant\n%v", got, want)
	}
}

// TestMapperRequired: the HMM normalizes per template, so it needs to know
// every attribute's template.
func TestMapperRequired(t *testing.T) {
	d := &feature.Dataset{Attrs: []int32{0, 1}, TokenOff: []int{0, 1, 2}, SentOff: []int{0, 2}, Labels: []int32{0, 1}}
	tests := []struct {
		name   string
		mapper learn.Mapper
		want   string
	}{
		{"none", nil, "hmm: the problem has no feature mapper"},
		{"too few groups", groups{attr: []int32{0}, n: 1}, "hmm: the feature mapper has template groups for 1 attributes, the problem 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New().Train(context.Background(), &learn.Problem{Train: d, NumAttrs: 2, NumLabels: 2, Mapper: tc.mapper, Log: zerolog.Nop()})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestRefusesPairs: the HMM cannot train templates with labels = "bigram"
// and says so instead of training them as emissions.
func TestRefusesPairs(t *testing.T) {
	p := &learn.Problem{Train: feature.NewDataset(), NumAttrs: 2, NumLabels: 2, Pairs: []bool{false, true}, Log: zerolog.Nop()}
	if learn.TrainsPairs(New()) {
		t.Fatal("the HMM claims to train pair features")
	}
	_, err := learn.NewRegistry().Train(context.Background(), "hmm", New(), p)
	if err == nil || !strings.Contains(err.Error(), `labels = "bigram"`) {
		t.Fatalf("got %v, want a refusal naming labels = \"bigram\"", err)
	}
}
