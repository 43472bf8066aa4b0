package feature

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/trellis-nlp/trellis/framework/corpus"
)

// ngrams is a small CellExtractor: "<n>:<off>=<w[i+off]>|…" for each
// offset, cells outside the sentence written as "<j>".
type ngrams struct {
	n       int
	offsets []int
}

func (x ngrams) CellShapes() []CellShape {
	var shapes []CellShape
	for _, o := range x.offsets {
		sh := CellShape{Pad: true}
		for m := range x.n {
			sh.Cells = append(sh.Cells, Cell{0, o + m})
		}
		shapes = append(shapes, sh)
	}
	return shapes
}

func (x ngrams) AppendKey(dst []byte, s *corpus.Sentence, k, i int) []byte {
	o := x.offsets[k]
	dst = fmt.Appendf(dst, "%d:%d=", x.n, o)
	for m := range x.n {
		j := i + o + m
		if m > 0 {
			dst = append(dst, '|')
		}
		switch {
		case j < 0:
			dst = fmt.Appendf(dst, "<%d>", j)
		case j >= s.Len():
			dst = fmt.Appendf(dst, "<+%d>", j-s.Len()+1)
		default:
			dst = append(dst, s.Tokens[j][0]...)
		}
	}
	return dst
}

func (x ngrams) Extract(s *corpus.Sentence, sink Sink) error {
	var buf []byte
	for i := range s.Len() {
		for k := range x.offsets {
			buf = x.AppendKey(buf[:0], s, k, i)
			sink.Add(i, buf, 1)
		}
	}
	return nil
}

type hideCells struct{ Extractor }

// TestCellCacheBounds encodes through caches bounded to a few values and
// entries, so that they are dropped and rebuilt between sentences, and
// wants the dataset of plain extraction.
func TestCellCacheBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var sents []*corpus.Sentence
	for k := range 60 {
		s := &corpus.Sentence{File: "t", Line: k + 1}
		for range r.IntN(8) {
			s.Tokens = append(s.Tokens, []string{string(rune('a' + r.IntN(12)))})
		}
		sents = append(sents, s)
	}
	xs := []Extractor{ngrams{2, []int{-2, 0, 1}}, ngrams{1, []int{-1, 0, 2}}}
	fit := NewDictionary()
	if err := NewEncoder(fit, NewDictionary(), ModeTrain(), xs, -1).Encode(sents[:40]); err != nil {
		t.Fatal(err)
	}
	attrs := DictionaryOf(fit.Names())
	encode := func(xs []Extractor, bound bool) *Dataset {
		e := NewEncoder(attrs, DictionaryOf(nil), ModeLookup(), xs, -1)
		if err := e.Encode(sents[:1]); err != nil {
			t.Fatal(err)
		}
		if bound {
			if e.cells == nil {
				t.Fatal("the cell path is not taken")
			}
			e.cells.maxValues, e.cells.maxEntries = 3, 4
		}
		e.Reset()
		if err := e.Encode(sents); err != nil {
			t.Fatal(err)
		}
		if bound && e.cells.entries > 4+2*(7+3) {
			t.Fatalf("%d entries cached, over the bound", e.cells.entries)
		}
		return e.Dataset()
	}
	got, want := encode(xs, true), encode([]Extractor{hideCells{xs[0]}, hideCells{xs[1]}}, false)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("bounded cell path gives\n%v\nplain extraction\n%v", got.Attrs, want.Attrs)
	}
}

// TestCellPathAfterPrune: pruning renumbers the dictionary, and an encoder
// that goes on interning after it (through the cell path, whose caches
// hold IDs) agrees with plain extraction.
func TestCellPathAfterPrune(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var sents []*corpus.Sentence
	for k := range 80 {
		s := &corpus.Sentence{File: "t", Line: k + 1}
		for range r.IntN(8) {
			s.Tokens = append(s.Tokens, []string{string(rune('a' + r.IntN(9)))})
		}
		sents = append(sents, s)
	}
	fit := func(xs []Extractor) (*Dictionary, *Dataset) {
		d := NewDictionary()
		e := NewEncoder(d, NewDictionary(), ModeTrain(), xs, -1)
		if err := e.Encode(sents[:40]); err != nil {
			t.Fatal(err)
		}
		e.Prune(3)
		if err := e.Encode(sents[40:]); err != nil {
			t.Fatal(err)
		}
		return d, e.Dataset()
	}
	x := ngrams{2, []int{-1, 0}}
	d, data := fit([]Extractor{x})
	wantD, wantData := fit([]Extractor{hideCells{x}})
	if !reflect.DeepEqual(d.Names(), wantD.Names()) || !reflect.DeepEqual(data, wantData) {
		t.Fatal("interning after a prune differs between the cell path and plain extraction")
	}
}

// backwards adds its attributes from the last token to the first, with a
// value of 3 on the even tokens, so that the token-major path has to sort
// them back stably and make values explicit.
type backwards struct{}

func (backwards) Extract(s *corpus.Sentence, sink Sink) error {
	for i := s.Len() - 1; i >= 0; i-- {
		sink.Add(i, []byte("b="+s.Tokens[i][0]), float64(1+2*(1-i%2)))
		sink.Add(i, []byte("b#"), 1)
	}
	return nil
}

// fetcher stands for a plugin (Fetcher): it runs backwards over a batch
// and replays each sentence's attributes through Sink.Add.
type fetcher struct{ backwards }

func (f fetcher) ExtractBatch(sents []*corpus.Sentence, sinks []Sink) error {
	for k, s := range sents {
		if err := f.Extract(s, sinks[k]); err != nil {
			return err
		}
	}
	return nil
}

func (fetcher) Prefetch([]*corpus.Sentence) {}
func (fetcher) Forget()                     {}

func (f fetcher) Fetch(sents []*corpus.Sentence) (Fetched, error) {
	return fetchedBatch{f, sents}, nil
}

type fetchedBatch struct {
	f     fetcher
	sents []*corpus.Sentence
}

func (b fetchedBatch) Replay(k int, sink Sink) { _ = b.f.Extract(b.sents[k], sink) }

// TestTokenMajorMatchesPlain checks that tagging's token-major path
// (cell extractors' IDs appended token by token between the other
// extractors' looked-up attributes) gives the dataset of plain extraction
// through the same index, with unit and real values, unknown attributes
// mapped or dropped, and extractors of both kinds and a Fetcher interleaved. A sentence of nine
// tokens gives the sort more entries than Go sorts by insertion, so an
// unstable sort would show.
func TestTokenMajorMatchesPlain(t *testing.T) {
	train := []*corpus.Sentence{sent("the", "DT", "cat", "NN"), sent("The", "DT", "dog", "NN", "sat", "VBD", "down", "RP")}
	xs := []Extractor{ngrams{1, []int{-1, 0, 1}}, backwards{}, ngrams{2, []int{-1, 0}}, wordExtractor{}, fetcher{}, suffixExtractor{}, ngrams{3, []int{-2}}}
	attrs := NewDictionary()
	if err := NewEncoder(attrs, NewDictionary(), ModeTrain(), xs, -1).Encode(train); err != nil {
		t.Fatal(err)
	}
	hidden := make([]Extractor, len(xs))
	for g, x := range xs {
		hidden[g] = hideCells{x} // a plain Extractor: neither cells nor fetching
	}
	test := []*corpus.Sentence{sent("the", "DT", "dog", "NN"), sent(), sent("a", "DT"), sent("The", "DT", "bird", "NN", "sat", "VBD"),
		sent("cat", "NN", "the", "DT", "Dog", "NN"), sent("the", "DT", "cat", "NN", "sat", "VBD", "down", "RP", "The", "DT", "dog", "NN", "sat", "VBD", "a", "DT", "cat", "NN")}
	for _, unknown := range [][]int32{nil, {0, -1, 1, 2, 4, -1, 3}} {
		for _, batch := range []int{1, 2, len(test)} {
			t.Run(fmt.Sprintf("unknown %v batch %d", unknown, batch), func(t *testing.T) {
				encode := func(xs []Extractor) *Dataset {
					e := NewEncoder(DictionaryOf(attrs.Names()), NewDictionary(), ModeUnknown(unknown), xs, -1)
					for lo := 0; lo < len(test); lo += batch {
						if err := e.Encode(test[lo:min(lo+batch, len(test))]); err != nil {
							t.Fatal(err)
						}
					}
					return e.Dataset()
				}
				got, want := encode(xs), encode(hidden)
				if got.Values == nil {
					t.Fatal("no values: the test's real values were lost")
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("token-major dataset\n%+v\nwant\n%+v", got, want)
				}
			})
		}
	}
}
