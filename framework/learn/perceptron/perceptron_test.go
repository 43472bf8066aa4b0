package perceptron

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/online"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// synthetic builds a dataset where label = attribute class, with a
// transition preference the state features cannot express alone: label 2
// always follows label 1. Attribute 3 is ambiguous between labels 1 and 2.
func synthetic(r *rand.Rand, sents int) *feature.Dataset {
	d := feature.NewDataset()
	for s := 0; s < sents; s++ {
		n := 2 + r.IntN(6)
		prev := int32(-1)
		for i := 0; i < n; i++ {
			y := int32(r.IntN(3))
			if prev == 1 {
				y = 2
			}
			a := y
			if y != 0 && r.IntN(2) == 0 {
				a = 3 // ambiguous
			}
			d.Attrs = append(d.Attrs, a, 4) // 4: a bias attribute
			d.TokenOff = append(d.TokenOff, len(d.Attrs))
			d.Labels = append(d.Labels, y)
			prev = y
		}
		d.SentOff = append(d.SentOff, len(d.Labels))
	}
	return d
}

func problem(d *feature.Dataset) *learn.Problem {
	return &learn.Problem{Train: d, NumAttrs: 5, NumLabels: 3, Transitions: true, Seed: 1, Threads: 1, Log: zerolog.Nop()}
}

func allTrue(n int) []bool {
	b := make([]bool, n)
	for i := range b {
		b[i] = true
	}
	return b
}

func accuracy(m *linear.Model, d *feature.Dataset) float64 {
	ws := lattice.NewWorkspace(m.NumLabels)
	var sc lattice.Scores
	correct := 0
	for s := 0; s < d.NumSentences(); s++ {
		m.Lattice(&sc, m.W, d, s)
		path := make([]int32, sc.N)
		ws.Viterbi(path, &sc)
		lo, _ := d.Sentence(s)
		for i, y := range path {
			if d.Labels[lo+i] == y {
				correct++
			}
		}
	}
	return float64(correct) / float64(d.NumTokens())
}

func TestLearnsTransitions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	train, test := synthetic(r, 300), synthetic(r, 100)
	res, err := New().Train(context.Background(), problem(train))
	if err != nil {
		t.Fatal(err)
	}
	// The ambiguous attribute is resolved only through the transition
	// 1→2; a per-token classifier tops out near 2/3 on those tokens.
	if acc := accuracy(res.Model, test); acc < 0.9 {
		t.Fatalf("accuracy %.3f, want >= 0.9", acc)
	}
}

func TestDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	d := synthetic(r, 100)
	a, err := New().Train(context.Background(), problem(d))
	if err != nil {
		t.Fatal(err)
	}
	b, err := New().Train(context.Background(), problem(d))
	if err != nil {
		t.Fatal(err)
	}
	for f := range a.Model.W {
		if a.Model.W[f] != b.Model.W[f] {
			t.Fatalf("weight %d differs between identical runs", f)
		}
	}
}

// TestConstrainedTraining: with a constraint forbidding 1→1, no decoded
// path during training or after it uses the bigram.
func TestConstrainedTraining(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	d := synthetic(r, 100)
	p := problem(d)
	c := &lattice.Constraints{Trans: allTrue(9), Start: allTrue(3), Stop: allTrue(3)}
	c.Trans[1*3+1] = false
	p.Constraints = c
	res, err := New().Train(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	// Gold never has 1→1 and constrained decoding never predicts it, so
	// no update may touch it (unconstrained, early epochs predict it and
	// push it negative).
	if w := res.Model.Trans()[4]; w != 0 {
		t.Fatalf("forbidden bigram has weight %v, want untouched 0", w)
	}
	p.Constraints = nil
	res, err = New().Train(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if w := res.Model.Trans()[4]; w == 0 {
		t.Fatalf("unconstrained training never touched 1→1; the test above proves nothing")
	}
}

// TestCheckpointResume: training interrupted after any checkpoint and
// resumed from it ends with the uninterrupted run's weights and info, to
// the bit, and replays the learning curve; with and without a dev set
// (best-epoch selection).
func TestCheckpointResume(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	d, dev := synthetic(r, 120), synthetic(r, 40)
	for _, withDev := range []bool{false, true} {
		t.Run(fmt.Sprintf("dev=%v", withDev), func(t *testing.T) {
			prob := func() *learn.Problem {
				p := problem(d)
				if withDev {
					p.Dev = dev
					p.DevScore = func(m *linear.Model) float64 { return accuracy(m, dev) }
				}
				return p
			}
			l := &Learner{cfg: Config{Epochs: new(7)}}
			var saved [][]byte
			p := prob()
			p.Checkpoints = &learn.Checkpoints{Every: 2, Save: func(b []byte) error {
				saved = append(saved, append([]byte(nil), b...))
				return nil
			}}
			var fullCurve []learn.Point
			p.Observe = func(pt learn.Point) { fullCurve = append(fullCurve, pt) }
			want, err := l.Train(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if len(saved) != 3 { // after epochs 2, 4, 6
				t.Fatalf("%d checkpoints for 7 epochs every 2", len(saved))
			}
			for k, b := range saved {
				p := prob()
				p.Checkpoints = &learn.Checkpoints{Every: 2, Save: func([]byte) error { return nil }, Resume: b}
				var curve []learn.Point
				p.Observe = func(pt learn.Point) { curve = append(curve, pt) }
				got, err := l.Train(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				for f := range want.Model.W {
					if math.Float64bits(got.Model.W[f]) != math.Float64bits(want.Model.W[f]) {
						t.Fatalf("resumed from checkpoint %d: weight %d = %v, want %v", k, f, got.Model.W[f], want.Model.W[f])
					}
				}
				if fmt.Sprint(got.Info) != fmt.Sprint(want.Info) {
					t.Errorf("resumed from checkpoint %d: info %v, want %v", k, got.Info, want.Info)
				}
				if len(curve) != len(fullCurve) || curve[len(curve)-1].Loss != fullCurve[len(fullCurve)-1].Loss {
					t.Errorf("resumed from checkpoint %d: curve of %d points, want %d", k, len(curve), len(fullCurve))
				}
			}
			// A checkpoint of another problem is refused.
			p = problem(synthetic(r, 50))
			p.Checkpoints = &learn.Checkpoints{Every: 2, Resume: saved[0]}
			if _, err := l.Train(context.Background(), p); err == nil || !strings.Contains(err.Error(), "does not fit") {
				t.Errorf("foreign checkpoint: %v", err)
			}
		})
	}
}

// TestNonFinite: updates that overflow the weights stop training with an
// error naming the epoch.
func TestNonFinite(t *testing.T) {
	d := synthetic(rand.New(rand.NewPCG(3, 4)), 60)
	d.Values = make([]float64, len(d.Attrs))
	for k := range d.Values {
		d.Values[k] = 1e308
	}
	_, err := New().Train(context.Background(), problem(d))
	if err == nil || !strings.Contains(err.Error(), "epoch 1 made weight") || !strings.Contains(err.Error(), "non-finite") {
		t.Fatalf("got %v", err)
	}
}

// TestRepeatsOnlineSettings: the config repeats every online setting with
// online.Config's type and tags, and they reach the online engine.
func TestRepeatsOnlineSettings(t *testing.T) {
	if err := online.CheckRepeats(&Config{}); err != nil {
		t.Fatal(err)
	}
	c := &Config{Epochs: new(4), Shuffle: new(false), Average: new(false), BestEpoch: new(false), Features: "all", InitModel: "m"}
	got := c.online()
	if *got.Epochs != 4 || *got.Shuffle || *got.Average || *got.BestEpoch || got.Features != "all" || got.InitModel != "m" {
		t.Fatalf("online settings %+v from %+v", got, c)
	}
}
