package online

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/learn"
)

// handShards are two shards' results from the input W = U = [1, 2],
// C = 1, variances [1, 1], worked out by hand:
//
//	shard 0, 2 sentences: +1 to weight 0 at timestamp 1
//	  W = [2, 2], U = [1, 2] + 1·[1, 0] = [2, 2], C = 3, 1 update,
//	  its steps' weights [2, 2], [2, 2]; variances [0.5, 1]
//	shard 1, 3 sentences: +2 to weight 1 at 1, −1 to weight 0 at 3
//	  W = [0, 4], U = [1, 2] + [0, 2] + [−3, 0] = [−2, 4], C = 4, 2 updates,
//	  its steps' weights [1, 4], [1, 4], [0, 4]; variances [0.5, 0.25]
//
// The five steps' weights sum to [6, 16]: the average is [1.2, 3.2].
func handShards() (ShardInput, []ShardResult) {
	in := ShardInput{W: []float64{1, 2}, U: []float64{1, 2}, C: 1, State: []float64{1, 1}}
	return in, []ShardResult{
		{W: []float64{2, 2}, U: []float64{2, 2}, C: 3, State: []float64{0.5, 1}, Updates: 1, Errors: 1, Tokens: 4},
		{W: []float64{0, 4}, U: []float64{-2, 4}, C: 4, State: []float64{0.5, 0.25}, Updates: 2, Errors: 3, Tokens: 6},
	}
}

// TestMixerByHand checks the mix of handShards against the numbers
// worked out by hand: uniform, by mistakes, with a shard without
// mistakes and with none at all.
func TestMixerByHand(t *testing.T) {
	for _, tc := range []struct {
		name       string
		mix        Mix
		updates    [2]int
		w, state   []float64
		avg        []float64
		allUpdates int
	}{
		{"uniform", MixUniform, [2]int{1, 2}, []float64{1, 3}, []float64{0.5, 0.625}, []float64{1.2, 3.2}, 3},
		{"mistakes", MixMistakes, [2]int{1, 2}, []float64{2.0 / 3, 10.0 / 3}, []float64{0.5, 0.5}, []float64{1.2, 3.2}, 3},
		// A shard without mistakes adds nothing: the other's results.
		{"mistakes, shard 0 none", MixMistakes, [2]int{0, 2}, []float64{0, 4}, []float64{0.5, 0.25}, []float64{1.2, 3.2}, 2},
		// No shard with mistakes: the weights and state stay.
		{"mistakes, none", MixMistakes, [2]int{0, 0}, []float64{1, 2}, []float64{1, 1}, []float64{1.2, 3.2}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, res := handShards()
			res[0].Updates, res[1].Updates = tc.updates[0], tc.updates[1]
			x := NewMixer(tc.mix, 2, 2, 2)
			x.Reset()
			for k := range res {
				x.Add(&in, &res[k])
			}
			if err := x.Finish(&in); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(in.W, tc.w) || !slices.Equal(in.State, tc.state) || in.C != 6 {
				t.Errorf("W %v, state %v, C %v; want %v, %v, 6", in.W, in.State, in.C, tc.w, tc.state)
			}
			if x.Updates != tc.allUpdates || x.Errors != 4 || x.Tokens != 10 {
				t.Errorf("updates %d, errors %d, tokens %d", x.Updates, x.Errors, x.Tokens)
			}
			// The average Trainer.Result reads from W, U and C.
			for j, want := range tc.avg {
				if got := (in.C*in.W[j] - in.U[j]) / (in.C - 1); math.Abs(got-want) > 1e-12 {
					t.Errorf("average of weight %d = %v, want %v", j, got, want)
				}
			}
		})
	}
	in, res := handShards()
	x := NewMixer(MixUniform, 2, 2, 2)
	x.Reset()
	x.Add(&in, &res[0])
	if err := x.Finish(&in); err == nil {
		t.Error("mixed one shard's result of two")
	}
}

// TestMixerOneShard: one shard's result is the next input as it is,
// whatever the mix (μ = 1), to the bit.
func TestMixerOneShard(t *testing.T) {
	for _, mix := range []Mix{MixUniform, MixMistakes} {
		in, res := handShards()
		r := res[1]
		r.W = []float64{0.1, math.Copysign(0, -1)}
		x := NewMixer(mix, 1, 2, 2)
		x.Reset()
		x.Add(&in, &r)
		if err := x.Finish(&in); err != nil {
			t.Fatal(err)
		}
		for j := range in.W {
			if math.Float64bits(in.W[j]) != math.Float64bits(r.W[j]) || in.U[j] != r.U[j] || in.State[j] != r.State[j] {
				t.Fatalf("%v: input %v %v %v, shard %v %v %v", mix, in.W, in.U, in.State, r.W, r.U, r.State)
			}
		}
		if in.C != r.C {
			t.Fatalf("C %v, shard's %v", in.C, r.C)
		}
	}
}

func TestDeal(t *testing.T) {
	got := Deal([]int{0, 2, 3, 5, 6, 7, 9}, 3)
	want := [][]int{{0, 5, 9}, {2, 6}, {3, 7}}
	if len(got) != len(want) {
		t.Fatalf("%v", got)
	}
	for s := range want {
		if !slices.Equal(got[s], want[s]) {
			t.Fatalf("Deal = %v, want %v", got, want)
		}
	}
	if one := Deal([]int{4, 1, 2}, 1); !slices.Equal(one[0], []int{4, 1, 2}) {
		t.Fatalf("one shard: %v", one)
	}
	// Shards are views of one slice: appending to one must not write
	// into the next.
	got[0] = append(got[0], 99)
	if got[1][0] != 2 {
		t.Fatal("appending to shard 0 overwrote shard 1")
	}
}

// smallProblem is 5 sentences of 3 tokens over 3 attributes.
func smallProblem() *learn.Problem {
	d := feature.NewDataset()
	for s := 0; s < 5; s++ {
		for i := 0; i < 3; i++ {
			d.Attrs = append(d.Attrs, int32((s+i)%3))
			d.TokenOff = append(d.TokenOff, len(d.Attrs))
			d.Labels = append(d.Labels, int32((s*i)%2))
		}
		d.SentOff = append(d.SentOff, len(d.Labels))
	}
	return &learn.Problem{Train: d, NumAttrs: 3, NumLabels: 2, Transitions: true, Seed: 1, Threads: 1, Log: zerolog.Nop()}
}

// TestTooManyShards: more shards than sentences is an error at training
// time that says so; as many is fine.
func TestTooManyShards(t *testing.T) {
	_, err := Train(context.Background(), smallProblem(), "delta", &Config{Epochs: new(2), Shards: 6}, deltaRule{})
	if !errors.Is(err, ErrTooManyShards) || !strings.Contains(err.Error(), "delta: shards = 6, but the training data has 5 sentences") {
		t.Fatalf("6 shards of 5 sentences: %v", err)
	}
	if _, err := Train(context.Background(), smallProblem(), "delta", &Config{Epochs: new(2), Shards: 5}, deltaRule{}); err != nil {
		t.Fatalf("5 shards of 5 sentences: %v", err)
	}
}

// TestValidateShardsAndMix: the diagnostics' details begin with the
// setting's name, which is how the spec places them at the setting.
func TestValidateShardsAndMix(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string // "" for none
	}{
		{Config{}, ""},
		{Config{Shards: 8, Mix: "mistakes"}, ""},
		{Config{Shards: 1, Mix: "uniform"}, ""},
		{Config{Shards: -1}, "shards must be between 0 and 65536 (0 or 1 trains serially), got -1"},
		{Config{Shards: MaxShards + 1}, "shards must be between"},
		{Config{Shards: 4, Mix: "average"}, `mix must be "uniform" (the default) or "mistakes", got "average"`},
	} {
		d := tc.cfg.Validate()
		switch {
		case tc.want == "" && len(d) > 0:
			t.Errorf("%+v: %v", tc.cfg, d)
		case tc.want != "" && (len(d) != 1 || d[0].Severity != hcl.DiagError || !strings.HasPrefix(d[0].Detail, tc.want)):
			t.Errorf("%+v: %v, want one error beginning %q", tc.cfg, d, tc.want)
		}
	}
}

// TestReplicaAllocatesNothing: once warmed up, a shard's epoch and the
// mix of its result allocate nothing.
func TestReplicaAllocatesNothing(t *testing.T) {
	p := smallProblem()
	r := rand.New(rand.NewPCG(1, 2))
	for s := 0; s < 40; s++ {
		for i := 0; i < 4; i++ {
			p.Train.Attrs = append(p.Train.Attrs, int32(r.IntN(3)))
			p.Train.TokenOff = append(p.Train.TokenOff, len(p.Train.Attrs))
			p.Train.Labels = append(p.Train.Labels, int32(r.IntN(2)))
		}
		p.Train.SentOff = append(p.Train.SentOff, len(p.Train.Labels))
	}
	m := learn.NewModel("all", p)
	rep := NewReplica(m, p, deltaRule{})
	in := ShardInput{W: make([]float64, len(m.W)), U: make([]float64, len(m.W)), C: 1}
	for s := 0; s < p.Train.NumSentences(); s++ {
		in.Order = append(in.Order, s)
	}
	x := NewMixer(MixMistakes, 2, len(m.W), 0)
	epoch := func() {
		x.Reset()
		for range 2 {
			res, err := rep.Epoch(&in, nil)
			if err != nil {
				t.Fatal(err)
			}
			x.Add(&in, res)
		}
		if err := x.Finish(&in); err != nil {
			t.Fatal(err)
		}
	}
	epoch()
	if a := testing.AllocsPerRun(5, epoch); a != 0 {
		t.Fatalf("%v allocations per mixed epoch", a)
	}
}
