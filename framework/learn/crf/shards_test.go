package crf

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/internal/learntest"
	"github.com/trellis-nlp/trellis/framework/learn/online"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// sameBits fails t unless got and want are the same floats bit for bit.
func sameBits(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d weights, want %d", what, len(got), len(want))
	}
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: weight %d = %v, want %v", what, i, got[i], want[i])
		}
	}
}

// randomPoint is a weight vector of normal entries for m.
func randomPoint(r *rand.Rand, m *linear.Model) []float64 {
	x := make([]float64, len(m.W))
	for i := range x {
		x[i] = r.NormFloat64()
	}
	return x
}

// TestOneShardIsSerialSum: with one shard the objective and gradient are
// the plain serial sum — every sentence's loss and expected counts added
// in sentence order into one buffer, then the L2 term and the empirical
// counts — bit for bit, whatever the threads.
func TestOneShardIsSerialSum(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	d := learntest.Synthetic(r, 120, 1, true)
	m := linear.NewObserved(d, 5, 3, true)
	x := randomPoint(r, m)
	kind := objectiveKind{withTransitions, globalNorm}

	ref := newObjective(m, d, allSentences(d), kind, 0.5, 1)
	wk := ref.newWorker()
	want := make([]float64, len(x))
	loss := 0.0
	for s := range d.NumSentences() {
		loss += wk.sentence(ref, x, s, want)
	}
	wantF := loss + ref.regularize(x, want)

	for _, threads := range []int{1, 3} {
		o := newShardedObjective(m, d, allSentences(d), kind, 0.5, layout{1, threads})
		if len(o.shards) != 1 {
			t.Fatalf("%d shards, want 1", len(o.shards))
		}
		g := make([]float64, len(x))
		f := o.Evaluate(x, g)
		if math.Float64bits(f) != math.Float64bits(wantF) {
			t.Fatalf("threads=%d: objective %v, serial sum %v", threads, f, wantF)
		}
		sameBits(t, "one shard's gradient", g, want)
	}
}

// TestShardsModelThreads: L-BFGS and OWL-QN with shards = 5 give the same
// model bytes on 1, 3 and 5 threads; unset shards is DefaultShards.
func TestShardsModelThreads(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	d := learntest.Synthetic(r, 200, 1, false)
	c1, c2 := 0.5, 0.1
	for _, cfg := range []Training{
		{MaxIterations: 30, Shards: 5},
		{MaxIterations: 30, Shards: 5, C1: &c1, C2: &c2},
	} {
		var want []float64
		for _, threads := range []int{1, 3, 5} {
			res, err := (&Learner{cfg: Config{Training: cfg}}).Train(context.Background(), learntest.Problem(d, threads))
			if err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want = res.Model.W
				continue
			}
			sameBits(t, "shards = 5", res.Model.W, want)
		}
	}
	train := func(shards int) []float64 {
		res, err := (&Learner{cfg: Config{Training: Training{MaxIterations: 10, Shards: shards}}}).Train(context.Background(), learntest.Problem(d, 2))
		if err != nil {
			t.Fatal(err)
		}
		return res.Model.W
	}
	sameBits(t, "shards unset vs DefaultShards", train(0), train(DefaultShards))
}

// TestShardSum: shards computed one by one, each on a Gradient of its
// own (as remote workers would, in any order), and added in shard order
// by ShardSum give Evaluate's objective and gradient bit for bit; adding
// out of order or finishing early is refused.
func TestShardSum(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	d := learntest.Synthetic(r, 150, 1, true)
	p := learntest.Problem(d, 2)
	const shards = 7
	driver := NewShardedGradient(p, "observed", 0.3, shards)
	if driver.Shards() != shards {
		t.Fatalf("%d shards, want %d", driver.Shards(), shards)
	}
	x := randomPoint(r, driver.Model)
	want := make([]float64, len(x))
	wantF := driver.Evaluate(x, want)

	losses, grads := make([]float64, shards), make([][]float64, shards)
	for k := shards - 1; k >= 0; k-- {
		w := NewShardedGradient(learntest.Problem(d, 1), "observed", 0.3, shards)
		grads[k] = make([]float64, len(x))
		losses[k] = w.Shard(k, x, grads[k])
	}
	got := make([]float64, len(x))
	sum := driver.NewSum(got)
	if err := sum.Add(1, losses[1], grads[1]); !errors.Is(err, ErrShardOrder) {
		t.Fatalf("shard 1 first: %v, want ErrShardOrder", err)
	}
	for k := range shards - 1 {
		if err := sum.Add(k, losses[k], grads[k]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sum.Finish(x); !errors.Is(err, ErrShardOrder) {
		t.Fatalf("finished with a shard missing: %v, want ErrShardOrder", err)
	}
	if err := sum.Add(shards-1, losses[shards-1], grads[shards-1]); err != nil {
		t.Fatal(err)
	}
	f, err := sum.Finish(x)
	if err != nil {
		t.Fatal(err)
	}
	if math.Float64bits(f) != math.Float64bits(wantF) {
		t.Fatalf("reduced objective %v, Evaluate %v", f, wantF)
	}
	sameBits(t, "reduced gradient", got, want)
}

// trainMixed trains l's SGD on p by mixing even with one shard (Train
// mixes from two on), returning the weights.
func trainMixed(t *testing.T, l *Learner, p *learn.Problem) []float64 {
	t.Helper()
	s := l.settings()
	s.mixing = mixedSGD
	m, err := learn.StartModel(l.cfg.Features, p)
	if err != nil {
		t.Fatal(err)
	}
	obj := newShardedObjective(m, p.Train, allSentences(p.Train), l.form.objective(p), s.c2, layout{s.gradientShards(), p.Threads})
	if err := trainSGD(context.Background(), obj, s, p, newEarlyStop(0, -1, p, m), map[string]any{}); err != nil {
		t.Fatal(err)
	}
	return m.W
}

// TestMixedSGDOneShardSerial: parameter mixing over one shard is serial
// SGD bit for bit, with one sentence per step and with batches.
func TestMixedSGDOneShardSerial(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 38))
	d := learntest.Synthetic(r, 150, 1, false)
	for _, batch := range []int{1, 4} {
		l := &Learner{cfg: Config{Training: Training{Algorithm: "sgd", MaxIterations: 4, Shards: 1}, Speedups: Speedups{BatchSize: batch}}}
		res, err := l.Train(context.Background(), learntest.Problem(d, 2))
		if err != nil {
			t.Fatal(err)
		}
		sameBits(t, "one mixed shard vs serial SGD", trainMixed(t, l, learntest.Problem(d, 2)), res.Model.W)
	}
}

// TestMixedSGDThreads: mixed SGD's model bytes do not depend on the
// threads, it learns the data, and it is not serial SGD.
func TestMixedSGDThreads(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 40))
	train, test := learntest.Synthetic(r, 300, 1, false), learntest.Synthetic(r, 100, 1, false)
	l := &Learner{cfg: Config{Training: Training{Algorithm: "sgd", MaxIterations: 10, Shards: 3}}}
	var want []float64
	for _, threads := range []int{1, 2, 3} {
		res, err := l.Train(context.Background(), learntest.Problem(train, threads))
		if err != nil {
			t.Fatal(err)
		}
		if acc := learntest.Accuracy(res.Model, test); acc < 0.88 {
			t.Fatalf("accuracy %.4f, want >= 0.88", acc)
		}
		if res.Info["shards"] != 3 {
			t.Fatalf("info %v: want shards 3", res.Info)
		}
		if want == nil {
			want = res.Model.W
			continue
		}
		sameBits(t, "mixed SGD", res.Model.W, want)
	}
	serial := &Learner{cfg: Config{Training: Training{Algorithm: "sgd", MaxIterations: 10}}}
	res, err := serial.Train(context.Background(), learntest.Problem(train, 1))
	if err != nil {
		t.Fatal(err)
	}
	differ := false
	for i := range want {
		differ = differ || want[i] != res.Model.W[i]
	}
	if !differ {
		t.Fatal("three mixed shards gave serial SGD's weights")
	}
}

// TestMixedSGDReplicas: a driver outside the package — Deal, the shards'
// shuffles, SGDReplica.Epoch on replicas of its own (one per shard, run
// in reverse order) and SGDMixer — trains Train's mixed weights bit for
// bit.
func TestMixedSGDReplicas(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	d := learntest.Synthetic(r, 100, 1, false)
	const shards, epochs = 3, 3
	l := &Learner{cfg: Config{Training: Training{Algorithm: "sgd", MaxIterations: epochs, Shards: shards}, Speedups: Speedups{BatchSize: 2}}}
	res, err := l.Train(context.Background(), learntest.Problem(d, 2))
	if err != nil {
		t.Fatal(err)
	}
	dealt := online.Deal(allSentences(d), shards)
	var rngs []*rand.Rand
	var replicas []*SGDReplica
	for s := range shards {
		rngs = append(rngs, rand.New(rand.NewPCG(1, SGDShuffleStream+uint64(s))))
		rep, err := l.NewSGDReplica(learntest.Problem(d, 1))
		if err != nil {
			t.Fatal(err)
		}
		replicas = append(replicas, rep)
	}
	in := SGDShardInput{V: make([]float64, len(res.Model.W)), Scale: 1}
	clocks := make([]float64, shards)
	mixer := NewSGDMixer(shards, len(in.V))
	results := make([]SGDShardResult, shards)
	for range epochs {
		mixer.Reset()
		for s := shards - 1; s >= 0; s-- {
			order := dealt[s]
			rngs[s].Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			shard := SGDShardInput{V: in.V, Scale: in.Scale, T: clocks[s], Order: order}
			out, err := replicas[s].Epoch(&shard, nil)
			if err != nil {
				t.Fatal(err)
			}
			results[s] = *out
			clocks[s] = out.T
		}
		for s := range shards {
			mixer.Add(&results[s])
		}
		if _, err := mixer.Finish(&in); err != nil {
			t.Fatal(err)
		}
	}
	got := make([]float64, len(in.V))
	for j, v := range in.V {
		got[j] = in.Scale * v
	}
	sameBits(t, "replicas and mixer", got, res.Model.W)
}

// TestMixedSGDTooManyShards: more shards than sentences is refused,
// naming the counts.
func TestMixedSGDTooManyShards(t *testing.T) {
	d := learntest.Synthetic(rand.New(rand.NewPCG(43, 44)), 5, 1, false)
	l := &Learner{cfg: Config{Training: Training{Algorithm: "sgd", Shards: 6}}}
	if _, err := l.Train(context.Background(), learntest.Problem(d, 1)); !errors.Is(err, online.ErrTooManyShards) {
		t.Fatalf("shards = 6 on 5 sentences: %v, want ErrTooManyShards", err)
	}
}

// TestShardWorkAllocatesNothing: once warmed up, a shard's gradient, a
// shard's SGD epoch and the mixer's reduction allocate nothing.
func TestShardWorkAllocatesNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	d := learntest.Synthetic(r, 60, 1, false)
	g := NewShardedGradient(learntest.Problem(d, 1), "observed", 0.3, 3)
	x := randomPoint(r, g.Model)
	grad := make([]float64, len(x))
	if n := testing.AllocsPerRun(5, func() { g.Shard(1, x, grad) }); n != 0 {
		t.Errorf("Gradient.Shard: %v allocations", n)
	}
	sum := make([]float64, len(x))
	if n := testing.AllocsPerRun(5, func() {
		s := g.NewSum(sum)
		for k := range g.Shards() {
			_ = s.Add(k, 1, grad)
		}
		_, _ = s.Finish(x)
	}); n > 1 { // the ShardSum itself
		t.Errorf("ShardSum: %v allocations", n)
	}
	l := &Learner{cfg: Config{Training: Training{Algorithm: "sgd", Shards: 2}, Speedups: Speedups{BatchSize: 2}}}
	rep, err := l.NewSGDReplica(learntest.Problem(d, 1))
	if err != nil {
		t.Fatal(err)
	}
	in := SGDShardInput{V: make([]float64, len(rep.g.v)), Scale: 1, Order: allSentences(d)}
	mixer := NewSGDMixer(2, len(in.V))
	if n := testing.AllocsPerRun(5, func() {
		mixer.Reset()
		for range 2 {
			res, err := rep.Epoch(&in, nil)
			if err != nil {
				t.Fatal(err)
			}
			mixer.Add(res)
		}
		_, _ = mixer.Finish(&in)
	}); n != 0 {
		t.Errorf("SGDReplica.Epoch and SGDMixer: %v allocations", n)
	}
}
