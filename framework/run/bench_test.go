package run

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/crf"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// encodeConll2000 encodes CoNLL-2000 train with specs/conll2000.hcl, or
// skips when ../shared/data is absent.
func encodeConll2000(tb testing.TB) *encoded {
	tb.Helper()
	specPath := filepath.Join("..", "..", "specs", "conll2000.hcl")
	if _, err := os.Stat(filepath.Join("..", "..", "..", "shared", "data", "conll2000", "train.txt")); err != nil {
		tb.Skip("needs ../shared/data/conll2000 (the public corpora beside the checkout)")
	}
	templates, learners := builtin.Registries()
	s, diags := spec.LoadFile(specPath, nil, spec.Registries{Templates: templates, Learners: learners})
	if diags.HasErrors() {
		tb.Fatal(diags)
	}
	enc, err := encodeTraining(context.Background(), Options{Spec: s, Templates: templates, Log: zerolog.Nop()})
	if err != nil {
		tb.Fatal(err)
	}
	return enc
}

// BenchmarkCRFGradientConll2000 is one evaluation of the CRF objective and
// its gradient on CoNLL-2000 train with CRFsuite's baseline features, the
// unit of work of every L-BFGS iteration. Run with -cpu 1,2.
func BenchmarkCRFGradientConll2000(b *testing.B) {
	enc := encodeConll2000(b)
	p := &learn.Problem{Train: enc.train, NumAttrs: enc.mapper.Attrs().Len(), NumLabels: enc.mapper.Labels().Len(),
		Transitions: enc.mapper.Transitions(), Threads: 0, Log: zerolog.Nop()}
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
