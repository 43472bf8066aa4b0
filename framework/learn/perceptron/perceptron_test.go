package perceptron

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/learn/internal/learntest"

	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/online"
	"github.com/trellis-nlp/trellis/framework/linear"
)

func allTrue(n int) []bool {
	b := make([]bool, n)
	for i := range b {
		b[i] = true
	}
	return b
}

func TestLearnsTransitions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	train, test := learntest.Synthetic(r, 300, 2, false), learntest.Synthetic(r, 100, 2, false)
	res, err := New().Train(context.Background(), learntest.Problem(train, 1))
	if err != nil {
		t.Fatal(err)
	}
	// The ambiguous attribute is resolved only through the transition
	// 1→2; a per-token classifier tops out near 2/3 on those tokens.
	if acc := learntest.Accuracy(res.Model, test); acc < 0.9 {
		t.Fatalf("accuracy %.3f, want >= 0.9", acc)
	}
}

func TestDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	d := learntest.Synthetic(r, 100, 2, false)
	a, err := New().Train(context.Background(), learntest.Problem(d, 1))
	if err != nil {
		t.Fatal(err)
	}
	b, err := New().Train(context.Background(), learntest.Problem(d, 1))
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
	d := learntest.Synthetic(r, 100, 2, false)
	p := learntest.Problem(d, 1)
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
	d, dev := learntest.Synthetic(r, 120, 2, false), learntest.Synthetic(r, 40, 2, false)
	for _, withDev := range []bool{false, true} {
		t.Run(fmt.Sprintf("dev=%v", withDev), func(t *testing.T) {
			prob := func() *learn.Problem {
				p := learntest.Problem(d, 1)
				if withDev {
					p.Dev = dev
					p.DevScore = func(m *linear.Model) float64 { return learntest.Accuracy(m, dev) }
				}
				return p
			}
			l := &Learner{cfg: Config{online.Config{Epochs: new(7)}}}
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
			p = learntest.Problem(learntest.Synthetic(r, 50, 2, false), 1)
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
	d := learntest.Synthetic(rand.New(rand.NewPCG(3, 4)), 60, 2, false)
	d.Values = make([]float64, len(d.Attrs))
	for k := range d.Values {
		d.Values[k] = 1e308
	}
	_, err := New().Train(context.Background(), learntest.Problem(d, 1))
	if err == nil || !strings.Contains(err.Error(), "epoch 1 made weight") || !strings.Contains(err.Error(), "non-finite") {
		t.Fatalf("got %v", err)
	}
}
