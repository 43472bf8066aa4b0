package eval

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/trellis-nlp/trellis/framework/scheme"
)

// randomSentences draws sentences over labels, with characters from a
// small alphabet (so that words repeat and the vocabulary splits them).
func randomSentences(rng *rand.Rand, n int, labels []string, chars bool) []Sentence {
	alphabet := []string{"a", "b", "c"}
	out := make([]Sentence, n)
	for k := range out {
		m := rng.IntN(7) // empty sentences too
		s := Sentence{Gold: make([]string, m), Pred: make([]string, m)}
		if chars {
			s.Chars = make([]string, m)
		}
		for i := range m {
			s.Gold[i] = labels[rng.IntN(len(labels))]
			s.Pred[i] = s.Gold[i]
			if rng.IntN(3) == 0 {
				s.Pred[i] = labels[rng.IntN(len(labels))]
			}
			if chars {
				s.Chars[i] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		out[k] = s
	}
	return out
}

// TestPartialEqualsEvaluate scores random corpora whole with Evaluate and
// in random pieces with Partial (some pieces sent through JSON, merged in
// a shuffled order) and wants identical Results.
func TestPartialEqualsEvaluate(t *testing.T) {
	vocab := map[string]bool{"a": true, "ab": true, "c": true}
	cases := []struct {
		name   string
		o      Options
		labels []string
		chars  bool
	}{
		{"none", Options{Scheme: scheme.None}, []string{"NN", "VB", "DT", "JJ"}, false},
		{"iob2", Options{Scheme: scheme.IOB2}, []string{"O", "B-NP", "I-NP", "B-VP", "I-VP"}, false},
		{"iob1", Options{Scheme: scheme.IOB1}, []string{"O", "I-PER", "I-LOC", "B-LOC"}, false},
		{"bmes", Options{Scheme: scheme.BMES}, []string{"B", "M", "E", "S"}, true},
		{"bmes-vocabulary", Options{Scheme: scheme.BMES, Vocabulary: vocab}, []string{"B", "M", "E", "S"}, true},
		{"bmes-vocabulary-no-chars", Options{Scheme: scheme.BMES, Vocabulary: vocab}, []string{"B", "M", "E", "S"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(c.name))))
			for trial := range 20 {
				sents := randomSentences(rng, 1+rng.IntN(40), c.labels, c.chars)
				if c.chars && trial%5 == 4 {
					sents[rng.IntN(len(sents))].Chars = nil // one without: no IV/OOV split
				}
				want := Evaluate(sents, c.o)
				var parts []*Partial
				for start := 0; start < len(sents); {
					end := min(len(sents), start+1+rng.IntN(8))
					p := NewPartial(c.o)
					for _, s := range sents[start:end] {
						p.Add(s)
					}
					if rng.IntN(2) == 0 {
						p = roundTrip(t, p, c.o)
					}
					parts = append(parts, p)
					start = end
				}
				rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
				total := NewPartial(c.o)
				for _, p := range parts {
					total.Merge(p)
				}
				got := total.Result()
				if !reflect.DeepEqual(got, want) {
					gj, _ := json.Marshal(got)
					wj, _ := json.Marshal(want)
					t.Fatalf("trial %d: merged result differs\n got %s\nwant %s", trial, gj, wj)
				}
				if again := total.Result(); !reflect.DeepEqual(again, want) {
					t.Fatalf("trial %d: Result changed the counts", trial)
				}
			}
		})
	}
}

// roundTrip sends p through JSON the way a worker sends its counts, into
// a Partial made with o (which brings back the vocabulary).
func roundTrip(t *testing.T, p *Partial, o Options) *Partial {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var q Partial
	if err := json.Unmarshal(b, &q); err != nil {
		t.Fatal(err)
	}
	into := NewPartial(o)
	into.Merge(&q)
	return into
}

func TestPartialUnmarshalErrors(t *testing.T) {
	for _, in := range []string{
		`{"labels":["A"],"confusion":[]}`,
		`{"labels":["A","B"],"confusion":[[1,2],[3]]}`,
		`{"scheme":"nope"}`,
		`[1]`,
	} {
		var p Partial
		if err := json.Unmarshal([]byte(in), &p); err == nil {
			t.Errorf("%s: want an error", in)
		}
	}
}
