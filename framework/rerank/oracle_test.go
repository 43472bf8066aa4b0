// oracle_test.go checks the oracles against brute force over every choice
// of candidates, scored by framework/eval, and the serialization. (The
// jackknife guarantee is framework/run's: TestJackknife, TestRerankRun.)
package rerank

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/scheme"
)

// eval1 is conlleval's F1 of the chosen candidates, by framework/eval.
func eval1(lists []List, choice []int) float64 {
	r := eval.Evaluate(Sentences(lists, choice), eval.Options{Scheme: scheme.IOB2})
	return *r.F1
}

// everyChoice calls f with every choice of one candidate per list.
func everyChoice(lists []List, f func(choice []int)) {
	choice := make([]int, len(lists))
	for {
		f(choice)
		i := 0
		for ; i < len(lists); i++ {
			if choice[i]++; choice[i] < lists[i].K() {
				break
			}
			choice[i] = 0
		}
		if i == len(lists) {
			return
		}
	}
}

func TestOracleBruteForce(t *testing.T) {
	for seed := range uint64(60) {
		lists := syntheticLists(seed, 2+int(seed%4), 1+int(seed%3))
		rng := rand.New(rand.NewPCG(seed, 9))
		for i := range lists {
			// Rarely any gold left, to reach the F1 = 0 corners.
			if rng.IntN(4) == 0 {
				for t := range lists[i].Gold {
					lists[i].Gold[t] = "O"
				}
			}
		}
		ex, _ := NewExtractor(NewDict(), nil)
		set, err := Encode(lists, ex)
		if err != nil {
			t.Fatal(err)
		}
		best := -1.0
		everyChoice(lists, func(choice []int) {
			f := eval1(lists, choice)
			if got := set.Counts(choice).F1(); got != f {
				t.Fatalf("seed %d, choice %v: counts give F1 %g, eval %g", seed, choice, got, f)
			}
			best = max(best, f)
		})
		choice, c := set.Oracle()
		if f := eval1(lists, choice); f != best || c.F1() != best {
			t.Errorf("seed %d: oracle F1 %g (counts %g), brute force %g", seed, f, c.F1(), best)
		}
		// The per-sentence oracle: each list's best sentence F1.
		sent := set.SentenceOracle()
		for i := range lists {
			f := func(j int) float64 {
				r := eval.Evaluate(Sentences(lists[i:i+1], []int{j}), eval.Options{Scheme: scheme.IOB2})
				if r.GoldSpans+r.PredSpans == 0 {
					return 1
				}
				return *r.F1
			}
			for j := range lists[i].K() {
				if f(j) > f(sent[i]) || f(j) == f(sent[i]) && j < sent[i] {
					t.Errorf("seed %d, list %d: sentence oracle %d, but %d is as good and better ranked or better", seed, i, sent[i], j)
				}
			}
		}
	}
}

func TestModelRoundTrip(t *testing.T) {
	s := DefaultSettings()
	s.Features = []string{GroupNGram, GroupWords, GroupDoc}
	m, err := Train(context.Background(), syntheticLists(4, 100, 4), s)
	if err != nil {
		t.Fatal(err)
	}
	test := syntheticLists(5, 50, 4)
	want, err := m.Rerank(test)
	if err != nil {
		t.Fatal(err)
	}
	bin, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var fromBin, fromJSON Model
	if err := fromBin.UnmarshalBinary(bin); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, &fromJSON); err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]*Model{"binary": &fromBin, "json": &fromJSON} {
		if !slices.Equal(got.Features, m.Features) || !slices.Equal(got.Weights, m.Weights) || !slices.Equal(got.Settings.Features, s.Features) {
			t.Errorf("%s round trip changed the model", name)
		}
		again, _ := got.MarshalBinary()
		if !bytes.Equal(again, bin) {
			t.Errorf("%s round trip changed the bytes", name)
		}
		if choice, _ := got.Rerank(test); !slices.Equal(choice, want) {
			t.Errorf("%s round trip reranks differently", name)
		}
	}
	for _, bad := range [][]byte{nil, []byte("trellis-rerank 1\n"), bin[:len(bin)-3], append(slices.Clone(bin), 0)} {
		var x Model
		if err := x.UnmarshalBinary(bad); !errors.Is(err, ErrModelFormat) {
			t.Errorf("%d bytes: %v, want ErrModelFormat", len(bad), err)
		}
	}
	if err := json.Unmarshal([]byte(`{"settings":{"trainer":"perceptron","epochs":1},"features":["x"],"weights":[1]}`), new(Model)); !errors.Is(err, ErrModelFormat) {
		t.Errorf("no score feature: %v, want ErrModelFormat", err)
	}
}
