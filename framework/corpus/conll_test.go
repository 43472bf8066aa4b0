package corpus

import (
	"slices"
	"strings"
	"testing"
)

func TestReadCoNLL(t *testing.T) {
	chunk := Config{Name: "conll", Columns: []string{"word", "pos", "chunk"}, Label: "chunk"}
	ner := Config{Name: "conll", Columns: []string{"word", "pos", "chunk", "ner"}, Label: "ner"}
	tests := []struct {
		name    string
		cfg     Config
		opts    ReadOptions
		input   string
		want    []string
		wantErr string
	}{
		{"two sentences", chunk, ReadOptions{},
			"Confidence NN B-NP\nin IN B-PP\n\nthe DT B-NP\n\n",
			[]string{"1: Confidence|NN|B-NP in|IN|B-PP", "4: the|DT|B-NP"}, ""},
		{"no final blank line", chunk, ReadOptions{},
			"a DT B-NP\n\nb NN I-NP",
			[]string{"1: a|DT|B-NP", "3: b|NN|I-NP"}, ""},
		{"many blank and whitespace-only lines", chunk, ReadOptions{},
			"\n\n  \na DT B-NP\n\t\n \n\nb NN I-NP\n\n\n",
			[]string{"4: a|DT|B-NP", "8: b|NN|I-NP"}, ""},
		{"empty input", chunk, ReadOptions{}, "", nil, ""},
		{"only blank lines", chunk, ReadOptions{}, "\n \n\r\n", nil, ""},
		{"runs of spaces and tabs", chunk, ReadOptions{},
			"  a \t DT\tB-NP  \nb  NN   I-NP\t\n",
			[]string{"1: a|DT|B-NP b|NN|I-NP"}, ""},
		{"CRLF", chunk, ReadOptions{},
			"a DT B-NP\r\nb NN I-NP\r\n\r\nc NN O\r\n",
			[]string{"1: a|DT|B-NP b|NN|I-NP", "4: c|NN|O"}, ""},
		{"BOM", chunk, ReadOptions{},
			"\ufeffa DT B-NP\n",
			[]string{"1: a|DT|B-NP"}, ""},
		{"BOM only at the start", chunk, ReadOptions{},
			"a DT B-NP\n\ufeffb NN I-NP\n",
			[]string{"1: a|DT|B-NP \ufeffb|NN|I-NP"}, ""},
		{"docstart", ner, ReadOptions{},
			"-DOCSTART- -X- O O\n\nEU NNP I-NP I-ORG\n\nPeter NNP I-NP I-PER\n\n-DOCSTART- -X- O O\n\nx NN I-NP O\n",
			[]string{"3*: EU|NNP|I-NP|I-ORG", "5: Peter|NNP|I-NP|I-PER", "9*: x|NN|I-NP|O"}, ""},
		{"docstart without blank lines", ner, ReadOptions{},
			"a NN I-NP O\n-DOCSTART- -X- O O\nb NN I-NP O\n",
			[]string{"1: a|NN|I-NP|O", "3*: b|NN|I-NP|O"}, ""},
		{"docstart with other field count", chunk, ReadOptions{},
			"-DOCSTART-\n\na DT B-NP\n",
			[]string{"3*: a|DT|B-NP"}, ""},
		{"docstart at the end", chunk, ReadOptions{},
			"a DT B-NP\n\n-DOCSTART- -X- O\n\n",
			[]string{"1: a|DT|B-NP"}, ""},
		{"tab separator keeps spaces", Config{Name: "conll", Columns: []string{"word", "ner"}, Label: "ner", Separator: "\t"}, ReadOptions{},
			"New York\tB-LOC\n\tO\n",
			[]string{"1: New York|B-LOC |O"}, ""},
		{"space separator", Config{Name: "conll", Columns: []string{"word", "pos", "ner"}, Label: "ner", Separator: " "}, ReadOptions{},
			"a\tb NN O\n",
			[]string{"1: a\tb|NN|O"}, ""},
		{"one column", Config{Name: "conll", Columns: []string{"word"}}, ReadOptions{},
			"a\nb\n\nc\n",
			[]string{"1: a b", "4: c"}, ""},
		{"label optional", chunk, ReadOptions{LabelOptional: true},
			"a DT B-NP\nb NN\n",
			[]string{"1: a|DT|B-NP b|NN|"}, ""},
		{"label optional all missing", chunk, ReadOptions{LabelOptional: true},
			"a DT\nb NN\n",
			[]string{"1: a|DT| b|NN|"}, ""},

		{"too few columns", chunk, ReadOptions{},
			"a DT B-NP\n\nb\n",
			[]string{"1: a|DT|B-NP"}, `in.txt:3: expected 3 columns (word pos chunk), found 1 in "b"`},
		{"too many columns", chunk, ReadOptions{},
			"a DT B-NP\nb NN I-NP x\n",
			nil, `in.txt:2: expected 3 columns (word pos chunk), found 4 in "b NN I-NP x"; "x" follows the last column, chunk`},
		// A line one column short: the values of the last two columns on
		// the lines before tell which it lacks, and the line is shown.
		{"missing label", chunk, ReadOptions{},
			"a NN B-NP\nb NN\n",
			nil, `in.txt:2: expected 3 columns (word pos chunk), found 2 in "b NN"; the label column "chunk" is missing`},
		{"missing pos, not the label", chunk, ReadOptions{},
			"Confidence NN B-NP\nin IN B-PP\n\nthe B-NP\n",
			[]string{"1: Confidence|NN|B-NP in|IN|B-PP"}, `in.txt:4: expected 3 columns (word pos chunk), found 2 in "the B-NP"; "B-NP" is a value of the label column "chunk", so "word" or "pos" is missing`},
		{"missing column, first line", chunk, ReadOptions{},
			"Confidence B-NP\n",
			nil, `in.txt:1: expected 3 columns (word pos chunk), found 2 in "Confidence B-NP"`},
		{"missing column, last field seen in both columns", Config{Name: "conll", Columns: []string{"word", "a", "b"}}, ReadOptions{},
			"w X Y\nv Y X\nu X\n",
			nil, `in.txt:3: expected 3 columns (word a b), found 2 in "u X"`},
		{"missing last column, not a label", Config{Name: "conll", Columns: []string{"word", "pos", "chunk"}, Label: "pos"}, ReadOptions{},
			"a NN B-NP\nb NN\n",
			nil, `in.txt:2: expected 3 columns (word pos chunk), found 2 in "b NN"; column "chunk" is missing`},
		{"spaces where the separator is a tab", Config{Name: "conll", Columns: []string{"word", "pos", "chunk"}, Label: "chunk", Separator: "\t"}, ReadOptions{},
			"a\tNN\tB-NP\nb NN\tI-NP\n",
			nil, `in.txt:2: expected 3 columns (word pos chunk), found 2 in "b NN\tI-NP"; the columns must be separated by one tab`},
		{"label optional only for the last column", Config{Name: "conll", Columns: []string{"word", "tag", "lemma"}, Label: "tag"}, ReadOptions{LabelOptional: true},
			"a DT\n",
			nil, `in.txt:1: expected 3 columns (word tag lemma), found 2 in "a DT"`},
		{"label optional, no label column", Config{Name: "conll", Columns: []string{"word", "pos"}}, ReadOptions{LabelOptional: true},
			"a\n",
			nil, `in.txt:1: expected 2 columns (word pos), found 1 in "a"`},
		{"trailing space with space separator", Config{Name: "conll", Columns: []string{"word", "pos"}, Separator: " "}, ReadOptions{},
			"a DT \n",
			nil, `in.txt:1: expected 2 columns (word pos), found 3 in "a DT "; whitespace at the start or end of the line makes another column`},
		{"invalid UTF-8", chunk, ReadOptions{},
			"a DT B-NP\n\nb\xff NN I-NP\n",
			[]string{"1: a|DT|B-NP"}, `in.txt:3: invalid UTF-8 at byte 2 of "b\xff NN I-NP"`},
		{"invalid UTF-8 after CRLF lines", chunk, ReadOptions{},
			"a DT B-NP\r\n\r\n\xc3\r\n",
			[]string{"1: a|DT|B-NP"}, `in.txt:3: invalid UTF-8 at byte 1 of "\xc3"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sents, err := readString(mustNew(t, tt.cfg), tt.input, tt.opts)
			checkErr(t, err, tt.wantErr)
			if got := summaries(sents); !slices.Equal(got, tt.want) {
				t.Errorf("sentences\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestReadCoNLLLines(t *testing.T) {
	f := mustNew(t, Config{Name: "conll", Columns: []string{"word", "tag"}, Label: "tag"})
	input := "-DOCSTART- -X-\n\n a  X \r\nb\tY\n\n\nc Z"
	sents, err := readString(f, input, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sents) != 2 {
		t.Fatalf("%d sentences, want 2", len(sents))
	}
	s := sents[0]
	if !slices.Equal(s.Lines, []string{" a  X ", "b\tY"}) {
		t.Errorf("Lines = %q", s.Lines)
	}
	if got, want := s.TokenLine, []int{0, 1}; !slices.Equal(got, want) {
		t.Errorf("TokenLine = %v, want %v", got, want)
	}
	if got, want := s.TokenLineNo, []int{3, 4}; !slices.Equal(got, want) {
		t.Errorf("TokenLineNo = %v, want %v", got, want)
	}
	if s.File != "in.txt" || s.Line != 3 || !s.DocStart {
		t.Errorf("File, Line, DocStart = %q, %d, %v", s.File, s.Line, s.DocStart)
	}
	if s := sents[1]; s.Line != 7 || s.DocStart || !slices.Equal(s.TokenLineNo, []int{7}) {
		t.Errorf("second sentence Line %d DocStart %v TokenLineNo %v", s.Line, s.DocStart, s.TokenLineNo)
	}
}

func TestReadCoNLLStickyError(t *testing.T) {
	f := mustNew(t, Config{Name: "conll", Columns: []string{"word", "tag"}})
	r := f.NewReader(strings.NewReader("a\n\nb X\n"), "in.txt", ReadOptions{})
	_, err := r.Read()
	checkErr(t, err, `in.txt:1: expected 2 columns (word tag), found 1 in "a"`)
	if _, err2 := r.Read(); err2 != err {
		t.Fatalf("Read after an error = %v, want the same error", err2)
	}
}

func TestWriteCoNLL(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		opts  ReadOptions
		input string
		want  string
	}{
		{"spaces", Config{Name: "conll", Columns: []string{"word", "pos"}}, ReadOptions{},
			"-DOCSTART- -X-\n\na DT\r\nb  NN \n\n\nc NN",
			"-DOCSTART- -X- O\n\na DT P\nb  NN P\n\nc NN P\n\n"}, // trailing whitespace is dropped; the document boundary comes back labelled O
		{"tab in line", Config{Name: "conll", Columns: []string{"word", "pos"}}, ReadOptions{},
			"a\tDT\nb NN\n",
			"a\tDT\tP\nb NN P\n\n"},
		{"explicit separator keeps trailing separators", Config{Name: "conll", Columns: []string{"word", "pos", "lemma"}, Separator: "\t"}, ReadOptions{},
			"a\tDT\t\n",
			"a\tDT\t\tP\n\n"},
		{"unlabelled input", Config{Name: "conll", Columns: []string{"word", "pos"}, Label: "pos"}, ReadOptions{LabelOptional: true},
			"a\nb\n",
			"a P\nb P\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustNew(t, tt.cfg)
			sents, err := readString(f, tt.input, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := writeString(t, f, sents, -1); got != tt.want {
				t.Errorf("output\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestWriteBuiltSentence(t *testing.T) {
	// Sentences made in code have no Lines: writers fall back to columns.
	s := &Sentence{Tokens: [][]string{{"a/b", "X"}, {"c", ""}}, File: "t", Line: 1}
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{Name: "conll", Columns: []string{"word", "tag"}}, "a/b X P\nc  P\n\n"},
		{Config{Name: "conll", Columns: []string{"word", "tag"}, Separator: "\t"}, "a/b\tX\tP\nc\t\tP\n\n"},
		{Config{Name: "conllu"}, "a/b\tX\tP\nc\t\tP\n\n"},
		{Config{Name: "slash"}, `a\/b/X/P c/P` + "\n"},
		{Config{Name: "chars"}, "a/b  c\n"},
	}
	for _, tt := range tests {
		t.Run(tt.cfg.Name+tt.cfg.Separator, func(t *testing.T) {
			if got := writeString(t, mustNew(t, tt.cfg), []*Sentence{s}, -1); got != tt.want {
				t.Errorf("output\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestWriteLabelCountMismatch(t *testing.T) {
	s := &Sentence{Tokens: [][]string{{"a", "X"}}, Lines: []string{"a X"}, TokenLine: []int{0}, File: "f.txt", Line: 7}
	for _, name := range []string{"conll", "conllu", "slash", "chars"} {
		t.Run(name, func(t *testing.T) {
			w := mustNew(t, Config{Name: name, Columns: []string{"word", "tag"}}).NewWriter(&strings.Builder{})
			err := w.Write(s, []string{"A", "B"})
			if err == nil || err.Error() != "f.txt:7: 2 predicted labels for a sentence of 1 token" {
				t.Fatalf("error = %v", err)
			}
		})
	}
}
