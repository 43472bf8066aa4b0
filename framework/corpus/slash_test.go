package corpus

import (
	"slices"
	"testing"
)

func TestReadSlash(t *testing.T) {
	tests := []struct {
		name    string
		opts    ReadOptions
		input   string
		want    []string
		wantErr string
	}{
		{"two sentences", ReadOptions{},
			"The/DT cat/NN ./.\nIt/PRP sat/VBD\n",
			[]string{"1: The|DT cat|NN .|.", "2: It|PRP sat|VBD"}, ""},
		{"split at the last slash", ReadOptions{},
			"1/2/CD and/or/CC //SYM\n",
			[]string{"1: 1/2|CD and/or|CC /|SYM"}, ""},
		{"escaped slash", ReadOptions{},
			`a\/b/NN c/d\/e` + "\n",
			[]string{`1: a/b|NN c|d/e`}, ""},
		{"blank lines, runs of whitespace, CRLF, BOM, no final newline", ReadOptions{},
			"\ufeff\r\n  a/X \t b/Y  \r\n\n   \nc/Z",
			[]string{"2: a|X b|Y", "5: c|Z"}, ""},
		{"label optional", ReadOptions{LabelOptional: true},
			"a b/Y c/ /d\n",
			[]string{"1: a| b|Y c/| /d|"}, ""},

		{"missing tag", ReadOptions{}, "a/X b\n", nil, `in.txt:1: token "b" is not word/TAG`},
		{"escaped slash is not a tag", ReadOptions{}, `a/X b\/c` + "\n", nil, `in.txt:1: token "b\\/c" is not word/TAG`},
		{"empty tag", ReadOptions{}, "ok/X\na/X b/\n", []string{"1: ok|X"}, `in.txt:2: token "b/" has an empty tag`},
		{"empty word", ReadOptions{}, "/X\n", nil, `in.txt:1: token "/X" has an empty word`},
		{"invalid UTF-8", ReadOptions{}, "a/X\n\xff/Y\n", []string{"1: a|X"}, `in.txt:2: invalid UTF-8 at byte 1 of "\xff/Y"`},
	}
	f := mustNew(t, Config{Name: "slash", Label: "tag"})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sents, err := readString(f, tt.input, tt.opts)
			checkErr(t, err, tt.wantErr)
			if got := summaries(sents); !slices.Equal(got, tt.want) {
				t.Errorf("sentences\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestReadSlashLines(t *testing.T) {
	sents, err := readString(mustNew(t, Config{Name: "slash"}), "\n a/X  b/Y\r\n", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := sents[0]
	if !slices.Equal(s.Lines, []string{" a/X  b/Y"}) || !slices.Equal(s.TokenLine, []int{0, 0}) || !slices.Equal(s.TokenLineNo, []int{2, 2}) || s.Line != 2 {
		t.Errorf("Lines %q TokenLine %v TokenLineNo %v Line %d", s.Lines, s.TokenLine, s.TokenLineNo, s.Line)
	}
}

func TestWriteSlash(t *testing.T) {
	f := mustNew(t, Config{Name: "slash", Label: "tag"})
	sents, err := readString(f, " 1/2/CD  a\\/b/NN\nraw/X text\n", ReadOptions{LabelOptional: true})
	if err != nil {
		t.Fatal(err)
	}
	want := "1/2/CD/P a\\/b/NN/P\nraw/X/P text/P\n"
	if got := writeString(t, f, sents, -1); got != want {
		t.Errorf("output\n got %q\nwant %q", got, want)
	}
}
