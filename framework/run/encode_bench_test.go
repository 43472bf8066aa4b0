package run

import (
	"testing"
)

// BenchmarkEncodeTrainingConll2000 is the training side of a run on
// CoNLL-2000 with specs/conll2000.hcl: reading train, fitting the feature
// mapper (extraction, interning, min_count pruning) and encoding dev, the
// work every run does once before its learners start.
func BenchmarkEncodeTrainingConll2000(b *testing.B) {
	encodeConll2000(b) // skips without the data; warms the page cache
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		encodeConll2000(b)
	}
}
