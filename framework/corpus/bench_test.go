package corpus

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// benchRead reads the shared-data file rel with cfg over and over from
// memory, reporting tokens per second. With recycle, every sentence is
// handed back to the reader (Recycler) once read, as a tagger's stream
// does.
func benchRead(b *testing.B, rel string, cfg Config, recycle bool) {
	data, err := os.ReadFile(dataFile(b, rel))
	if err != nil {
		b.Fatal(err)
	}
	f := mustNew(b, cfg)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	tokens, sents := 0, 0
	for b.Loop() {
		r := f.NewReader(bytes.NewReader(data), rel, ReadOptions{})
		for {
			s, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			tokens += s.Len()
			sents++
			if recycle {
				r.(Recycler).Recycle(s)
			}
		}
	}
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
	b.ReportMetric(float64(sents)/float64(b.N), "sentences/op")
}

func BenchmarkReadCoNLL(b *testing.B) {
	cfg := Config{Name: "conll", Columns: []string{"word", "pos", "chunk"}, Label: "chunk"}
	b.Run("kept", func(b *testing.B) { benchRead(b, "conll2000/train.txt", cfg, false) })
	b.Run("recycled", func(b *testing.B) { benchRead(b, "conll2000/train.txt", cfg, true) })
}

func BenchmarkReadCoNLLU(b *testing.B) {
	cfg := Config{Name: "conllu", Label: "upos"}
	b.Run("kept", func(b *testing.B) { benchRead(b, "ud-english-ewt/en_ewt-ud-train.conllu", cfg, false) })
	b.Run("recycled", func(b *testing.B) { benchRead(b, "ud-english-ewt/en_ewt-ud-train.conllu", cfg, true) })
}

func BenchmarkReadChars(b *testing.B) {
	benchRead(b, "sighan2005-msr/msr_test_gold.utf8", Config{Name: "chars", Label: "label"}, false)
}

func BenchmarkWriteCoNLL(b *testing.B) {
	path := dataFile(b, "conll2000/train.txt")
	f := mustNew(b, Config{Name: "conll", Columns: []string{"word", "pos", "chunk"}, Label: "chunk"})
	sents, err := ReadAll(f, path, ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	labels := make([][]string, len(sents))
	tokens := 0
	for i, s := range sents {
		labels[i] = labelsOf(s, 2)
		tokens += s.Len()
	}
	b.ReportAllocs()
	for b.Loop() {
		w := f.NewWriter(io.Discard)
		for i, s := range sents {
			if err := w.Write(s, labels[i]); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(tokens*b.N)/b.Elapsed().Seconds(), "tokens/s")
}
