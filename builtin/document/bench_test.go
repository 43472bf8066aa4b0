package document

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/trellis-nlp/trellis/framework/corpus"
)

// zipfCorpus is one document (a file without boundaries) of sentences of
// 15 words drawn from a Zipf distribution over 5,000 words, a third of
// them capitalised: frequent words recur thousands of times, which is
// where a quadratic index would show.
func zipfCorpus(tokens int) []*corpus.Sentence {
	rng := rand.New(rand.NewPCG(7, 7))
	z := rand.NewZipf(rng, 1.1, 1, 4999)
	var sents []*corpus.Sentence
	for n := 0; n < tokens; {
		s := &corpus.Sentence{File: "f"}
		for range 15 {
			k := z.Uint64()
			w := fmt.Sprintf("w%d", k)
			if k%3 == 0 {
				w = fmt.Sprintf("W%d", k)
			}
			s.Tokens = append(s.Tokens, []string{w, "O"})
		}
		sents = append(sents, s)
		n += 15
	}
	return sents
}

// BenchmarkOneDocument indexes and extracts a corpus that is one
// document; the time per token stays flat as the document grows
// (go test ./builtin/document -run XXX -bench OneDocument).
func BenchmarkOneDocument(b *testing.B) {
	for _, tokens := range []int{10_000, 100_000, 1_000_000} {
		sents := zipfCorpus(tokens)
		b.Run(fmt.Sprintf("tokens=%d", tokens), func(b *testing.B) {
			x := compile(b, Config{Column: "word"})
			sink := &discard{}
			for b.Loop() {
				if err := x.Documents(sents); err != nil {
					b.Fatal(err)
				}
				for _, s := range sents {
					if err := x.Extract(s, sink); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(tokens), "ns/token")
		})
	}
}
