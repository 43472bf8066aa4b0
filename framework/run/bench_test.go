package run

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/crf"
	"github.com/trellis-nlp/trellis/framework/learn/online"
	"github.com/trellis-nlp/trellis/framework/learn/perceptron"
	"github.com/trellis-nlp/trellis/framework/linear"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// encodeConll2000 encodes CoNLL-2000 train with specs/conll2000.hcl, or
// skips when ../shared/data is absent.
func encodeConll2000(tb testing.TB) *encoded {
	return encodeConll2000Spec(tb, "conll2000.hcl")
}

// encodeConll2000Spec encodes CoNLL-2000 train with the named spec of
// specs/, or skips when ../shared/data is absent.
func encodeConll2000Spec(tb testing.TB, name string) *encoded {
	tb.Helper()
	specPath := filepath.Join("..", "..", "specs", name)
	if _, err := os.Stat(filepath.Join("..", "..", "..", "shared", "data", "conll2000", "train.txt")); err != nil {
		tb.Skip("needs ../shared/data/conll2000 (the public corpora beside the checkout)")
	}
	templates, learners := builtin.Registries()
	s, diags := spec.LoadFile(specPath, nil, spec.Registries{Templates: templates, Learners: learners})
	if diags.HasErrors() {
		tb.Fatal(diags)
	}
	enc, err := encodeTraining(context.Background(), newSession(&Options{Spec: s, Templates: templates, Log: zerolog.Nop()}))
	if err != nil {
		tb.Fatal(err)
	}
	return enc
}

// BenchmarkCRFGradientConll2000 is one evaluation of the CRF objective and
// its gradient on CoNLL-2000 train with CRFsuite's baseline features, the
// unit of work of every L-BFGS iteration. Run with -cpu 1,2.
func BenchmarkCRFGradientConll2000(b *testing.B) {
	benchGradient(b, "conll2000.hcl")
}

// BenchmarkCRFGradientConll2000Bigram is the same with the BIOES encoding,
// without and with the bigram templates of specs/conll2000-bigram.hcl
// (input-conditioned transitions): the cost per L-BFGS iteration of the
// second against the first order (issue 15).
func BenchmarkCRFGradientConll2000Bigram(b *testing.B) {
	for _, name := range []string{"conll2000-bioes.hcl", "conll2000-bigram.hcl"} {
		b.Run(name, func(b *testing.B) { benchGradient(b, name) })
	}
}

// BenchmarkCRFGradientConll2000Order2 is the same with CRFsuite's
// baseline features, first order (specs/conll2000.hcl) and second order
// (specs/conll2000-order2.hcl: label trigrams): the cost per L-BFGS
// iteration of the second order against the first.
func BenchmarkCRFGradientConll2000Order2(b *testing.B) {
	for _, name := range []string{"conll2000.hcl", "conll2000-order2.hcl"} {
		b.Run(name, func(b *testing.B) { benchGradient(b, name) })
	}
}

// BenchmarkPerceptronEpochConll2000Order2 is one averaged-perceptron
// epoch (decode every training sentence, update where it errs) on
// CoNLL-2000 train with CRFsuite's baseline features, first and second
// order: the cost per epoch of the second order against the first.
func BenchmarkPerceptronEpochConll2000Order2(b *testing.B) {
	for _, name := range []string{"conll2000.hcl", "conll2000-order2.hcl"} {
		b.Run(name, func(b *testing.B) {
			enc := encodeConll2000Spec(b, name)
			p := &learn.Problem{Train: enc.train, NumAttrs: enc.mapper.Attrs().Len(), NumLabels: enc.mapper.Labels().Len(),
				Transitions: enc.mapper.Transitions(), Order: enc.mapper.Order(), Constraints: scheme.Constraints(enc.mapper.Labels().Names(), scheme.IOB2),
				Seed: 1, Threads: 1, Log: zerolog.Nop()}
			cfg := &online.Config{Epochs: new(1)}
			b.ResetTimer()
			for b.Loop() {
				if _, err := online.Train(context.Background(), p, "perceptron", cfg, perceptron.Rule{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(enc.train.NumTokens())*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

func benchGradient(b *testing.B, specName string) {
	enc := encodeConll2000Spec(b, specName)
	p := &learn.Problem{Train: enc.train, NumAttrs: enc.mapper.Attrs().Len(), NumLabels: enc.mapper.Labels().Len(),
		Transitions: enc.mapper.Transitions(), Pairs: enc.mapper.PairAttrs(), Order: enc.mapper.Order(), Threads: 0, Log: zerolog.Nop()}
	g := crf.NewGradient(p, "observed", 1)
	x := make([]float64, len(g.Model.W))
	for i := range x {
		x[i] = 0.01 * float64(i%7-3)
	}
	grad := make([]float64, len(x))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		g.Evaluate(x, grad)
	}
	b.ReportMetric(float64(enc.train.NumTokens())*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkStateScoresConll2000 is the state-scoring kernel alone —
// linear.Scorer.StateScores over every sentence of CoNLL-2000 train with
// CRFsuite's baseline features (specs/conll2000.hcl), the model's
// observed features and random weights — in the packed layout (the
// tagger's, NewScorer, with hot rows), in place (the perceptron's,
// InPlaceScorer) and in place with hot rows (the CRF gradient's). It tops the profiles of `trellis tag`
// and of CRF training (issue 15); its speed depends on the real
// distribution of attributes over the model's arrays (which of them
// stay in cache), so a synthetic corpus is no stand-in.
func BenchmarkStateScoresConll2000(b *testing.B) {
	enc := encodeConll2000(b)
	d := enc.train
	m := linear.NewObserved(d, enc.mapper.Attrs().Len(), enc.mapper.Labels().Len(), true)
	r := rand.New(rand.NewPCG(15, 2000))
	for i := range m.W {
		m.W[i] = r.NormFloat64()
	}
	hotInPlace := m.InPlaceScorer(m.W)
	hot := m.HotRows()
	hotInPlace.UseHotRows(hot, hot.Gather(nil, m.W))
	for _, c := range []struct {
		name string
		sc   *linear.Scorer
	}{
		{"packed", m.NewScorer(m.W)},
		{"in-place", m.InPlaceScorer(m.W)},
		{"in-place-hot", hotInPlace},
	} {
		b.Run(c.name, func(b *testing.B) {
			dst := make([]float64, d.MaxSentenceLen()*m.NumLabels)
			b.ReportAllocs()
			for b.Loop() {
				for s := 0; s < d.NumSentences(); s++ {
					lo, hi := d.Sentence(s)
					c.sc.StateScores(dst[:(hi-lo)*m.NumLabels], d, lo, hi)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(d.NumTokens()), "ns/token")
		})
	}
}

// BenchmarkSGDEpochConll2000 is one SGD epoch of the CRF on CoNLL-2000
// train with CRFsuite's baseline features (the warm start's unit of
// work), one sentence per step and batches of 8 and 16, whose two lanes
// run side by side: run with -cpu 1,2.
func BenchmarkSGDEpochConll2000(b *testing.B) {
	enc := encodeConll2000(b)
	for _, batch := range []int{1, 8, 16} {
		b.Run("batch="+strconv.Itoa(batch), func(b *testing.B) {
			p := &learn.Problem{Train: enc.train, NumAttrs: enc.mapper.Attrs().Len(), NumLabels: enc.mapper.Labels().Len(),
				Transitions: enc.mapper.Transitions(), Seed: 1, Threads: runtime.GOMAXPROCS(0), Log: zerolog.Nop()}
			l := crf.New().(*crf.Learner)
			cfg := l.Config().(*crf.Config)
			cfg.Algorithm, cfg.MaxIterations, cfg.BatchSize = "sgd", 1, batch
			b.ResetTimer()
			for b.Loop() {
				if _, err := l.Train(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(enc.train.NumTokens())*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}
