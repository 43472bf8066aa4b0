package tokenize_test

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/pretrained"
	"github.com/trellis-nlp/trellis/framework/tagger"
	"github.com/trellis-nlp/trellis/framework/tokenize"
)

// shipped returns the shipped English tokenizer.
func shipped(t *testing.T) *tokenize.Model {
	t.Helper()
	m, err := pretrained.Load("en-tokenizer")
	if err != nil {
		t.Fatal(err)
	}
	templates, _ := builtin.Registries()
	tg, err := tagger.New(m, templates, tagger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	tok, err := tokenize.NewModel(tg)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// checkOffsets: every token's and sentence's text is the text at its
// offsets, tokens are in order and inside their sentence.
func checkOffsets(t *testing.T, text string, sents []tokenize.Sentence) {
	t.Helper()
	rs := []rune(text)
	last := 0
	for k, s := range sents {
		if s.Start < last || s.End > len(rs) || string(rs[s.Start:s.End]) != s.Text {
			t.Fatalf("sentence %d [%d,%d) %q: not the text there", k, s.Start, s.End, s.Text)
		}
		for _, tok := range s.Tokens {
			if tok.Start < last || tok.Start < s.Start || tok.End > s.End || tok.End <= tok.Start || string(rs[tok.Start:tok.End]) != tok.Text {
				t.Fatalf("sentence %d: token [%d,%d) %q is not the text there, or out of order", k, tok.Start, tok.End, tok.Text)
			}
			last = tok.End
		}
	}
}

func words(sents []tokenize.Sentence) [][]string {
	var out [][]string
	for _, s := range sents {
		out = append(out, s.Words())
	}
	return out
}

func TestModel(t *testing.T) {
	tok := shipped(t)
	text := "The quick brown fox jumped over the lazy dog. Stocks fell 3% in New York on Monday.\n\nMr. Smith didn't go — café au lait?"
	sents, err := tok.Tokenize(text)
	if err != nil {
		t.Fatal(err)
	}
	checkOffsets(t, text, sents)
	want := [][]string{
		strings.Fields("The quick brown fox jumped over the lazy dog ."),
		strings.Fields("Stocks fell 3 % in New York on Monday ."),
		strings.Fields("Mr. Smith did n't go — café au lait ?"),
	}
	if got := words(sents); !reflect.DeepEqual(got, want) {
		t.Errorf("tokenized as\n%q\nwant\n%q", got, want)
	}
}

// TestModelLongParagraph: text without blank lines, longer than
// MaxParagraph, is tagged in pieces whose offsets still hold.
func TestModelLongParagraph(t *testing.T) {
	tok := shipped(t)
	text := strings.Repeat("He said so. ", tokenize.MaxParagraph/12+100)
	sents, err := tok.Tokenize(text)
	if err != nil {
		t.Fatal(err)
	}
	checkOffsets(t, text, sents)
	n := 0
	for _, s := range sents {
		n += len(s.Tokens)
	}
	if want := 4 * (tokenize.MaxParagraph/12 + 100); n != want {
		t.Errorf("%d tokens, want %d", n, want)
	}
}

func TestNotTokenizer(t *testing.T) {
	m, err := pretrained.Load("en-tokenizer")
	if err != nil {
		t.Fatal(err)
	}
	m.Format = corpus.Config{Name: corpus.NameCoNLL, Columns: []string{"char", "class", "chunk", "label"}, Label: "label"}
	templates, _ := builtin.Registries()
	tg, err := tagger.New(m, templates, tagger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if _, err := tokenize.NewModel(tg); !errors.Is(err, tokenize.ErrNotTokenizer) {
		t.Errorf("a conll model: %v, want ErrNotTokenizer", err)
	}
}

func TestRulesLinesCharacters(t *testing.T) {
	text := "Don't pay $1,000.50, Mr. Brown! Now?\r\nnäive  über\n\n漢字 ok"
	tests := []struct {
		name string
		tok  tokenize.Tokenizer
		want [][]string
	}{
		{"rules", tokenize.Rules{}, [][]string{
			strings.Fields("Do n't pay $ 1,000.50 , Mr ."),
			strings.Fields("Brown !"),
			strings.Fields("Now ?"),
			strings.Fields("näive über 漢字 ok"),
		}},
		{"lines", tokenize.Lines{}, [][]string{
			strings.Fields("Don't pay $1,000.50, Mr. Brown! Now?"),
			strings.Fields("näive über"),
			strings.Fields("漢字 ok"),
		}},
		{"characters", tokenize.Characters{}, [][]string{
			strings.Split("Don'tpay$1,000.50,Mr.Brown!Now?", ""),
			strings.Split("näiveüber", ""),
			strings.Split("漢字ok", ""),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sents, err := tc.tok.Tokenize(text)
			if err != nil {
				t.Fatal(err)
			}
			checkOffsets(t, text, sents)
			if got := words(sents); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// TestReader: a stream read a paragraph at a time gives the offsets that
// tokenizing it whole gives, and an invalid line is a data error with
// its line number.
func TestReader(t *testing.T) {
	tok := shipped(t)
	text := "First one. Second one.\nStill the second paragraph.\n\n\n  Third, after blank lines.\nLast"
	whole, err := tok.Tokenize(text)
	if err != nil {
		t.Fatal(err)
	}
	r := tokenize.NewReader(strings.NewReader(text), "in.txt", tok)
	var streamed []tokenize.Sentence
	var lines []int
	for {
		s, line, err := r.Read()
		if err != nil {
			break
		}
		streamed = append(streamed, s)
		lines = append(lines, line)
	}
	if !reflect.DeepEqual(streamed, whole) {
		t.Errorf("streamed\n%+v\nwhole\n%+v", streamed, whole)
	}
	if len(lines) == 0 || lines[0] != 1 || lines[len(lines)-1] != 6 {
		t.Errorf("lines %v: want the first sentence on line 1, the last on 6", lines)
	}
	// Paragraphs tokenized apart, as trellis-beam's workers do, give the
	// same sentences on the same lines.
	ps := tokenize.NewParagraphs(strings.NewReader(text), "in.txt")
	var apart []tokenize.Sentence
	var apartLines []int
	for {
		p, err := ps.Read()
		if err != nil {
			break
		}
		s, l, err := p.Tokenize(tok)
		if err != nil {
			t.Fatal(err)
		}
		apart, apartLines = append(apart, s...), append(apartLines, l...)
	}
	if !reflect.DeepEqual(apart, streamed) || !reflect.DeepEqual(apartLines, lines) {
		t.Errorf("paragraphs apart\n%+v %v\nstreamed\n%+v %v", apart, apartLines, streamed, lines)
	}
	r = tokenize.NewReader(strings.NewReader("fine\n\nbad \xff here\n"), "in.txt", tokenize.Lines{})
	var ce *corpus.Error
	for {
		if _, _, err = r.Read(); err != nil {
			break
		}
	}
	if !errors.As(err, &ce) || ce.Line != 3 {
		t.Errorf("invalid UTF-8: %v, want a data error on line 3", err)
	}
}

// TestScoreCounts checks the counts by hand on one document.
func TestScoreCounts(t *testing.T) {
	const gold = "# text = A b.\n1\tA\t_\t_\t_\t_\t_\t_\t_\t_\n2\tb\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n3\t.\t_\t_\t_\t_\t_\t_\t_\t_\n\n" +
		"# text = C d\n1\tC\t_\t_\t_\t_\t_\t_\t_\t_\n2\td\t_\t_\t_\t_\t_\t_\t_\t_\n\n"
	// "A b. C d": gold tokens A b . C d, one inner boundary (after ".").
	// Lines gives one sentence "A b. C d"... as tokens A, b., C, d: two
	// tokens right of five, no boundary.
	sc, err := tokenize.Score(corpus.NewTextDocumentReader(strings.NewReader(gold), "g"), tokenize.Lines{})
	if err != nil {
		t.Fatal(err)
	}
	want := tokenize.Scores{Documents: 1,
		Tokens:     tokenize.Counts{Gold: 5, Predicted: 4, Correct: 3},
		Boundaries: tokenize.Counts{Gold: 1, Predicted: 0, Correct: 0},
		Ends:       tokenize.Counts{Gold: 2, Predicted: 1, Correct: 1}}
	if sc != want {
		t.Errorf("scores %+v, want %+v", sc, want)
	}
	// Rules splits after "." and gets everything right.
	sc, _ = tokenize.Score(corpus.NewTextDocumentReader(strings.NewReader(gold), "g"), tokenize.Rules{})
	if sc.Tokens.F1() != 1 || sc.Boundaries != (tokenize.Counts{Gold: 1, Predicted: 1, Correct: 1}) {
		t.Errorf("rules: %+v", sc)
	}
}

// TestShippedOnEWT: the shipped tokenizer on UD EWT test, in the setup of
// docs/results.md; it needs the shared corpora.
func TestShippedOnEWT(t *testing.T) {
	f, err := os.Open("../../../shared/data/ud-english-ewt/en_ewt-ud-test.conllu")
	if err != nil {
		t.Skip("UD English EWT is not in ../shared/data (a fresh machine has no ../shared): ", err)
	}
	defer f.Close()
	sc, err := tokenize.Score(corpus.NewTextDocumentReader(f, "test"), shipped(t))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Tokens.F1() < 0.985 || sc.Ends.F1() < 0.88 || sc.Boundaries.F1() < 0.87 {
		t.Errorf("token F1 %.4f, sentence end F1 %.4f, boundary F1 %.4f: below 0.985, 0.88 and 0.87", sc.Tokens.F1(), sc.Ends.F1(), sc.Boundaries.F1())
	}
}
