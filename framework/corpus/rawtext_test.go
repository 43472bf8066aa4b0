package corpus

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// rawtextDoc is CoNLL-U with two documents: a multiword token whose
// words spell it (don't = do + n't), one whose words do not (del = de +
// el), SpaceAfter=No, and non-ASCII text.
const rawtextDoc = `# newdoc id = d1
# sent_id = 1
# text = I don't know.
1	I	I	PRON	PRP	_	3	nsubj	_	_
2-3	don't	_	_	_	_	_	_	_	_
2	do	do	AUX	VBP	_	4	aux	_	_
3	n't	not	PART	RB	_	4	advmod	_	_
4	know	know	VERB	VB	_	0	root	_	SpaceAfter=No
5	.	.	PUNCT	.	_	4	punct	_	_

# sent_id = 2
# text = Café  del mar
1	Café	café	NOUN	NN	_	0	root	_	_
2-3	del	_	_	_	_	_	_	_	_
2	de	de	ADP	IN	_	4	case	_	_
3	el	el	DET	DT	_	4	det	_	_
4	mar	mar	NOUN	NN	_	1	nmod	_	_

# newdoc id = d2
# text = Yes!
1	Yes	yes	INTJ	UH	_	0	root	_	SpaceAfter=No
2	!	!	PUNCT	.	_	1	punct	_	_

`

func TestTextDocumentReader(t *testing.T) {
	r := NewTextDocumentReader(strings.NewReader(rawtextDoc), "doc.conllu")
	d1, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	// "I don't know. Café  del mar": the second sentence starts at 14.
	if want := "I don't know. Café  del mar"; d1.Text != want {
		t.Fatalf("text %q, want %q", d1.Text, want)
	}
	wantTokens := []TextSpan{{0, 1}, {2, 4}, {4, 7}, {8, 12}, {12, 13}, {14, 18}, {20, 23}, {24, 27}}
	if !reflect.DeepEqual(d1.Tokens, wantTokens) {
		t.Errorf("tokens %v, want %v", d1.Tokens, wantTokens)
	}
	if want := []TextSpan{{0, 13}, {14, 27}}; !reflect.DeepEqual(d1.Sentences, want) {
		t.Errorf("sentences %v, want %v", d1.Sentences, want)
	}
	if want := []int{4, 6, 7, 8, 9, 13, 14, 17}; d1.Line != 1 || !reflect.DeepEqual(d1.TokenLineNo, want) {
		t.Errorf("lines: document %d, tokens %v", d1.Line, d1.TokenLineNo)
	}
	d2, err := r.Read()
	if err != nil || d2.Text != "Yes!" || len(d2.Tokens) != 2 || d2.Line != 19 {
		t.Fatalf("second document: %+v, %v", d2, err)
	}
	if _, err := r.Read(); err != io.EOF {
		t.Errorf("after the last document: %v, want EOF", err)
	}
	// As a rawtext sentence: a row per character, labels from the spans.
	s := d1.Sentence()
	var labels []string
	for _, row := range s.Tokens {
		labels = append(labels, row[3])
	}
	got := strings.Join(labels, " ")
	want := "B-W O B-W I-W B-W I-W I-W O B-W I-W I-W I-W B-F O B-W I-W I-W I-W O O B-W I-W I-W O B-F I-F I-F"
	if got != want {
		t.Errorf("labels\n%s\nwant\n%s", got, want)
	}
	if row := s.Tokens[15]; row[0] != "a" || row[1] != "a" || row[2] != "Café" {
		t.Errorf("row of 'a' in Café: %q", row)
	}
	if row := s.Tokens[17]; row[0] != "é" || row[2] != "Café" {
		t.Errorf("row of 'é': %q", row)
	}
	if row := s.Tokens[12]; row[0] != "." || row[1] != "." || row[2] != "know." {
		t.Errorf("row of '.': %q", row)
	}
}

func TestTextDocumentErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"no text", "1\tI\t_\t_\t_\t_\t_\t_\t_\t_\n\n", `x.conllu:1: the sentence has no "# text = ..." comment`},
		{"form not in text", "# text = I go\n1\tI\t_\t_\t_\t_\t_\t_\t_\t_\n2\twent\t_\t_\t_\t_\t_\t_\t_\t_\n\n",
			`x.conllu:3: the token "went" is not in the sentence's "# text" where it should be, at character 3: "go"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewTextDocumentReader(strings.NewReader(tc.in), "x.conllu").Read()
			var ce *Error
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want a data error with %q", err, tc.want)
			}
		})
	}
}

// TestTextSpansRoundTrip: reading back the labels of random tokens and
// sentences gives them back, over texts of random shape.
func TestTextSpansRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		var tokens, sents []TextSpan
		pos, start := 0, -1
		n := 1 + rng.IntN(8)
		for k := range n {
			pos += rng.IntN(2) // white space before the token, or none
			if k > 0 && pos == tokens[k-1].End && start < 0 {
				pos++ // a sentence starts after white space
			}
			tok := TextSpan{pos, pos + 1 + rng.IntN(3)}
			tokens = append(tokens, tok)
			if start < 0 {
				start = tok.Start
			}
			pos = tok.End
			if rng.IntN(3) == 0 || k == n-1 {
				sents = append(sents, TextSpan{start, tok.End})
				start = -1
			}
		}
		labels := TextLabels(pos+rng.IntN(2), tokens, sents)
		gotTokens, gotSents := TextSpans(labels)
		if !reflect.DeepEqual(gotTokens, tokens) || !reflect.DeepEqual(gotSents, sents) {
			t.Fatalf("trial %d: labels %q read back as %v %v, want %v %v", trial, labels, gotTokens, gotSents, tokens, sents)
		}
	}
}

// TestTextSpansLenient: ill-formed labels, as a tagger may give.
func TestTextSpansLenient(t *testing.T) {
	tokens, sents := TextSpans(strings.Fields("I-W I-W O I-F B-W I-F x B-W"))
	wantTokens := []TextSpan{{0, 2}, {3, 4}, {4, 5}, {5, 6}, {7, 8}}
	wantSents := []TextSpan{{0, 4}, {4, 6}, {7, 8}}
	if !reflect.DeepEqual(tokens, wantTokens) || !reflect.DeepEqual(sents, wantSents) {
		t.Errorf("got %v %v, want %v %v", tokens, sents, wantTokens, wantSents)
	}
	if tokens, sents := TextSpans([]string{"O", "O"}); tokens != nil || sents != nil {
		t.Errorf("white space only: %v %v", tokens, sents)
	}
}

// TestRawtextFormat reads the documents as rawtext sentences and writes
// their gold labels back as CoNLL-U with the gold tokenization.
func TestRawtextFormat(t *testing.T) {
	f, err := New(Config{Name: NameRawtext, Label: "label"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.Columns(), " "); got != "char class chunk label" || f.LabelColumn() != 3 {
		t.Fatalf("columns %q, label %d", got, f.LabelColumn())
	}
	r := f.NewReader(strings.NewReader(rawtextDoc), "doc.conllu", ReadOptions{})
	var out bytes.Buffer
	w := f.NewWriter(&out)
	for {
		s, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		gold := make([]string, s.Len())
		for i, row := range s.Tokens {
			gold[i] = row[3]
		}
		if err := w.Write(s, gold); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	want := "# text = I don't know.\n" +
		"1\tI\t_\t_\t_\t_\t_\t_\t_\t_\n2\tdo\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n3\tn't\t_\t_\t_\t_\t_\t_\t_\t_\n" +
		"4\tknow\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n5\t.\t_\t_\t_\t_\t_\t_\t_\t_\n\n" +
		"# text = Café  del mar\n" +
		"1\tCafé\t_\t_\t_\t_\t_\t_\t_\t_\n2\tdel\t_\t_\t_\t_\t_\t_\t_\t_\n3\tmar\t_\t_\t_\t_\t_\t_\t_\t_\n\n" +
		"# text = Yes!\n" +
		"1\tYes\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n2\t!\t_\t_\t_\t_\t_\t_\t_\t_\n\n"
	if out.String() != want {
		t.Errorf("written:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestTextRowsReuse(t *testing.T) {
	rows, cells := TextRows("ab c", 4, nil, nil)
	if len(rows) != 4 || rows[2][0] != " " || rows[2][1] != " " || rows[2][2] != " " || rows[3][2] != "c" || rows[0][2] != "ab" {
		t.Fatalf("rows %q", rows)
	}
	again, cells2 := TextRows("x", 4, rows, cells)
	if &cells2[0] != &cells[0] || len(again) != 1 || again[0][0] != "x" || again[0][1] != "a" || again[0][3] != "" {
		t.Errorf("not reused, or stale cells: %q", again)
	}
	allocs := testing.AllocsPerRun(20, func() { rows, cells = TextRows("Hello, world. Again!", 4, rows, cells) })
	if allocs != 0 {
		t.Errorf("%v allocations per call with buffers large enough", allocs)
	}
}
