package pretrained_test

import (
	"os"
	"testing"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/pretrained"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// TestPOSAccuracy: the shipped POS taggers on UD EWT test, as
// docs/results.md reports them; it needs the shared corpora.
func TestPOSAccuracy(t *testing.T) {
	const test = "../../../shared/data/ud-english-ewt/en_ewt-ud-test.conllu"
	if _, err := os.Stat(test); err != nil {
		t.Skip("UD English EWT is not in ../shared/data (a fresh machine has no ../shared): ", err)
	}
	for _, tc := range []struct {
		name string
		min  float64
	}{{"en-upos", 0.94}, {"en-xpos", 0.935}} {
		m, err := pretrained.Load(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		templates, _ := builtin.Registries()
		tg, err := tagger.New(m, templates, tagger.Options{})
		if err != nil {
			t.Fatal(err)
		}
		f, err := corpus.New(m.Format)
		if err != nil {
			t.Fatal(err)
		}
		sents, err := corpus.ReadAll(f, test, corpus.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pred, err := tg.Tag(sents)
		tg.Close()
		if err != nil {
			t.Fatal(err)
		}
		label := tg.Format.LabelColumn()
		right, all := 0, 0
		for k, s := range sents {
			for i := range s.Tokens {
				all++
				if pred[k][i] == s.Tokens[i][label] {
					right++
				}
			}
		}
		if acc := float64(right) / float64(all); acc < tc.min {
			t.Errorf("%s: accuracy %.4f on EWT test, below %.3f", tc.name, acc, tc.min)
		} else {
			t.Logf("%s: accuracy %.4f on EWT test", tc.name, acc)
		}
	}
}
