// oracle_test.go checks the oracles against brute force over every choice
// of candidates, scored by framework/eval, and the serialization and
// jackknife guarantees.
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

func TestJackknifeNeverListsTrainingSentences(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	docs := make([]int, 200)
	for i := range docs {
		docs[i] = i / (1 + rng.IntN(8)) // uneven documents, numbered in order
	}
	const k = 5
	folds, err := Folds(docs, k, 11)
	if err != nil {
		t.Fatal(err)
	}
	for i := range docs {
		for j := range docs {
			if docs[i] == docs[j] && folds[i] != folds[j] {
				t.Fatalf("document %d is split across folds %d and %d", docs[i], folds[i], folds[j])
			}
		}
	}
	trainedOn := make([][]int, k)
	asked := make([]int, len(docs))
	lists, err := Jackknife(folds, k, func(f int, train []int) (Lister, error) {
		trainedOn[f] = slices.Clone(train)
		return func(idx []int) ([]List, error) {
			out := make([]List, len(idx))
			for j, i := range idx {
				if slices.Contains(train, i) {
					t.Errorf("fold %d: sentence %d listed by a model trained on it", f, i)
				}
				asked[i]++
				out[j] = List{Doc: f} // which fold's model listed it
			}
			return out, nil
		}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range lists {
		if asked[i] != 1 || slices.Contains(trainedOn[l.Doc], i) || l.Doc != folds[i] {
			t.Errorf("sentence %d: listed %d times, by fold %d's model (its fold %d)", i, asked[i], l.Doc, folds[i])
		}
	}
	for f, train := range trainedOn {
		if len(train) == 0 || len(train)+countFold(folds, f) != len(docs) {
			t.Errorf("fold %d trained on %d sentences", f, len(train))
		}
	}

	// A lister that answers for the wrong sentences is caught.
	_, err = Jackknife(folds, k, func(f int, train []int) (Lister, error) {
		return func(idx []int) ([]List, error) { return make([]List, len(idx)-1), nil }, nil
	})
	if err == nil {
		t.Error("a lister returning too few lists went unnoticed")
	}
	if _, err := Jackknife([]int{0, 1, 3}, 3, nil); !errors.Is(err, ErrFolds) {
		t.Errorf("fold 3 of 3: %v, want ErrFolds", err)
	}
	if _, err := Folds([]int{0, 0, 1}, 3, 1); !errors.Is(err, ErrFolds) {
		t.Errorf("2 documents, 3 folds: %v, want ErrFolds", err)
	}
}

func countFold(folds []int, f int) int {
	n := 0
	for _, g := range folds {
		if g == f {
			n++
		}
	}
	return n
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
