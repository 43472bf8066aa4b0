// jackknife.go builds a training set's k-best lists so that no sentence is
// listed by a first pass that trained on it (Collins & Koo 2005): fold
// assignment by whole documents and the K-fold loop.
//
// This duplicates framework/run/stage.go's jackknife and stageFolds (the
// second stages' jackknifing), with lists instead of labels; the two should
// become one helper when the reranker is wired into the run.
package rerank

import (
	"fmt"
	"math/rand/v2"

	"github.com/trellis-nlp/trellis/framework/corpus"
)

// Lister lists the sentences of the given indices (of the corpus the fold
// assignment covers), one List per index, in the order given.
type Lister func(idx []int) ([]List, error)

// DocKeys numbers the documents of sents densely in order of first
// appearance: element i is sentence i's document (corpus.SameDocument),
// the List.Doc to give it.
func DocKeys(sents []*corpus.Sentence) []int {
	keys := make([]int, len(sents))
	index := make(map[*corpus.Sentence]int, len(sents))
	for i, s := range sents {
		index[s] = i
	}
	for d, group := range corpus.GroupDocuments(sents) {
		for _, s := range group {
			keys[index[s]] = d
		}
	}
	return keys
}

// Folds deals the documents of a corpus to k folds: docs is an [n] slice
// whose element i is sentence i's document key (DocKeys), and the result
// an [n] slice whose element i is sentence i's fold in [0, k). Each run of
// k documents (in order of first appearance) goes to the k folds in an
// order drawn from seed and the run's index, as stageFolds deals them, so
// the folds are balanced and a sentence never shares a document with
// another fold.
func Folds(docs []int, k int, seed uint64) ([]int, error) {
	if k < 2 {
		return nil, fmt.Errorf("%w: %d folds, want at least 2", ErrFolds, k)
	}
	unit := map[int]int{} // document key → its order of appearance
	for _, d := range docs {
		if _, ok := unit[d]; !ok {
			unit[d] = len(unit)
		}
	}
	if len(unit) < k {
		return nil, fmt.Errorf("%w: %d documents for %d folds", ErrFolds, len(unit), k)
	}
	perms := make([][]int, (len(unit)+k-1)/k)
	for r := range perms {
		perms[r] = rand.New(rand.NewPCG(seed, uint64(r))).Perm(k)
	}
	folds := make([]int, len(docs))
	for i, d := range docs {
		u := unit[d]
		folds[i] = perms[u/k][u%k]
	}
	return folds, nil
}

// Jackknife lists every sentence by a model that did not train on it.
// folds is an [n] slice whose element i is sentence i's fold in [0, k).
// For each fold f in turn, fit(f, train) trains on the sentences of the
// other folds (their indices, ascending) and returns a Lister, which is
// asked for fold f's sentences only. The result is an [n] slice whose
// element i is sentence i's list.
//
// The guarantee is structural — a fold's held and train indices partition
// the sentences, and the Lister fit returns is asked about held only — and
// checked: each Lister must return one list per index asked, and a
// sentence listed twice (a bad fold assignment) is ErrLeak.
func Jackknife(folds []int, k int, fit func(fold int, train []int) (Lister, error)) ([]List, error) {
	for i, f := range folds {
		if f < 0 || f >= k {
			return nil, fmt.Errorf("%w: sentence %d is in fold %d of %d", ErrFolds, i, f, k)
		}
	}
	out := make([]List, len(folds))
	listed := make([]bool, len(folds))
	for f := range k {
		var train, held []int
		for i, g := range folds {
			if g == f {
				held = append(held, i)
			} else {
				train = append(train, i)
			}
		}
		if len(held) == 0 || len(train) == 0 {
			return nil, fmt.Errorf("%w: fold %d of %d has %d held-out and %d training sentences", ErrFolds, f, k, len(held), len(train))
		}
		list, err := fit(f, train)
		if err != nil {
			return nil, fmt.Errorf("jackknifing fold %d: %w", f, err)
		}
		lists, err := list(held)
		if err != nil {
			return nil, fmt.Errorf("jackknifing fold %d: %w", f, err)
		}
		if len(lists) != len(held) {
			return nil, fmt.Errorf("jackknifing fold %d: %d lists for %d sentences", f, len(lists), len(held))
		}
		for j, i := range held {
			if listed[i] {
				return nil, fmt.Errorf("%w: sentence %d listed twice (fold %d)", ErrLeak, i, f)
			}
			listed[i] = true
			out[i] = lists[j]
		}
	}
	return out, nil
}
