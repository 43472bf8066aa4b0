// corpus_test.go: the readers, normalisation, MinCount and the order of
// the vocabulary.

package word2vec

import (
	"errors"
	tcorpus "github.com/trellis-nlp/trellis/framework/corpus"
	"reflect"
	"strings"
	"testing"
	"unicode"
)

// sentences returns a corpus's text as sentences of words.
func sentences(c *Corpus) [][]string {
	var out [][]string
	var cur []string
	for _, id := range c.Text {
		if id < 0 {
			out = append(out, cur)
			cur = nil
			continue
		}
		cur = append(cur, c.Words[id])
	}
	return out
}

func TestReadTextAndMinCount(t *testing.T) {
	c := NewCounter(nil)
	text := "\xef\xbb\xbfthe cat sat\n\n  the\tdog  sat \r\nzebra\n\xff bad\x00x the\n"
	if err := c.ReadText("t.txt", strings.NewReader(text)); err != nil {
		t.Fatal(err)
	}
	if c.Tokens() != 8 || c.Skipped() != 2 {
		t.Errorf("tokens %d skipped %d, want 8 and 2 (invalid UTF-8, a NUL)", c.Tokens(), c.Skipped())
	}
	corpus, err := c.Corpus(2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"the", "sat"}; !reflect.DeepEqual(corpus.Words, want) {
		t.Errorf("words %q, want %q (count, then bytes; MinCount 2)", corpus.Words, want)
	}
	if want := []int64{3, 2}; !reflect.DeepEqual(corpus.Counts, want) {
		t.Errorf("counts %v, want %v", corpus.Counts, want)
	}
	want := [][]string{{"the", "sat"}, {"the", "sat"}, {"the"}}
	if got := sentences(corpus); !reflect.DeepEqual(got, want) {
		t.Errorf("sentences %q, want %q", got, want)
	}
	if corpus.Tokens != 5 || corpus.AllTokens != 8 || corpus.Types != 5 || corpus.Sentences != 3 {
		t.Errorf("corpus counts %+v", corpus)
	}
}

func TestReadCoNLL(t *testing.T) {
	text := "-DOCSTART- -X- O O\n\nEU NNP B-NP B-ORG\nrejects VBZ B-VP O\n\nPeter NNP B-NP B-PER\n-DOCSTART- -X- O O\nBlackburn NNP I-NP I-PER\n"
	c := NewCounter(nil)
	if err := c.ReadCoNLL("eng.train", strings.NewReader(text), 2); err != nil {
		t.Fatal(err)
	}
	corpus, err := c.Corpus(1)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"NNP", "VBZ"}, {"NNP"}, {"NNP"}}; !reflect.DeepEqual(sentences(corpus), want) {
		t.Errorf("column 2: %q, want %q", sentences(corpus), want)
	}
	err = NewCounter(nil).ReadCoNLL("eng.train", strings.NewReader(text), 5)
	var ie *tcorpus.Error
	if !errors.As(err, &ie) || ie.Line != 3 || !strings.Contains(err.Error(), "eng.train:3: the line has 4 columns, not the 5th") {
		t.Errorf("column 5: %v", err)
	}
	if err := NewCounter(nil).ReadCoNLL("x", strings.NewReader(text), 0); err == nil {
		t.Error("column 0 accepted")
	}
}

func TestReadCoNLLU(t *testing.T) {
	text := "# sent_id = 1\n# text = Don't go\n1-2\tDon't\t_\n1\tDo\tdo\n2\tn't\tnot\n3\tgo\tgo\n3.1\tgone\t_\n\n" +
		"1\tNew York\tNew York\n2\t2024\t2024\n"
	c := NewCounter(nil)
	if err := c.ReadCoNLLU("ewt", strings.NewReader(text)); err != nil {
		t.Fatal(err)
	}
	if c.Skipped() != 1 {
		t.Errorf("skipped %d, want 1 (a FORM with a space)", c.Skipped())
	}
	corpus, err := c.Corpus(1)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"Do", "n't", "go"}, {"2024"}}; !reflect.DeepEqual(sentences(corpus), want) {
		t.Errorf("FORMs %q, want %q", sentences(corpus), want)
	}
	err = NewCounter(nil).ReadCoNLLU("ewt", strings.NewReader("1 Do do\n"))
	var ie *tcorpus.Error
	if !errors.As(err, &ie) || ie.Line != 1 {
		t.Errorf("a line without tabs: %v", err)
	}
}

func TestNormalize(t *testing.T) {
	lowerZero := func(s string) string {
		return strings.ToLower(strings.Map(func(r rune) rune {
			if unicode.IsDigit(r) {
				return '0'
			}
			return r
		}, s))
	}
	c := NewCounter(lowerZero)
	if err := c.ReadText("t", strings.NewReader("The the 1996 2001 THE\n")); err != nil {
		t.Fatal(err)
	}
	corpus, err := c.Corpus(2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"the", "0000"}; !reflect.DeepEqual(corpus.Words, want) {
		t.Errorf("words %q, want %q", corpus.Words, want)
	}
}

func TestNoWords(t *testing.T) {
	for _, text := range []string{"", "\n\n  \n", "\xff\xfe\n"} {
		c := NewCounter(nil)
		if err := c.ReadText("t", strings.NewReader(text)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Corpus(1); !errors.Is(err, ErrNoWords) {
			t.Errorf("%q: %v, want ErrNoWords", text, err)
		}
	}
	c := NewCounter(nil)
	c.ReadText("t", strings.NewReader("a b c a\n"))
	if _, err := c.Corpus(3); !errors.Is(err, ErrNoWords) || !strings.Contains(err.Error(), "none of the 3 word types of the 4 tokens occurs 3 times") {
		t.Errorf("min count 3: %v", err)
	}
}

func TestLongLine(t *testing.T) {
	text := strings.Repeat("a ", 64<<20/2+1) // over the 64 MiB corpus.ReadTextWords takes
	err := NewCounter(nil).ReadText("big", strings.NewReader("x\n"+text))
	var ie *tcorpus.Error
	if !errors.As(err, &ie) || ie.Line != 2 {
		t.Errorf("a line over 64 MiB: %v", err)
	}
}
