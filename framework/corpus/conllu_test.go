package corpus

import (
	"slices"
	"strings"
	"testing"
)

// tsv joins fields with tabs: CoNLL-U lines are unreadable otherwise.
func tsv(fields ...string) string { return strings.Join(fields, "\t") }

func word(id, form, upos string) string {
	return tsv(id, form, strings.ToLower(form), upos, "_", "_", "0", "root", "_", "_")
}

func TestReadCoNLLU(t *testing.T) {
	upos := Config{Name: "conllu", Label: "upos"}
	mwt := tsv("3-4", "don't", "_", "_", "_", "_", "_", "_", "_", "_")
	empty := tsv("2.1", "saw", "see", "VERB", "_", "_", "_", "_", "0:root", "_")
	tests := []struct {
		name    string
		input   string
		want    []string // summaries, FORM|UPOS only
		wantErr string
	}{
		{"comments and two sentences",
			"# sent_id = 1\n# text = Hi .\n" + word("1", "Hi", "INTJ") + "\n" + word("2", ".", "PUNCT") + "\n\n" + word("1", "Yes", "INTJ") + "\n\n",
			[]string{"1: Hi|INTJ .|PUNCT", "6: Yes|INTJ"}, ""},
		{"newdoc",
			"# newdoc id = d1\n# sent_id = 1\n" + word("1", "A", "X") + "\n\n# sent_id = 2\n" + word("1", "B", "X") + "\n\n# newdoc\n" + word("1", "C", "X") + "\n",
			[]string{"1*: A|X", "5: B|X", "8*: C|X"}, ""},
		{"newdoc in a block of its own",
			"# newdoc id = d1\n\n" + word("1", "A", "X") + "\n",
			[]string{"3*: A|X"}, ""},
		{"not newdoc",
			"# newdocument\n" + word("1", "A", "X") + "\n",
			[]string{"1: A|X"}, ""},
		{"range and empty node are not tokens",
			word("1", "I", "PRON") + "\n" + empty + "\n" + mwt + "\n" + word("3", "do", "AUX") + "\n" + word("4", "n't", "PART") + "\n",
			[]string{"1: I|PRON do|AUX n't|PART"}, ""},
		{"comments only", "# a\n# b\n\n# c\n", nil, ""},
		{"no final blank line", word("1", "A", "X"), []string{"1: A|X"}, ""},
		{"CRLF and BOM", "\ufeff# c\r\n" + word("1", "A", "X") + "\r\n\r\n", []string{"1: A|X"}, ""},
		{"spaces inside fields", tsv("1", "New York", "New York", "PROPN", "_", "_", "0", "root", "_", "_"), []string{"1: New York|PROPN"}, ""},

		{"spaces instead of tabs", strings.ReplaceAll(word("1", "A", "X"), "\t", " "), nil,
			`in.txt:1: expected 10 tab-separated columns (id form lemma upos xpos feats head deprel deps misc), found 1 in "1 A a X _ _ 0 root _ _"; the columns must be separated by one tab, not spaces`},
		{"eleven columns", "# c\n" + word("1", "A", "X") + "\n" + word("2", "B", "X") + "\textra\n", nil,
			`in.txt:3: expected 10 tab-separated columns (id form lemma upos xpos feats head deprel deps misc), found 11 in "2\tB\tb\tX\t_\t_\t0\troot\t_\t_\textra"`},
		{"bad ID", word("1", "A", "X") + "\n\n" + word("x", "B", "X") + "\n", []string{"1: A|X"},
			`in.txt:3: invalid ID "x" in the first column of "x\tB\tb\tX\t_\t_\t0\troot\t_\t_" (want an integer, a range like 3-4, or a decimal like 5.1)`},
		{"bad range", word("1-", "B", "X"), nil, `in.txt:1: invalid ID "1-" in the first column of "1-\tB\tb\tX\t_\t_\t0\troot\t_\t_" (want an integer, a range like 3-4, or a decimal like 5.1)`},
		{"empty ID", word("", "B", "X"), nil, `in.txt:1: invalid ID "" in the first column of "\tB\tb\tX\t_\t_\t0\troot\t_\t_" (want an integer, a range like 3-4, or a decimal like 5.1)`},
		{"invalid UTF-8", "# c\n" + word("1", "\xe2\x82", "X"), nil, "in.txt:2: invalid UTF-8 at byte 3 of \"1\\t\\xe2\\x82\\t\ufffd\ufffd\\tX\\t_\\t_\\t0\\troot\\t_\\t_\""},
	}
	f := mustNew(t, upos)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sents, err := readString(f, tt.input, ReadOptions{})
			checkErr(t, err, tt.wantErr)
			for _, s := range sents {
				if len(s.Tokens) > 0 && len(s.Tokens[0]) != 10 {
					t.Fatalf("%d columns, want 10", len(s.Tokens[0]))
				}
				for i, row := range s.Tokens {
					s.Tokens[i] = []string{row[1], row[3]}
				}
			}
			if got := summaries(sents); !slices.Equal(got, tt.want) {
				t.Errorf("sentences\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestReadCoNLLULines(t *testing.T) {
	mwt := tsv("2-3", "don't", "_", "_", "_", "_", "_", "_", "_", "_")
	input := "# newdoc\n# text = I don't\n" + word("1", "I", "PRON") + "\n" + mwt + "\n" + word("2", "do", "AUX") + "\n" + word("3", "n't", "PART") + "\n"
	sents, err := readString(mustNew(t, Config{Name: "conllu"}), input, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := sents[0]
	if want := strings.Split(strings.TrimSuffix(input, "\n"), "\n"); !slices.Equal(s.Lines, want) {
		t.Errorf("Lines = %q, want %q", s.Lines, want)
	}
	if want := []int{2, 4, 5}; !slices.Equal(s.TokenLine, want) {
		t.Errorf("TokenLine = %v, want %v", s.TokenLine, want)
	}
	if want := []int{3, 5, 6}; !slices.Equal(s.TokenLineNo, want) {
		t.Errorf("TokenLineNo = %v, want %v", s.TokenLineNo, want)
	}
	if s.Line != 1 || !s.DocStart {
		t.Errorf("Line %d DocStart %v", s.Line, s.DocStart)
	}

	got := writeString(t, mustNew(t, Config{Name: "conllu"}), sents, 3)
	want := "# newdoc\n# text = I don't\n" + word("1", "I", "PRON") + "\tPRON\n" + mwt + "\n" +
		word("2", "do", "AUX") + "\tAUX\n" + word("3", "n't", "PART") + "\tPART\n\n"
	if got != want {
		t.Errorf("output\n got %q\nwant %q", got, want)
	}
}

func TestConlluIDKind(t *testing.T) {
	tests := map[string]idKind{
		"1": wordID, "10": wordID, "0": wordID,
		"3-4": rangeID, "10-12": rangeID,
		"5.1": emptyNodeID, "12.10": emptyNodeID,
		"": badID, "a": badID, "-1": badID, "1-": badID, ".1": badID, "1.": badID, "1-2-3": badID, "1.2.3": badID, "1-2.3": badID, "+1": badID, "١": badID,
	}
	for id, want := range tests {
		if got := conlluIDKind([]byte(id)); got != want {
			t.Errorf("conlluIDKind(%q) = %d, want %d", id, got, want)
		}
	}
}
