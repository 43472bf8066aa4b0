package feature

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/corpus"
)

// wordExtractor emits "w=<word>" and, for capitalized words, "cap" with
// value 2 (to exercise real values).
type wordExtractor struct{}

func (wordExtractor) Extract(s *corpus.Sentence, sink Sink) error {
	for i, tok := range s.Tokens {
		sink.Add(i, []byte("w="+tok[0]), 1)
		if tok[0][0] >= 'A' && tok[0][0] <= 'Z' {
			sink.Add(i, []byte("cap"), 2)
		}
	}
	return nil
}

type suffixExtractor struct{}

func (suffixExtractor) Extract(s *corpus.Sentence, sink Sink) error {
	for i, tok := range s.Tokens {
		w := tok[0]
		sink.Add(i, []byte("s="+w[len(w)-1:]), 1)
	}
	return nil
}

func sent(pairs ...string) *corpus.Sentence {
	s := &corpus.Sentence{File: "t", Line: 1}
	for i := 0; i < len(pairs); i += 2 {
		s.Tokens = append(s.Tokens, []string{pairs[i], pairs[i+1]})
	}
	return s
}

func TestEncoderTrainAndTest(t *testing.T) {
	attrs, labels := NewDictionary(), NewDictionary()
	xs := []Extractor{wordExtractor{}, suffixExtractor{}}
	e := NewEncoder(attrs, labels, ModeTrain(), xs, 1)
	if err := e.Encode([]*corpus.Sentence{sent("The", "DT", "cat", "NN"), sent("the", "DT", "dog", "NN")}); err != nil {
		t.Fatal(err)
	}
	d := e.Dataset()
	// A batch is interned template by template, so IDs do not depend on
	// how sentences interleave within the batch.
	wantNames := []string{"w=The", "cap", "w=cat", "w=the", "w=dog", "s=e", "s=t", "s=g"}
	if !reflect.DeepEqual(attrs.Names(), wantNames) {
		t.Fatalf("names %q, want %q", attrs.Names(), wantNames)
	}
	if !reflect.DeepEqual(e.AttrGroup, []int32{0, 0, 0, 0, 0, 1, 1, 1}) {
		t.Errorf("groups %v", e.AttrGroup)
	}
	// Token-major order: token 0 has w=The, cap (value 2), s=e.
	if !reflect.DeepEqual(d.Attrs, []int32{0, 1, 5, 2, 6, 3, 5, 4, 7}) {
		t.Errorf("attrs %v", d.Attrs)
	}
	if !reflect.DeepEqual(d.Values, []float64{1, 2, 1, 1, 1, 1, 1, 1, 1}) {
		t.Errorf("values %v", d.Values)
	}
	if !reflect.DeepEqual(d.TokenOff, []int{0, 3, 5, 7, 9}) || !reflect.DeepEqual(d.SentOff, []int{0, 2, 4}) {
		t.Errorf("offsets %v %v", d.TokenOff, d.SentOff)
	}
	if !reflect.DeepEqual(d.Labels, []int32{0, 1, 0, 1}) {
		t.Errorf("labels %v", d.Labels)
	}
	if err := d.Check(attrs.Len(), labels.Len()); err != nil {
		t.Error(err)
	}

	// Test time: unseen attributes are dropped, or mapped to the
	// template's unknown attribute; unseen labels are -1 and counted.
	unk := attrs.InternString("<unknown>/0")
	te := NewEncoder(attrs, labels, ModeUnknown([]int32{unk, -1}), xs, 1)
	if err := te.Encode([]*corpus.Sentence{sent("bird", "NN", "cat", "VB")}); err != nil {
		t.Fatal(err)
	}
	td := te.Dataset()
	if !reflect.DeepEqual(td.Attrs, []int32{unk, 2, 6}) {
		t.Errorf("test attrs %v (want unknown word, then w=cat s=t; s=d dropped)", td.Attrs)
	}
	if td.Values != nil {
		t.Errorf("all-ones values should stay nil, got %v", td.Values)
	}
	if !reflect.DeepEqual(td.Labels, []int32{1, -1}) || te.UnknownLabels["VB"] != 1 {
		t.Errorf("labels %v unknown %v", td.Labels, te.UnknownLabels)
	}
	if attrs.Len() != len(wantNames)+1 {
		t.Errorf("test encoding grew the dictionary")
	}
}

func TestPrune(t *testing.T) {
	attrs, labels := NewDictionary(), NewDictionary()
	e := NewEncoder(attrs, labels, ModeTrain(), []Extractor{wordExtractor{}, suffixExtractor{}}, 1)
	e.Encode([]*corpus.Sentence{sent("a", "X", "b", "Y", "a", "X"), sent("cb", "Y")})
	// counts: w=a 2, s=a 2, w=b 1, s=b 2, w=cb 1
	e.Prune(2)
	if !reflect.DeepEqual(attrs.Names(), []string{"w=a", "s=a", "s=b"}) {
		t.Fatalf("kept %q", attrs.Names())
	}
	d := e.Dataset()
	if !reflect.DeepEqual(d.Attrs, []int32{0, 1, 2, 0, 1, 2}) || !reflect.DeepEqual(d.TokenOff, []int{0, 2, 3, 5, 6}) {
		t.Errorf("attrs %v offsets %v", d.Attrs, d.TokenOff)
	}
	if !reflect.DeepEqual(e.AttrGroup, []int32{0, 1, 1}) {
		t.Errorf("groups %v", e.AttrGroup)
	}
	if id, ok := attrs.LookupString("s=b"); !ok || id != 2 {
		t.Errorf("lookup after prune: %d %v", id, ok)
	}
}

// TestDeterministicIDs: the same input always gives the same IDs.
func TestDeterministicIDs(t *testing.T) {
	var first []string
	for run := 0; run < 3; run++ {
		attrs := NewDictionary()
		e := NewEncoder(attrs, NewDictionary(), ModeTrain(), []Extractor{wordExtractor{}, suffixExtractor{}}, 1)
		e.Encode([]*corpus.Sentence{sent("x", "A", "Yz", "B", "q", "A")})
		if run == 0 {
			first = append([]string(nil), attrs.Names()...)
		} else if !reflect.DeepEqual(first, attrs.Names()) {
			t.Fatalf("run %d: %q != %q", run, attrs.Names(), first)
		}
	}
}

func TestSinkRejectsBadToken(t *testing.T) {
	e := NewEncoder(NewDictionary(), NewDictionary(), ModeTrain(), []Extractor{badExtractor{}}, 1)
	if err := e.Encode([]*corpus.Sentence{sent("a", "X")}); err == nil {
		t.Fatal("an attribute for a token outside the sentence was accepted")
	}
}

type badExtractor struct{}

func (badExtractor) Extract(s *corpus.Sentence, sink Sink) error {
	sink.Add(s.Len(), []byte("oops"), 1)
	return nil
}

func TestDictionaryOfIndex(t *testing.T) {
	long := strings.Repeat("x", 300)
	names := []string{"", "a", "w[0]=the", "w2[-1]=supercalifragilistic|expialidocious", long, long + "y", "dup", "abcdefghijklmnopqrstuvwx", "dup"}
	d := DictionaryOf(names)
	want := map[string]int32{}
	for i, n := range names {
		want[n] = int32(i) // a duplicate's last ID wins
	}
	for n, id := range want {
		if got, ok := d.Lookup([]byte(n)); !ok || got != id {
			t.Errorf("Lookup(%.40q) = %d, %v; want %d", n, got, ok, id)
		}
		if got, ok := d.LookupString(n); !ok || got != id {
			t.Errorf("LookupString(%.40q) = %d, %v; want %d", n, got, ok, id)
		}
	}
	for _, miss := range []string{"b", "w[0]=th", "w[0]=thee", long + "z", long[:299], "abcdefghijklmnopqrstuvwxy", "abcdefghijklmnopqrstuvwX", "w2[-1]=supercalifragilistic|expialidociouS"} {
		if id, ok := d.Lookup([]byte(miss)); ok {
			t.Errorf("Lookup(%.40q) found %d", miss, id)
		}
		if id, ok := d.LookupString(miss); ok {
			t.Errorf("LookupString(%.40q) found %d", miss, id)
		}
	}
	// Growing a dictionary rebuilt from names still works.
	if id := d.Intern([]byte("new")); id != int32(len(names)) {
		t.Errorf("Intern(new) = %d", id)
	}
	if id := d.InternString("a"); id != 1 {
		t.Errorf("InternString(a) = %d", id)
	}
	if id, ok := d.Lookup([]byte("new")); !ok || id != int32(len(names)) {
		t.Errorf("Lookup(new) after Intern = %d, %v", id, ok)
	}
}

// TestDictionaryCompact: a compacted dictionary finds every name at its
// ID and nothing else, long keys and near misses included, and grows again
// (Intern, Prune) with the same IDs.
func TestDictionaryCompact(t *testing.T) {
	long := strings.Repeat("x", 300)
	names := []string{"", "a", "w[0]=the", long, long + "y", "abcdefghijklmnopqrstuvwx"}
	for i := 0; i < 1000; i++ {
		names = append(names, fmt.Sprintf("w[%d]=%x", i%5, i*7919))
	}
	d := NewDictionary()
	for _, n := range names {
		d.InternString(n)
	}
	d.InternString("a")
	d.Compact()
	if d.ids != nil || d.slim == nil {
		t.Fatal("Compact kept the map")
	}
	for i, n := range names {
		if got, ok := d.Lookup([]byte(n)); !ok || got != int32(i) {
			t.Errorf("Lookup(%.40q) = %d, %v; want %d", n, got, ok, i)
		}
		if got, ok := d.LookupString(n); !ok || got != int32(i) {
			t.Errorf("LookupString(%.40q) = %d, %v; want %d", n, got, ok, i)
		}
	}
	for _, miss := range []string{"b", "w[0]=th", long + "z", long[:299], "w[0]=0 ", "abcdefghijklmnopqrstuvwX"} {
		if id, ok := d.Lookup([]byte(miss)); ok {
			t.Errorf("Lookup(%.40q) found %d", miss, id)
		}
		if id, ok := d.LookupString(miss); ok {
			t.Errorf("LookupString(%.40q) found %d", miss, id)
		}
	}
	if id := d.InternString("a"); id != 1 || d.Count(1) != 3 {
		t.Errorf("InternString(a) after Compact = %d (count %d), want 1 (3)", id, d.Count(1))
	}
	if id := d.Intern([]byte("new")); id != int32(len(names)) {
		t.Errorf("Intern(new) after Compact = %d, want %d", id, len(names))
	}
	d.Compact()
	remap := d.Prune(2)
	if d.Len() != 1 || remap[1] != 0 || d.Name(0) != "a" {
		t.Errorf("Prune(2) after Compact kept %v (remap[1] = %d)", d.Names(), remap[1])
	}
}

// TestEncoderIndexedMatchesMap checks that encoding against a model's
// vocabulary (the indexed, sentence-by-sentence path) gives the dataset the
// map-based path gives.
func TestEncoderIndexedMatchesMap(t *testing.T) {
	train := []*corpus.Sentence{sent("The", "DT", "cat", "NN"), sent("the", "DT", "dog", "NN", "Sat", "VBD")}
	attrs, labels := NewDictionary(), NewDictionary()
	xs := []Extractor{wordExtractor{}, suffixExtractor{}}
	if err := NewEncoder(attrs, labels, ModeTrain(), xs, 1).Encode(train); err != nil {
		t.Fatal(err)
	}
	test := []*corpus.Sentence{sent("The", "DT", "bird", "NN", "Sat", "XX"), sent("a", "DT"), sent(), sent("Dog", "NN", "cat", "NN")}
	for _, unknown := range [][]int32{nil, {-1, 0}} {
		byMap := NewEncoder(attrs, labels, ModeUnknown(unknown), xs, 1)
		indexed := NewEncoder(DictionaryOf(attrs.Names()), DictionaryOf(labels.Names()), ModeUnknown(unknown), xs, 1)
		compacted := DictionaryOf(attrs.Names())
		compacted.mutable()
		compacted.Compact()
		slim := NewEncoder(compacted, labels, ModeUnknown(unknown), xs, 1)
		for round := 0; round < 2; round++ {
			byMap.Reset()
			indexed.Reset()
			if err := byMap.Encode(test); err != nil {
				t.Fatal(err)
			}
			if err := indexed.Encode(test); err != nil {
				t.Fatal(err)
			}
			slim.Reset()
			if err := slim.Encode(test); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(byMap.Dataset(), slim.Dataset()) {
				t.Fatalf("unknown %v round %d: dataset through a compacted dictionary\n%+v\nwant\n%+v", unknown, round, slim.Dataset(), byMap.Dataset())
			}
			if !reflect.DeepEqual(byMap.Dataset(), indexed.Dataset()) {
				t.Fatalf("unknown %v round %d: indexed dataset\n%+v\nwant\n%+v", unknown, round, indexed.Dataset(), byMap.Dataset())
			}
			if !reflect.DeepEqual(byMap.UnknownLabels, indexed.UnknownLabels) {
				t.Errorf("unknown labels %v, want %v", indexed.UnknownLabels, byMap.UnknownLabels)
			}
		}
	}
}
