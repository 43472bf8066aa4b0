package transition

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/internal/learntest"
)

// TestResume: a run resumed from the checkpoint after epoch 2 ends with
// the uninterrupted run's weights, to the bit (greedy with seeded
// roll-ins, and beam), documents shuffled.
func TestResume(t *testing.T) {
	d := learntest.Synthetic(rand.New(rand.NewPCG(7, 8)), 60, 2, false)
	problem := func() *learn.Problem {
		p := learntest.Problem(d, 1)
		docs := make([]int32, d.NumSentences())
		for s := range docs {
			docs[s] = int32(s / 4)
		}
		p.History = &learn.History{Name: "h", Decisions: feature.Decisions{Previous: 2, Span: true},
			Labels: []string{"O", "B-X", "I-X"}, Documents: docs}
		return p
	}
	for _, cfg := range []Config{{Epochs: ptr(4), Beta: ptr(0.7)}, {Epochs: ptr(4), Beam: ptr(3)}} {
		var states [][]byte
		p := problem()
		p.Checkpoints = &learn.Checkpoints{Every: 1, Save: func(b []byte) error {
			states = append(states, slices.Clone(b))
			return nil
		}}
		whole, err := (&Learner{cfg: cfg}).Train(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if len(states) != 3 {
			t.Fatalf("%d checkpoints, want 3", len(states))
		}
		p = problem()
		p.Checkpoints = &learn.Checkpoints{Every: 1, Save: func([]byte) error { return nil }, Resume: states[1]}
		resumed, err := (&Learner{cfg: cfg}).Train(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(whole.Model.W, resumed.Model.W) {
			t.Errorf("beam %v: the resumed run's weights differ", cfg.Beam)
		}
		if whole.Info["updates"] != resumed.Info["updates"] {
			t.Errorf("updates %v, resumed %v", whole.Info["updates"], resumed.Info["updates"])
		}
	}
}
