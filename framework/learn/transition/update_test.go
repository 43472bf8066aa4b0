package transition

import (
	"context"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/scheme"
)

func ptr[T any](v T) *T { return &v }

// tiny is one sentence of three tokens, token i with attribute i alone,
// all labelled 1 ("B"), over labels A and B, with a decisions template of
// label bigrams (previous = 2).
func tiny() *learn.Problem {
	d := &feature.Dataset{Attrs: []int32{0, 1, 2}, TokenOff: []int{0, 1, 2, 3}, SentOff: []int{0, 3}, Labels: []int32{1, 1, 1}}
	return &learn.Problem{Train: d, NumAttrs: 3, NumLabels: 2, Transitions: true, Seed: 1, Log: zerolog.Nop(),
		History: &learn.History{Name: "h", Decisions: feature.Decisions{Previous: 2}, Labels: []string{"A", "B"}}}
}

// weights names the weights of tiny's model: state (attribute, label),
// transitions, start, stop and history (attribute name, label).
type weights struct {
	r *run
}

func (w weights) state(a, y int) int { return a*2 + y }
func (w weights) trans(p, c int) int { return w.r.nf + p*2 + c }
func (w weights) start(y int) int    { return w.r.nf + 4 + y }
func (w weights) stop(y int) int     { return w.r.nf + 6 + y }
func (w weights) hist(name string, y int) int {
	h := slices.Index(w.r.lay.Names(), "h/prev2="+name)
	if h < 0 {
		panic(name)
	}
	return w.r.hBase + h*2 + y
}

// start builds a run of cfg on tiny with the state weights (0, A) = 1,
// (1, A) = 3, (2, A) = 5, so that A scores above the gold B everywhere.
func start(t *testing.T, cfg Config) (*run, weights, []float64) {
	t.Helper()
	cfg.Features, cfg.Shuffle, cfg.Average, cfg.Epochs = "all", ptr(false), ptr(false), ptr(1)
	r, err := newRun(tiny(), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	w := weights{r}
	for a, v := range []float64{1, 3, 5} {
		r.add(w.state(a, 0), v)
	}
	return r, w, slices.Clone(r.w)
}

// check compares r's weights with want plus the hand-computed changes.
func check(t *testing.T, r *run, want []float64, changes map[int]float64) {
	t.Helper()
	for f, v := range changes {
		want[f] += v
	}
	for f := range want {
		if r.w[f] != want[f] {
			t.Errorf("weight %d: %v, want %v", f, r.w[f], want[f])
		}
	}
}

// TestEarlyUpdate: with beam 2 the beam after token 0 is [A] (1), [B] (0);
// after token 1 it is [A A] (4), [B A] (3): gold [B B] (0) has fallen out,
// so the update is Φ(B B) − Φ(A A) over the first two positions, without
// a stop feature.
func TestEarlyUpdate(t *testing.T) {
	r, w, want := start(t, Config{Beam: ptr(2), Update: "early"})
	if !r.sentence(0, 1) {
		t.Fatal("no update")
	}
	check(t, r, want, map[int]float64{
		w.state(0, 1): 1, w.state(0, 0): -1, w.state(1, 1): 1, w.state(1, 0): -1,
		w.start(1): 1, w.start(0): -1, w.trans(1, 1): 1, w.trans(0, 0): -1,
		w.hist("<s>|<s>", 1): 1, w.hist("<s>|<s>", 0): -1,
		w.hist("<s>|B", 1): 1, w.hist("<s>|A", 0): -1,
	})
}

// TestMaxViolation: the violations (best prefix − gold prefix) are 1, 4
// and 9 (best [A A A] = 1+3+5, gold 0), so the update is at the full
// length: Φ(B B B) − Φ(A A A), stop included.
func TestMaxViolation(t *testing.T) {
	r, w, want := start(t, Config{Beam: ptr(2), Update: "max_violation"})
	if !r.sentence(0, 1) {
		t.Fatal("no update")
	}
	check(t, r, want, map[int]float64{
		w.state(0, 1): 1, w.state(0, 0): -1, w.state(1, 1): 1, w.state(1, 0): -1, w.state(2, 1): 1, w.state(2, 0): -1,
		w.start(1): 1, w.start(0): -1, w.trans(1, 1): 2, w.trans(0, 0): -2, w.stop(1): 1, w.stop(0): -1,
		w.hist("<s>|<s>", 1): 1, w.hist("<s>|<s>", 0): -1,
		w.hist("<s>|B", 1): 1, w.hist("<s>|A", 0): -1,
		w.hist("B|B", 1): 1, w.hist("A|A", 0): -1,
	})
}

// TestMaxViolationEarlier: when the violation shrinks after a position,
// max-violation updates at that position's prefix (here the second: the
// third token's weight for B makes up most of the gap).
func TestMaxViolationEarlier(t *testing.T) {
	r, w, want := start(t, Config{Beam: ptr(2), Update: "max_violation"})
	r.add(w.state(2, 1), 10) // token 2: B 10, A 5
	want[w.state(2, 1)] = 10
	// Violations: 1 ([A] vs [B]); 4 ([A A] vs [B B]); at the end the best
	// is [A A B] = 14 against gold 10: 4, not above the earlier 4.
	if !r.sentence(0, 1) {
		t.Fatal("no update")
	}
	check(t, r, want, map[int]float64{
		w.state(0, 1): 1, w.state(0, 0): -1, w.state(1, 1): 1, w.state(1, 0): -1,
		w.start(1): 1, w.start(0): -1, w.trans(1, 1): 1, w.trans(0, 0): -1,
		w.hist("<s>|<s>", 1): 1, w.hist("<s>|<s>", 0): -1,
		w.hist("<s>|B", 1): 1, w.hist("<s>|A", 0): -1,
	})
}

// TestGreedyGoldRollin: with β = 1 the history is gold: the model predicts
// A at every position and each update is toward B after the gold history.
func TestGreedyGoldRollin(t *testing.T) {
	r, w, want := start(t, Config{})
	r.sentence(0, 1)
	check(t, r, want, map[int]float64{
		w.state(0, 1): 1, w.state(0, 0): -1, w.state(1, 1): 1, w.state(1, 0): -1, w.state(2, 1): 1, w.state(2, 0): -1,
		w.start(1): 1, w.start(0): -1, w.trans(1, 1): 2, w.trans(1, 0): -2, w.stop(1): 1, w.stop(0): -1,
		w.hist("<s>|<s>", 1): 1, w.hist("<s>|<s>", 0): -1,
		w.hist("<s>|B", 1): 1, w.hist("<s>|B", 0): -1,
		w.hist("B|B", 1): 1, w.hist("B|B", 0): -1,
	})
}

// TestGreedyOwnRollin: with β = 0 the history is the model's own
// predictions (A A): each update is toward B after that history (the
// dynamic oracle's label for a per-token loss).
func TestGreedyOwnRollin(t *testing.T) {
	r, w, want := start(t, Config{})
	r.sentence(0, 0)
	if !slices.Equal(r.rolled, []int32{0, 0, 0}) {
		t.Fatalf("rolled in %v", r.rolled)
	}
	check(t, r, want, map[int]float64{
		w.state(0, 1): 1, w.state(0, 0): -1, w.state(1, 1): 1, w.state(1, 0): -1, w.state(2, 1): 1, w.state(2, 0): -1,
		w.start(1): 1, w.start(0): -1, w.trans(0, 1): 2, w.trans(0, 0): -2, w.stop(1): 1, w.stop(0): -1,
		w.hist("<s>|<s>", 1): 1, w.hist("<s>|<s>", 0): -1,
		w.hist("<s>|A", 1): 1, w.hist("<s>|A", 0): -1,
		w.hist("A|A", 1): 1, w.hist("A|A", 0): -1,
	})
}

// TestTrain: training learns tiny (beam and greedy), the result carries
// the history attributes and the width, and it is reproducible.
func TestTrain(t *testing.T) {
	for _, cfg := range []Config{{}, {Beam: ptr(3)}, {Beam: ptr(2), Update: "max_violation"}, {Beta: ptr(0.5)}} {
		l := &Learner{cfg: cfg}
		if d := l.Validate(); d.HasErrors() {
			t.Fatal(d)
		}
		a, err := l.Train(context.Background(), tiny())
		if err != nil {
			t.Fatal(err)
		}
		b, _ := l.Train(context.Background(), tiny())
		if !slices.Equal(a.Model.W, b.Model.W) {
			t.Error("two runs differ")
		}
		if a.SearchBeam != l.SearchBeam() || len(a.ExtraAttrs) != 9 || a.Model.NumAttrs() != 3+9 {
			t.Errorf("beam %d, %d extra attributes, %d attributes", a.SearchBeam, len(a.ExtraAttrs), a.Model.NumAttrs())
		}
	}
}

// TestValidate: a beam of 0 is refused.
func TestValidate(t *testing.T) {
	l := &Learner{cfg: Config{Beam: ptr(0)}}
	if d := l.Validate(); !d.HasErrors() || d[0].Summary != "Invalid beam width" {
		t.Errorf("beam 0: %v", d)
	}
}

// TestOracle: after a rolled-in O, gold I-A is forbidden under IOB2; the
// dynamic oracle's label is B-A (one error here, the rest of gold still
// reachable, gold's type kept). After B-A it is gold itself.
func TestOracle(t *testing.T) {
	labels := []string{"B-A", "I-A", "O"}
	d := &feature.Dataset{Attrs: []int32{0, 1, 2}, TokenOff: []int{0, 1, 2, 3}, SentOff: []int{0, 3}, Labels: []int32{0, 1, 1}}
	p := &learn.Problem{Train: d, NumAttrs: 3, NumLabels: 3, Transitions: true, Log: zerolog.Nop(),
		Constraints: scheme.Constraints(labels, scheme.IOB2), History: &learn.History{Labels: labels}}
	r, err := newRun(p, &Config{})
	if err != nil {
		t.Fatal(err)
	}
	r.scorer.Lattice(&r.sc, d, 0)
	gold := d.Labels
	for _, tc := range []struct {
		prefix []int32
		i      int
		want   int32
	}{{nil, 0, 0}, {[]int32{0}, 1, 1}, {[]int32{2}, 1, 0}, {[]int32{0, 2}, 2, 0}} {
		if got := r.oracle(tc.prefix, gold, tc.i); got != tc.want {
			t.Errorf("after %v at %d: oracle %d, want %d", tc.prefix, tc.i, got, tc.want)
		}
	}
}
