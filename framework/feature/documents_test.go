package feature

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/corpus"
)

// docRecorder is a DocumentExtractor that records the batches it is
// handed, each as the documents of its sentences, and emits "doc=N" with
// the number of sentences of the token's document in the batch.
type docRecorder struct {
	batches  [][]int
	size     map[*corpus.Sentence]int
	released int // Documents(nil) calls
}

func (d *docRecorder) Documents(sents []*corpus.Sentence) error {
	if sents == nil {
		d.released++
		return nil
	}
	var docs []int
	d.size = map[*corpus.Sentence]int{}
	for _, g := range corpus.GroupDocuments(sents) {
		for _, s := range g {
			d.size[s] = len(g)
		}
	}
	for _, s := range sents {
		docs = append(docs, s.Document)
	}
	d.batches = append(d.batches, docs)
	return nil
}

func (d *docRecorder) Extract(s *corpus.Sentence, sink Sink) error {
	for i := range s.Tokens {
		sink.Add(i, []byte{'0' + byte(d.size[s])}, 1)
	}
	return nil
}

var _ DocumentExtractor = (*docRecorder)(nil)

func docSent(doc int) *corpus.Sentence {
	s := sent("a", "X")
	s.Document = doc
	return s
}

// TestEncodeAllKeepsDocumentsWhole: with a document extractor, a batch
// runs on to the end of its last document; without one, batches are cut
// at the batch size.
func TestEncodeAllKeepsDocumentsWhole(t *testing.T) {
	// Documents 0 0 0 | 1 | 2 2 | 3 3 3 3.
	var sents []*corpus.Sentence
	for _, d := range []int{0, 0, 0, 1, 2, 2, 3, 3, 3, 3} {
		sents = append(sents, docSent(d))
	}
	tests := []struct {
		name  string
		batch int
		want  [][]int
	}{
		{"batch 1: one document a batch", 1, [][]int{{0, 0, 0}, {1}, {2, 2}, {3, 3, 3, 3}}},
		{"batch 2", 2, [][]int{{0, 0, 0}, {1, 2, 2}, {3, 3, 3, 3}}},
		{"batch 4", 4, [][]int{{0, 0, 0, 1}, {2, 2, 3, 3, 3, 3}}},
		{"all at once", 100, [][]int{{0, 0, 0, 1, 2, 2, 3, 3, 3, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := &docRecorder{}
			e := NewEncoder(NewDictionary(), NewDictionary(), ModeTrain(), []Extractor{x}, 1)
			var done []int
			if err := e.EncodeAll(context.Background(), sents, tt.batch, func(n int) { done = append(done, n) }); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(x.batches, tt.want) {
				t.Errorf("batches %v, want %v", x.batches, tt.want)
			}
			for k, b := range tt.want {
				if done[k] != len(b) {
					t.Errorf("batch %d reported %d sentences, want %d", k, done[k], len(b))
				}
			}
			// Every token saw its whole document: the attribute of a
			// token of document 3 is "4".
			d := e.Dataset()
			if got := e.Attrs.Name(d.Attrs[d.TokenOff[len(sents)-1]]); got != "4" {
				t.Errorf("last token's attribute %q, want %q", got, "4")
			}
		})
	}
	t.Run("no document extractor", func(t *testing.T) {
		e := NewEncoder(NewDictionary(), NewDictionary(), ModeTrain(), []Extractor{wordExtractor{}}, 1)
		var done []int
		if err := e.EncodeAll(context.Background(), sents, 4, func(n int) { done = append(done, n) }); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(done, []int{4, 4, 2}) {
			t.Errorf("batches of %v, want [4 4 2]", done)
		}
	})
}

// docTemplate compiles to a docRecorder.
type docTemplate struct{ x *docRecorder }

func (t *docTemplate) Config() any               { return &struct{}{} }
func (t *docTemplate) Validate() hcl.Diagnostics { return nil }
func (t *docTemplate) Compile(string, Columns) (Extractor, error) {
	return t.x, nil
}

// TestMapperReleasesDocuments: Fit and Encode hand the document extractor
// the whole corpus at once (Encode) or in whole documents (Fit), and
// release its index when done.
func TestMapperReleasesDocuments(t *testing.T) {
	x := &docRecorder{}
	m, err := NewMapper([]MapperTemplate{{Spec: TemplateSpec{Type: "doc", Name: "d"}, Template: &docTemplate{x}}}, mapperCols)
	if err != nil {
		t.Fatal(err)
	}
	sents := []*corpus.Sentence{docSent(0), docSent(0), docSent(1)}
	if _, err := m.Fit(context.Background(), sents, FitOptions{BatchSize: 1}); err != nil {
		t.Fatal(err)
	}
	if want := [][]int{{0, 0}, {1}}; !reflect.DeepEqual(x.batches, want) || x.released != 1 {
		t.Errorf("Fit: batches %v, released %d times; want %v, once", x.batches, x.released, want)
	}
	if _, _, err := m.Encode(sents); err != nil {
		t.Fatal(err)
	}
	if want := [][]int{{0, 0}, {1}, {0, 0, 1}}; !reflect.DeepEqual(x.batches, want) || x.released != 2 {
		t.Errorf("Encode: batches %v, released %d times; want %v, twice", x.batches, x.released, want)
	}
}

// TestEncodeAllAfterEncode: EncodeAll on an encoder that already holds
// tokens appends to them (its reservation counts only its own tokens)
// and gives the same dataset as encoding everything in one call.
func TestEncodeAllAfterEncode(t *testing.T) {
	first := []*corpus.Sentence{sent("The", "DT", "cat", "NN", "sat", "VB"), sent("It", "PRP", "ran", "VB")}
	rest := []*corpus.Sentence{sent("a", "X"), sent("b", "X", "c", "Y")}
	e := NewEncoder(NewDictionary(), NewDictionary(), ModeTrain(), []Extractor{wordExtractor{}}, 1)
	if err := e.Encode(first); err != nil {
		t.Fatal(err)
	}
	if err := e.EncodeAll(context.Background(), rest, 1, nil); err != nil {
		t.Fatal(err)
	}
	once := NewEncoder(NewDictionary(), NewDictionary(), ModeTrain(), []Extractor{wordExtractor{}}, 1)
	if err := once.EncodeAll(context.Background(), append(append([]*corpus.Sentence{}, first...), rest...), 1, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := e.Dataset(), once.Dataset(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Encode then EncodeAll gives %+v, one EncodeAll %+v", got, want)
	}
}
