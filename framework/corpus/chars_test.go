package corpus

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestReadChars(t *testing.T) {
	tests := []struct {
		name    string
		scheme  string
		opts    ReadOptions
		input   string
		want    []string
		wantErr string
	}{
		{"BMES", "", ReadOptions{},
			"扬帆  远东  做  与\n希腊  的\n",
			[]string{"1: 扬|B 帆|E 远|B 东|E 做|S 与|S", "2: 希|B 腊|E 的|S"}, ""},
		{"long word", "BMES", ReadOptions{},
			"中华人民  共和国",
			[]string{"1: 中|B 华|M 人|M 民|E 共|B 和|M 国|E"}, ""},
		{"BI", "BI", ReadOptions{},
			"中华人民  共  和国",
			[]string{"1: 中|B 华|I 人|I 民|I 共|B 和|B 国|I"}, ""},
		{"CRLF, trailing spaces, tabs, blank lines, BOM", "", ReadOptions{},
			"\ufeff扬帆  远东  \r\n\r\n  \r\n希腊\t的 。\r\n",
			[]string{"1: 扬|B 帆|E 远|B 东|E", "4: 希|B 腊|E 的|S 。|S"}, ""},
		{"ideographic space is a character", "", ReadOptions{},
			"a\u3000b",
			[]string{"1: a|B \u3000|M b|E"}, ""},
		{"ASCII and full-width", "", ReadOptions{},
			"ＩＢＭ  x1",
			[]string{"1: Ｉ|B Ｂ|M Ｍ|E x|B 1|E"}, ""},
		{"label optional: no labels", "", ReadOptions{LabelOptional: true},
			"扬帆  远\n",
			[]string{"1: 扬| 帆| 远|"}, ""},
		{"invalid UTF-8", "", ReadOptions{}, "好\n\xe5\xa5\n", []string{"1: 好|S"}, `in.txt:2: invalid UTF-8 at byte 1 of "\xe5\xa5"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustNew(t, Config{Name: "chars", Label: "label", CharScheme: tt.scheme})
			sents, err := readString(f, tt.input, tt.opts)
			checkErr(t, err, tt.wantErr)
			if got := summaries(sents); !slices.Equal(got, tt.want) {
				t.Errorf("sentences\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestReadCharsLines(t *testing.T) {
	sents, err := readString(mustNew(t, Config{Name: "chars"}), "\n扬帆  远 \r\n", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := sents[0]
	if !slices.Equal(s.Lines, []string{"扬帆  远 "}) || s.TokenLine != nil || !slices.Equal(s.TokenLineNo, []int{2, 2, 2}) || s.Line != 2 || s.File != "in.txt" {
		t.Errorf("Lines %q TokenLine %v TokenLineNo %v Line %d", s.Lines, s.TokenLine, s.TokenLineNo, s.Line)
	}
}

func TestCharLabels(t *testing.T) {
	tests := []struct {
		words  string // space-separated
		scheme string
		want   string
	}{
		{"", "BMES", ""},
		{"a", "BMES", "S"},
		{"ab c def", "BMES", "B E S B M E"},
		{"ab c def", "bmes", "B E S B M E"},
		{"ab c def", "BI", "B I B B I I"},
		{"ab c def", "bi", "B I B B I I"},
		{"中国 人", "", "B E S"},
	}
	for _, tt := range tests {
		t.Run(tt.words+"/"+tt.scheme, func(t *testing.T) {
			got := strings.Join(CharLabels(strings.Fields(tt.words), tt.scheme), " ")
			if got != tt.want {
				t.Errorf("CharLabels = %q, want %q", got, tt.want)
			}
		})
	}
	if got := CharLabels([]string{"", "a", ""}, "BMES"); !slices.Equal(got, []string{"S"}) {
		t.Errorf("empty words: got %q", got)
	}
}

func TestWordsFromLabels(t *testing.T) {
	tests := []struct {
		name   string
		chars  string // one character per byte
		labels string // space-separated
		want   string // words, space-separated
	}{
		{"empty", "", "", ""},
		{"BMES", "abcdef", "B E S B M E", "ab c def"},
		{"BI", "abcdef", "B I B B I I", "ab c def"},
		{"starts inside", "abc", "M E S", "ab c"},
		{"E after E", "abc", "B E E", "ab c"},
		{"M after S", "abc", "S M E", "a bc"},
		{"B after B", "abc", "B B E", "a bc"},
		{"unfinished word", "abc", "B M M", "abc"},
		{"I in BMES", "abc", "B I E", "abc"},
		{"unknown labels act like S", "abcd", "X B E O", "a bc d"},
		{"missing labels", "abc", "B", "a b c"},
		{"no labels", "ab", "", "a b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chars := strings.Split(tt.chars, "")
			got := strings.Join(WordsFromLabels(chars, strings.Fields(tt.labels)), " ")
			if got != tt.want {
				t.Errorf("WordsFromLabels = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCharLabelsRoundTrip(t *testing.T) {
	words := []string{"中华人民", "共和国", "万岁", "！"}
	for _, scheme := range []string{"BMES", "BI"} {
		var chars []string
		for _, w := range words {
			chars = append(chars, strings.Split(w, "")...)
		}
		if got := WordsFromLabels(chars, CharLabels(words, scheme)); !slices.Equal(got, words) {
			t.Errorf("%s: got %q, want %q", scheme, got, words)
		}
	}
}

func TestWriteChars(t *testing.T) {
	f := mustNew(t, Config{Name: "chars", Label: "label"})
	sents, err := readString(f, "扬帆远东\r\n希腊的\n", ReadOptions{LabelOptional: true})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	w := f.NewWriter(&b)
	for _, p := range [][]string{{"B", "E", "M", "E"}, {"B", "E", "S"}} {
		s := sents[0]
		sents = sents[1:]
		if err := w.Write(s, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := "扬帆  远东\n希腊  的\n"; b.String() != want {
		t.Errorf("output %q, want %q", b.String(), want)
	}
}

// CharLabels, the inverse of WordsFromLabels, returns one label per character (rune) of words: for scheme
// "BI" B then I..., otherwise (BMES, any case) S for a one-character word
// and B M... E for a longer one. Empty words contribute nothing.
func CharLabels(words []string, scheme string) []string {
	bi := strings.EqualFold(scheme, "BI")
	n := 0
	for _, w := range words {
		n += utf8.RuneCountInString(w)
	}
	labels := make([]string, 0, n)
	for _, w := range words {
		length := utf8.RuneCountInString(w)
		for pos := range length {
			labels = append(labels, charLabel(pos, length, bi))
		}
	}
	return labels
}
