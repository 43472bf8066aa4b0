package emission_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/hashicorp/hcl/v2/hclsimple"

	"github.com/trellis-nlp/trellis/builtin/emission"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

// plain hides an extractor's CellExtractor side, so the encoder extracts
// it the plain way: keys built, hashed and looked up one by one.
type plain struct{ feature.Extractor }

var columns = feature.Columns{Names: []string{"word", "pos", "chunk"}, Label: 2}

func compile(t *testing.T, name, body string) feature.Extractor {
	t.Helper()
	tmpl := emission.New()
	if err := hclsimple.Decode("t.hcl", []byte(body), nil, tmpl.Config()); err != nil {
		t.Fatal(err)
	}
	if diags := tmpl.Validate(); diags.HasErrors() {
		t.Fatal(diags)
	}
	x, err := tmpl.Compile(name, columns)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := x.(feature.CellExtractor); !ok {
		t.Fatalf("%s: the emission extractor is not a CellExtractor", name)
	}
	return x
}

// randomSentences draws sentences of 0 to 12 tokens, mostly from a small
// vocabulary (with case variants), so that value tuples repeat.
func randomSentences(r *rand.Rand, n int) []*corpus.Sentence {
	words := []string{"the", "The", "cat", "CAT", "sat", "on", "a", "mat", "|", "_B-1", "x|y", ""}
	tags := []string{"DT", "NN", "VBD", "IN"}
	var out []*corpus.Sentence
	for range n {
		s := &corpus.Sentence{File: "rand", Line: 1}
		for range r.IntN(13) {
			w := words[r.IntN(len(words))]
			if r.IntN(3) == 0 {
				// Rare words: value IDs past the small ones that index the
				// dense grid of bigrams and trigrams, so the memo is used.
				w = fmt.Sprintf("r%d", r.IntN(2000))
			}
			s.Tokens = append(s.Tokens, []string{w, tags[r.IntN(len(tags))], "O"})
		}
		out = append(out, s)
	}
	return out
}

// TestCellPathMatchesPlain encodes random sentences through the tagging
// encoder's cell path and through plain extraction, with a dictionary
// that knows only some of the attributes, with and without unknown-value
// attributes, and wants the same datasets.
func TestCellPathMatchesPlain(t *testing.T) {
	templates := []struct{ name, body string }{
		{"w", `column = "word"
offsets = [-2, -1, 0, 1, 2]`},
		{"w2", `column = "word"
offsets = [-1, 0]
ngram = 2`},
		{"pos3", `column = "pos"
offsets = [-2, -1, 0]
ngram = 3`},
		{"lw", `column = "word"
offsets = [1, -1, 0]
lowercase = true`},
		{"pad", `column = "pos"
offsets = [-3, 0, 2]
ngram = 2
pad = true`},
		{"wp", `join = ["pos[1]", "word[-1]"]
lowercase = true`},
		{"fmt", `format = "<{pos[-2]}{{x}}{word[2]}|{word[0]}>"
pad = true`},
		{"wide", `column = "pos"
offsets = [-1]
ngram = 5`},
		{"const", `format = "U"`},
	}
	r := rand.New(rand.NewPCG(1, 2))
	train := randomSentences(r, 60)
	test := randomSentences(r, 1500)
	for _, tc := range templates {
		for _, unknown := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/unknown=%v", tc.name, unknown), func(t *testing.T) {
				// Mixed with plain extractors, so the encoder merges the
				// two paths' attributes in the order they were added.
				xs := []feature.Extractor{compile(t, tc.name, tc.body), plain{compile(t, "p", `column = "pos"`)}, compile(t, "v", `column = "word"
offsets = [-1, 1]`)}
				plainXs := make([]feature.Extractor, len(xs))
				for k, x := range xs {
					plainXs[k] = plain{x}
				}
				// Training: the same attributes interned in the same
				// order, counted as often, with the same groups.
				fit := func(xs []feature.Extractor) (*feature.Dictionary, *feature.Encoder) {
					d := feature.NewDictionary()
					enc := feature.NewEncoder(d, feature.NewDictionary(), feature.ModeTrain(), xs, -1)
					for lo := 0; lo < len(train); lo += 25 {
						if err := enc.Encode(train[lo:min(lo+25, len(train))]); err != nil {
							t.Fatal(err)
						}
					}
					return d, enc
				}
				fitted, fitEnc := fit(xs)
				wantFitted, wantEnc := fit(plainXs)
				if !reflect.DeepEqual(fitted.Names(), wantFitted.Names()) || !reflect.DeepEqual(fitEnc.AttrGroup, wantEnc.AttrGroup) ||
					!reflect.DeepEqual(fitEnc.Dataset(), wantEnc.Dataset()) {
					t.Fatal("training through the cell path interns other attributes, groups or data than the plain path")
				}
				for id := range int32(fitted.Len()) {
					if fitted.Count(id) != wantFitted.Count(id) {
						t.Fatalf("attribute %q counted %d times, plain path %d", fitted.Name(id), fitted.Count(id), wantFitted.Count(id))
					}
				}
				var names []string
				for i, name := range fitted.Names() {
					if i%3 != 0 {
						names = append(names, name)
					}
				}
				names = append(names, "<unknown>")
				// Dev data after training (the fitted dictionary's map) and
				// tagging (a model's dictionary, read only, indexed).
				for _, attrs := range []*feature.Dictionary{fitted, feature.DictionaryOf(names)} {
					encode := func(xs []feature.Extractor) *feature.Dataset {
						mode := feature.ModeLookup()
						if unknown {
							u := int32(len(names) - 1)
							u = min(u, int32(attrs.Len()-1))
							mode = feature.ModeUnknown([]int32{u, -1, u})
						}
						e := feature.NewEncoder(attrs, feature.DictionaryOf(nil), mode, xs, -1)
						// Twice, so that the second pass reads the caches the
						// first filled.
						for range 2 {
							e.Reset()
							if err := e.Encode(test); err != nil {
								t.Fatal(err)
							}
						}
						return e.Dataset()
					}
					got, want := encode(xs), encode(plainXs)
					if len(want.Attrs) == 0 {
						t.Fatal("no attributes encoded: the test checks nothing")
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("cell path dataset differs from the plain one:\n got %v\nwant %v", got.Attrs, want.Attrs)
					}
				}
			})
		}
	}
}
