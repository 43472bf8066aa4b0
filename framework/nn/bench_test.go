// bench_test.go holds the benchmarks: gemm's float32 rate on the encoder's
// shapes, and the encoder's training (forward+backward) and inference
// (forward) throughput in tokens per second.

package nn

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkGemm reports gemm's float32 rate in GFLOP/s (2·m·n·k per call)
// on the products of the benchmark encoder: the input projection of a
// 30-token sentence ([30][200]·[400][200]ᵀ, layer 2, and [30][130]·…
// for layer 1), a 32-row batch, its weight gradient ([400][30]ᵀ·[30][200])
// and one recurrence step ([1][100]·[400][100]ᵀ).
func BenchmarkGemm(b *testing.B) {
	for _, c := range []struct {
		name    string
		tA, tB  bool
		m, n, k int
	}{
		{"proj_30x200x400", false, true, 30, 400, 200},
		{"proj_30x130x400", false, true, 30, 400, 130},
		{"proj_32x100x400", false, true, 32, 400, 100},
		{"wgrad_400x200x30", true, false, 400, 200, 30},
		{"dx_30x400x200", false, false, 30, 200, 400},
		{"step_1x100x400", false, true, 1, 400, 100},
	} {
		b.Run(c.name, func(b *testing.B) {
			rng := newRNG(1)
			a := toF32(randVec(rng, c.m*c.k, 1))
			w := toF32(randVec(rng, c.k*c.n, 1))
			out := make([]float32, c.m*c.n)
			x, y := mat(a, c.m, c.k), mat(w, c.k, c.n)
			if c.tA {
				x = mat(a, c.k, c.m).T()
			}
			if c.tB {
				y = mat(w, c.n, c.k).T()
			}
			for b.Loop() {
				gemm(1, x, y, 0, mat(out, c.m, c.n))
			}
			b.ReportMetric(2*float64(c.m*c.n*c.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkGemmParallel is BenchmarkGemm's input projection with one
// product per goroutine (b.RunParallel): with -cpu 2, the machine's
// 2-core float32 rate on the encoder's shapes, the limit its training
// is measured against (docs/results.md).
func BenchmarkGemmParallel(b *testing.B) {
	const m, n, k = 30, 400, 200
	b.RunParallel(func(pb *testing.PB) {
		rng := newRNG(1)
		a := toF32(randVec(rng, m*k, 1))
		w := toF32(randVec(rng, k*n, 1))
		out := make([]float32, m*n)
		for pb.Next() {
			gemm(1, mat(a, m, k), mat(w, n, k).T(), 0, mat(out, m, n))
		}
	})
	b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// benchConfig is Ma & Hovy's network: word dim 100, char CNN of 30 filters
// (char dim 30, window 3), one BiLSTM layer of 100 units per direction,
// 9 labels (CoNLL-2003 IOB), dropout 0.5.
func benchConfig() EncoderConfig {
	return EncoderConfig{
		Words: 20000, WordDim: 100, Chars: 100, CharDim: 30, CharFilters: 30, CharWindow: 3,
		Hidden: 100, Layers: 1, Labels: 9, InputDropout: 0.5, OutputDropout: 0.5,
	}
}

// benchSentences draws 30-token sentences of words of 3 to 9 characters
// (6 on average).
func benchSentences(n int) []*Sentence {
	rng := newRNG(2)
	cfg := benchConfig()
	var out []*Sentence
	for range n {
		s := &Sentence{}
		for range 30 {
			s.Words = append(s.Words, int32(rng.IntN(cfg.Words)))
			w := make([]int32, 3+rng.IntN(7))
			for i := range w {
				w[i] = int32(rng.IntN(cfg.Chars))
			}
			s.Chars = append(s.Chars, w)
		}
		out = append(out, s)
	}
	return out
}

func benchEncoder(b *testing.B, train bool) {
	e, err := NewEncoder[float32](benchConfig())
	if err != nil {
		b.Fatal(err)
	}
	e.Params.Init(newRNG(3))
	w := e.NewWorkspace()
	sents := benchSentences(16)
	dy := toF32(randVec(newRNG(4), 30*9, 0.1))
	pcg := rand.NewPCG(0, 0)
	drop := rand.New(pcg)
	if !train {
		drop = nil
	}
	tokens := 0
	for b.Loop() {
		s := sents[tokens/30%len(sents)]
		pcg.Seed(5, uint64(tokens))
		if _, err := w.Forward(s, drop); err != nil {
			b.Fatal(err)
		}
		if train {
			w.Backward(dy)
		}
		tokens += len(s.Words)
	}
	sec := b.Elapsed().Seconds()
	fwd, bwd := e.FLOPsPerToken(6)
	flops := fwd
	if train {
		flops += bwd
	}
	b.ReportMetric(float64(tokens)/sec, "tokens/s")
	b.ReportMetric(flops*float64(tokens)/sec/1e9, "GFLOP/s")
}

// BenchmarkEncoderTrain is forward+backward of one 30-token sentence per
// iteration, dropout on, on one goroutine.
func BenchmarkEncoderTrain(b *testing.B) { benchEncoder(b, true) }

// BenchmarkEncoderForward is inference (forward, no dropout) of one
// 30-token sentence per iteration, on one goroutine.
func BenchmarkEncoderForward(b *testing.B) { benchEncoder(b, false) }

// BenchmarkEncoderTrainParallel runs one Workspace per goroutine (b.RunParallel)
// and reports the total rate: how training scales over the machine's cores.
func BenchmarkEncoderTrainParallel(b *testing.B) {
	e, err := NewEncoder[float32](benchConfig())
	if err != nil {
		b.Fatal(err)
	}
	e.Params.Init(newRNG(3))
	sents := benchSentences(16)
	dy := toF32(randVec(newRNG(4), 30*9, 0.1))
	b.RunParallel(func(pb *testing.PB) {
		w := e.NewWorkspace()
		drop := rand.New(rand.NewPCG(6, 7))
		i := 0
		for pb.Next() {
			if _, err := w.Forward(sents[i%len(sents)], drop); err != nil {
				panic(fmt.Sprint(err))
			}
			w.Backward(dy)
			i++
		}
	})
	b.ReportMetric(float64(b.N*30)/b.Elapsed().Seconds(), "tokens/s")
}
