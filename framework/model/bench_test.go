package model

import (
	"os"
	"testing"
)

// BenchmarkDecode decodes a model file from memory, as every trellis tag
// does at its start:
//
//	TRELLIS_BENCH_MODEL=/tmp/crf/models/crf.model go test -run x -bench Decode ./framework/model
func BenchmarkDecode(b *testing.B) {
	path := os.Getenv("TRELLIS_BENCH_MODEL")
	if path == "" {
		b.Skip("set TRELLIS_BENCH_MODEL to a model file (trellis run specs/conll2000.hcl --learner crf)")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}
