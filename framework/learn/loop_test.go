package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// toy is a learner of one weight whose steps the tests script: step k
// sets the weight to k and has loss 1/k, unless losses or weights say
// otherwise.
type toy struct {
	w        []float64
	ran      []int // the steps Step ran, in order
	losses   map[int]float64
	weight   map[int]float64
	stopAt   int // Evaluate asks to stop after this step
	cancel   func()
	cancelAt int
}

type toyState struct {
	K     int
	W     []float64
	Curve []Point
}

func (t *toy) loop(steps int) *Loop {
	return &Loop{
		Name: "toy", Unit: "epoch", CurveUnit: Epoch, Steps: steps, Work: 10, WorkUnit: "sentences", Hint: "a hint",
		Step: func(k int, tick func(int) error) (float64, error) {
			t.ran = append(t.ran, k)
			for i := 0; i < 10; i++ {
				if k == t.cancelAt && i == 5 {
					t.cancel()
				}
				if err := tick(i); err != nil {
					return 0, err
				}
			}
			t.w[0] = float64(k)
			if w, ok := t.weight[k]; ok {
				t.w[0] = w
			}
			if l, ok := t.losses[k]; ok {
				return l, nil
			}
			return 1 / float64(k), nil
		},
		Weights: func() []float64 { return t.w },
		Evaluate: func(k int, pt *Point) bool {
			pt.DevScore = float64(k) / 10
			return k == t.stopAt
		},
		Save: func(k int, curve []Point) ([]byte, error) {
			return EncodeState(&toyState{K: k, W: t.w, Curve: curve})
		},
		Restore: func(b []byte) (int, []Point, error) {
			var st toyState
			if err := DecodeState(b, &st); err != nil {
				return 0, nil, err
			}
			copy(t.w, st.W)
			return st.K, st.Curve, nil
		},
	}
}

func newToy() *toy { return &toy{w: make([]float64, 2), cancel: func() {}} }

func toyProblem() *Problem { return &Problem{Log: zerolog.Nop()} }

// withoutElapsed drops the timings, which differ between runs.
func withoutElapsed(c []Point) []Point {
	out := make([]Point, len(c))
	for i, pt := range c {
		pt.Elapsed = 0
		out[i] = pt
	}
	return out
}

func TestLoopCancellation(t *testing.T) {
	for _, tc := range []struct {
		name     string
		before   bool // cancelled before Run
		cancelAt int  // else cancelled in the middle of this step
		ran      []int
	}{
		{"before the first step", true, 0, nil},
		{"in step 1", false, 1, []int{1}},
		{"in step 3", false, 3, []int{1, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.before {
				cancel()
			}
			toy := newToy()
			toy.cancel, toy.cancelAt = cancel, tc.cancelAt
			var observed int
			p := toyProblem()
			p.Observe = func(Point) { observed++ }
			err := toy.loop(5).Run(ctx, p)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Run: %v, want context.Canceled", err)
			}
			if !reflect.DeepEqual(toy.ran, tc.ran) {
				t.Errorf("ran steps %v, want %v", toy.ran, tc.ran)
			}
			if want := max(len(tc.ran)-1, 0); observed != want {
				t.Errorf("observed %d points, want %d (the cancelled step records none)", observed, want)
			}
		})
	}
}

// TestLoopCurveUnit: every point recorded carries the loop's CurveUnit.
func TestLoopCurveUnit(t *testing.T) {
	var units []StepUnit
	p := toyProblem()
	p.Observe = func(pt Point) { units = append(units, pt.Unit) }
	if err := newToy().loop(3).Run(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if want := []StepUnit{Epoch, Epoch, Epoch}; !reflect.DeepEqual(units, want) {
		t.Errorf("units %v, want %v", units, want)
	}
}

func TestLoopNonFinite(t *testing.T) {
	for _, tc := range []struct {
		name   string
		losses map[int]float64
		weight map[int]float64
		want   string
	}{
		{"NaN loss", map[int]float64{3: math.NaN()}, nil, "toy: epoch 3 produced a non-finite objective (NaN); stopped (a hint)"},
		{"infinite loss", map[int]float64{1: math.Inf(1)}, nil, "toy: epoch 1 produced a non-finite objective (+Inf)"},
		{"infinite weight", nil, map[int]float64{2: math.Inf(-1)}, "toy: epoch 2 made weight 0 non-finite (-Inf); stopped (a hint)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			toy := newToy()
			toy.losses, toy.weight = tc.losses, tc.weight
			var curve []Point
			p := toyProblem()
			p.Observe = func(pt Point) { curve = append(curve, pt) }
			err := toy.loop(5).Run(context.Background(), p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run: %v, want an error containing %q", err, tc.want)
			}
			if last := toy.ran[len(toy.ran)-1]; len(curve) != last-1 {
				t.Errorf("%d points observed, want %d (none for the non-finite step)", len(curve), last-1)
			}
		})
	}
}

func TestLoopCheckpointCadence(t *testing.T) {
	for _, tc := range []struct {
		name   string
		every  int
		steps  int
		stopAt int
		saved  []int
	}{
		{"every 2 of 7", 2, 7, 0, []int{2, 4, 6}},
		{"not after the last step", 3, 6, 0, []int{3}},
		{"every step", 1, 3, 0, []int{1, 2}},
		{"never", 0, 5, 0, nil},
		{"not after an early stop", 2, 9, 4, []int{2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			toy := newToy()
			toy.stopAt = tc.stopAt
			var saved []int
			p := toyProblem()
			p.Checkpoints = &Checkpoints{Every: tc.every, Save: func(b []byte) error {
				var st toyState
				if err := DecodeState(b, &st); err != nil {
					return err
				}
				if len(st.Curve) != st.K {
					t.Errorf("the checkpoint after step %d holds %d curve points", st.K, len(st.Curve))
				}
				saved = append(saved, st.K)
				return nil
			}}
			if err := toy.loop(tc.steps).Run(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(saved, tc.saved) {
				t.Errorf("saved after %v, want %v", saved, tc.saved)
			}
		})
	}
}

func TestLoopCheckpointSaveError(t *testing.T) {
	p := toyProblem()
	p.Checkpoints = &Checkpoints{Every: 2, Save: func([]byte) error { return errors.New("disk full") }}
	err := newToy().loop(5).Run(context.Background(), p)
	if err == nil || err.Error() != "toy: saving the checkpoint after epoch 2: disk full" {
		t.Fatalf("Run: %v", err)
	}
}

// TestLoopResume: resuming from any checkpoint replays its curve through
// Observe, then runs the remaining steps only, so the observed curve and
// final weights are those of the uninterrupted run.
func TestLoopResume(t *testing.T) {
	const steps = 7
	full := newToy()
	var want []Point
	var saved [][]byte
	p := toyProblem()
	p.Observe = func(pt Point) { want = append(want, pt) }
	p.Checkpoints = &Checkpoints{Every: 2, Save: func(b []byte) error { saved = append(saved, b); return nil }}
	if err := full.loop(steps).Run(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if len(saved) != 3 {
		t.Fatalf("%d checkpoints, want 3", len(saved))
	}
	for i, b := range saved {
		k := 2 * (i + 1)
		t.Run(fmt.Sprintf("after step %d", k), func(t *testing.T) {
			toy := newToy()
			var got []Point
			p := toyProblem()
			p.Observe = func(pt Point) { got = append(got, pt) }
			p.Checkpoints = &Checkpoints{Every: 2, Resume: b}
			if err := toy.loop(steps).Run(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			if toy.ran[0] != k+1 || len(toy.ran) != steps-k {
				t.Errorf("ran steps %v, want %d..%d", toy.ran, k+1, steps)
			}
			if !reflect.DeepEqual(withoutElapsed(got), withoutElapsed(want)) {
				t.Errorf("curve %v, want %v", got, want)
			}
			if !reflect.DeepEqual(toy.w, full.w) {
				t.Errorf("weights %v, want %v", toy.w, full.w)
			}
		})
	}
	t.Run("unreadable", func(t *testing.T) {
		p := toyProblem()
		p.Checkpoints = &Checkpoints{Resume: []byte("not a state")}
		if err := newToy().loop(steps).Run(context.Background(), p); err == nil {
			t.Fatal("Run resumed from garbage")
		}
	})
}

func TestBest(t *testing.T) {
	for _, tc := range []struct {
		name   string
		scores []float64
		keep   bool
		at     int
		w      []float64
	}{
		{"improving", []float64{0.1, 0.2, 0.3}, true, 3, []float64{3}},
		{"peak in the middle", []float64{0.1, 0.5, 0.3}, true, 2, []float64{2}},
		{"ties keep the first", []float64{0.5, 0.5}, true, 1, []float64{1}},
		{"weights not kept", []float64{0.1, 0.5}, false, 2, nil},
		{"NaN never best", []float64{math.NaN()}, true, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBest()
			for i, s := range tc.scores {
				var w []float64
				if tc.keep {
					w = []float64{float64(i + 1)}
				}
				b.Consider(i+1, s, w)
			}
			if b.At != tc.at || !reflect.DeepEqual(b.W, tc.w) {
				t.Errorf("best at %d with %v, want %d with %v", b.At, b.W, tc.at, tc.w)
			}
			dst := []float64{-1}
			b.Restore(dst)
			if tc.w != nil && dst[0] != tc.w[0] || tc.w == nil && dst[0] != -1 {
				t.Errorf("Restore wrote %v", dst)
			}
		})
	}
}
