package learn_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/learn"
)

// TestAbleBuiltin pins what the builtin learners declare: the lists the
// spec's diagnostics, Refuse's errors and the run command's help print.
func TestAbleBuiltin(t *testing.T) {
	_, reg := builtin.Registries()
	for _, c := range []struct {
		c    learn.Capability
		want string
	}{
		{learn.CanEncoder, "crf (without hidden_states), maxent"},
		{learn.CanPairs, "perceptron, crf (without hidden_states), pa, arow"},
		{learn.CanSecondOrder, "perceptron, crf (without hidden_states), pa, arow, tnt (the second-order HMM)"},
		{learn.CanCheckpoint, "perceptron, crf, pa, arow, maxent, memm, transition"},
		{learn.CanMarginals, "hmm, crf"},
	} {
		if got := strings.Join(learn.Noted(reg.Able(c.c)), ", "); got != c.want {
			t.Errorf("capability %d: %s, want %s", c.c, got, c.want)
		}
	}
}

// TestRefuse: the registry refuses, before the learner trains, what the
// learner cannot train, naming the types that can; a learner that can is
// trained.
func TestRefuse(t *testing.T) {
	_, reg := builtin.Registries()
	for _, c := range []struct {
		typ  string
		p    learn.Problem
		want string
	}{
		{"hmm", learn.Problem{Encoder: &learn.Encoder{}}, "hmm cannot train a neural encoder; use crf or maxent"},
		{"hmm", learn.Problem{Pairs: []bool{false, true}}, `hmm cannot train templates with labels = "bigram" (input-conditioned transitions); use perceptron, crf (without hidden_states), pa or arow`},
		{"memm", learn.Problem{Order: 2}, "memm cannot train a second-order model (transition order = 2); use perceptron, crf (without hidden_states), pa, arow or tnt (the second-order HMM)"},
		{"crf", learn.Problem{Order: 2, Encoder: &learn.Encoder{}}, "crf with an encoder cannot train a second-order model"},
		{"perceptron", learn.Problem{Encoder: &learn.Encoder{}}, "perceptron cannot train a neural encoder"},
	} {
		l, _ := reg.New(c.typ)
		p := c.p
		p.Log = zerolog.Nop()
		_, err := reg.Train(context.Background(), c.typ, l, &p)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v, want %s", c.typ, err, c.want)
		}
	}
	for _, typ := range []string{"perceptron", "crf", "tnt"} {
		l, _ := reg.New(typ)
		if err := reg.Refuse(typ, l, &learn.Problem{Order: 2, Pairs: []bool{typ != "tnt"}}); err != nil {
			t.Errorf("%s: %v, want no refusal", typ, err)
		}
	}
	if !reg.TypeHas("crf", learn.CanMarginals) || reg.TypeHas("perceptron", learn.CanMarginals) || reg.TypeHas("nope", learn.CanMarginals) {
		t.Error("TypeHas(CanMarginals): want crf only of crf, perceptron, nope")
	}
	if err := reg.Refuse("perceptron", refuser{}, &learn.Problem{}); err != nil {
		t.Errorf("a plain first-order problem refused: %v", err)
	}
}

// TestAbleAsksTheLearner: a type is listed when its learner says so, and a
// nil registry lists none.
func TestAbleAsksTheLearner(t *testing.T) {
	r := learn.NewRegistry()
	r.MustRegister("plain", func() learn.Learner { return refuser{} })
	r.MustRegister("sharp", func() learn.Learner { return pairer{} })
	if got := learn.Noted(r.Able(learn.CanPairs)); len(got) != 1 || got[0] != "sharp (when sharp)" {
		t.Fatalf("Able(CanPairs) = %v, want [sharp (when sharp)]", got)
	}
	if got := r.Able(learn.CanEncoder); len(got) != 0 {
		t.Fatalf("Able(CanEncoder) = %v, want none", got)
	}
	var none *learn.Registry
	if got := none.Able(learn.CanPairs); got != nil {
		t.Fatalf("nil registry: %v", got)
	}
}

type refuser struct{}

func (refuser) Config() any               { return &struct{}{} }
func (refuser) Validate() hcl.Diagnostics { return nil }
func (refuser) Train(context.Context, *learn.Problem) (*learn.Result, error) {
	panic("trained a problem it was refused")
}

type pairer struct{ refuser }

func (pairer) TrainsPairs() bool                      { return true }
func (pairer) CapabilityNote(learn.Capability) string { return "when sharp" }

var (
	_ learn.PairLearner = pairer{}
	_ learn.Noter       = pairer{}
)
