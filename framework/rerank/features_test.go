// features_test.go checks the global features of hand-made labelings and
// that a candidate's extraction allocates nothing once its keys are known.
package rerank

import (
	"maps"
	"slices"
	"testing"
)

// docLists are two sentences of one document and one of another; the
// first is the sentence under test.
func docLists() []List {
	return []List{
		{Words: []string{"John", "Smith", "visited", "U.S.", "."}, Doc: 7,
			Labels: [][]string{
				{"I-PER", "I-PER", "O", "I-LOC", "O"},
				{"I-PER", "I-PER", "O", "I-ORG", "O"},
			},
			Scores: []float64{-1, -3.5}},
		{Words: []string{"Smith", "left", "the", "U.S.", "team"}, Doc: 7,
			Labels: [][]string{{"I-PER", "O", "O", "I-ORG", "O"}}, Scores: []float64{0}},
		{Words: []string{"U.S.", "Smith"}, Doc: 8,
			Labels: [][]string{{"I-LOC", "I-LOC"}}, Scores: []float64{0}},
	}
}

// features returns candidate j of lists[i]'s features as key → count, with
// the score feature under "score".
func features(t *testing.T, lists []List, i, j int, groups []string) map[string]float64 {
	t.Helper()
	d := NewDict()
	ex, err := NewExtractor(d, groups)
	if err != nil {
		t.Fatal(err)
	}
	ex.Prepare(&lists[i], NewDocIndex(lists))
	ids, r := ex.Candidate(nil, j)
	out := map[string]float64{scoreFeatureKey: r}
	for _, id := range ids {
		out[d.Name(id)]++
	}
	return out
}

func TestFeaturesHandMade(t *testing.T) {
	lists := docLists()
	got := features(t, lists, 0, 1, nil)
	want := map[string]float64{
		"score": -2.5,
		// ngram
		"bi=<s>|I-PER": 1, "bi=I-PER|I-PER": 1, "bi=I-PER|O": 1, "bi=O|I-ORG": 1, "bi=I-ORG|O": 1, "bi=O|</s>": 1,
		"tri=<s>|<s>|I-PER": 1, "tri=<s>|I-PER|I-PER": 1, "tri=I-PER|I-PER|O": 1, "tri=I-PER|O|I-ORG": 1,
		"tri=O|I-ORG|O": 1, "tri=I-ORG|O|</s>": 1,
		// types
		"ntype=PER|1": 1, "ntype=ORG|1": 1, "nspans=2": 1,
		// span
		"len=PER|2": 1, "shape=PER|Xx Xx": 1, "len=ORG|1": 1, "shape=ORG|X.X.": 1,
		// words
		"first=PER|john": 1, "last=PER|smith": 1, "str=PER|John Smith": 1, "prev=PER|<s>": 1, "next=PER|visited": 1,
		"first=ORG|u.s.": 1, "last=ORG|u.s.": 1, "str=ORG|U.S.": 1, "prev=ORG|visited": 1, "next=ORG|.": 1,
		// doc: "Smith" and "U.S." occur in the other sentence of document 7
		// (PER and ORG there); document 8 is not read. "U.S." is a span
		// there too; "John Smith" is not.
		"dtok=PER|PER": 1, "dtok=ORG|ORG": 1, "dspan=ORG|ORG": 1,
		// rank
		"rank=1": 1,
	}
	if !maps.Equal(got, want) {
		for _, k := range slices.Sorted(maps.Keys(got)) {
			if got[k] != want[k] {
				t.Errorf("%s: got %g, want %g", k, got[k], want[k])
			}
		}
		for _, k := range slices.Sorted(maps.Keys(want)) {
			if _, ok := got[k]; !ok {
				t.Errorf("%s: missing (want %g)", k, want[k])
			}
		}
	}
}

// TestFeaturesDocumentExcludesSelf: a sentence's own 1-best does not count
// as "elsewhere in the document", and the candidate's type is compared with
// what the others say, whatever the candidate.
func TestFeaturesDocumentExcludesSelf(t *testing.T) {
	lists := docLists()
	lists[1].Doc = 9 // sentence 0 is now alone in document 7
	got := features(t, lists, 0, 0, []string{GroupDoc})
	if len(got) != 1 {
		t.Errorf("alone in its document: %v, want only the score", got)
	}
	lists = docLists()
	got = features(t, lists, 0, 0, []string{GroupDoc, GroupRank})
	want := map[string]float64{"score": 0, "dtok=PER|PER": 1, "dtok=LOC|ORG": 1, "dspan=LOC|ORG": 1, "rank=0": 1}
	if !maps.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// Repeated n-grams count twice.
	l := []List{{Words: []string{"a", "b", "c"}, Doc: -1, Labels: [][]string{{"O", "O", "O"}}, Scores: []float64{0}}}
	if got := features(t, l, 0, 0, []string{GroupNGram}); got["bi=O|O"] != 2 {
		t.Errorf("bi=O|O counted %g times, want 2", got["bi=O|O"])
	}
}

func TestShape(t *testing.T) {
	for w, want := range map[string]string{"Smith": "Xx", "U.S.": "X.X.", "1996": "d", "3-0": "d-d", "McDonald": "XxXx", "ÉCOLE": "X", "": ""} {
		if got := Shape(w); got != want {
			t.Errorf("Shape(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestParseGroups(t *testing.T) {
	if _, err := NewExtractor(NewDict(), []string{"ngram", "spam"}); err == nil {
		t.Error("unknown group accepted")
	}
}

// TestCandidateAllocations: with the keys known and the list prepared, a
// candidate's extraction allocates nothing.
func TestCandidateAllocations(t *testing.T) {
	lists := docLists()
	d := NewDict()
	ex, err := NewExtractor(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	docs := NewDocIndex(lists)
	ex.Prepare(&lists[0], docs)
	buf, _ := ex.Candidate(nil, 0)
	buf, _ = ex.Candidate(buf[:0], 1)
	allocs := testing.AllocsPerRun(100, func() {
		for j := range lists[0].Labels {
			buf, _ = ex.Candidate(buf[:0], j)
		}
	})
	if allocs != 0 {
		t.Errorf("%g allocations per list's candidates, want 0", allocs)
	}
	allocs = testing.AllocsPerRun(100, func() { ex.Prepare(&lists[0], docs) })
	if allocs != 0 {
		t.Errorf("%g allocations per prepared list (words seen before), want 0", allocs)
	}
	// Frozen, an unknown key is dropped rather than added.
	d.Freeze()
	n := d.Len()
	other := List{Words: []string{"Zork"}, Doc: -1, Labels: [][]string{{"I-MISC"}}, Scores: []float64{0}}
	ex.Prepare(&other, nil)
	ids, _ := ex.Candidate(nil, 0)
	if d.Len() != n {
		t.Errorf("a frozen dictionary grew from %d to %d", n, d.Len())
	}
	for _, id := range ids {
		if int(id) >= n {
			t.Errorf("unknown feature got ID %d", id)
		}
	}
}

// TestFeaturesIndependentOfOtherDocuments: a sentence's features are the
// same whether its document is indexed alone or after others (the tagger
// reranks a batch of whole documents at a time), also when the
// document's other sentences tie between two types.
func TestFeaturesIndependentOfOtherDocuments(t *testing.T) {
	one := func(w, label string) List {
		return List{Words: []string{w, "x"}, Doc: 7, Labels: [][]string{{label, "O"}}, Scores: []float64{0}}
	}
	doc := []List{one("Jordan", "B-LOC"), one("Jordan", "B-PER"), one("Jordan", "B-LOC")}
	other := List{Words: []string{"Jordan"}, Doc: 5, Labels: [][]string{{"B-PER"}}, Scores: []float64{0}}
	alone := features(t, doc, 0, 0, nil)
	after := features(t, append([]List{other}, doc...), 1, 0, nil)
	if !maps.Equal(alone, after) {
		t.Errorf("alone %v, after another document %v", alone, after)
	}
	if alone["dtok=LOC|LOC"] != 1 {
		t.Errorf("a tie (LOC, PER) went to %v, want LOC (name order)", alone)
	}
}
