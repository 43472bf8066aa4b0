package corpus

import "testing"

func TestWordColumn(t *testing.T) {
	tests := []struct {
		name    string
		format  string
		columns []string
		label   int
		want    int
	}{
		{"conllu", NameCoNLLU, []string{"id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc"}, 3, 1},
		{"conll word pos chunk", NameCoNLL, []string{"word", "pos", "chunk"}, 2, 0},
		{"conll pos word chunk", NameCoNLL, []string{"pos", "word", "chunk"}, 2, 1},
		{"conll label first", NameCoNLL, []string{"tag", "token"}, 0, 1},
		{"conll unnamed", NameCoNLL, []string{"a", "b", "y"}, 2, 0},
		{"slash", NameSlash, []string{"word", "tag"}, 1, 0},
		{"chars", NameChars, []string{"char", "label"}, 1, 0},
		{"crfsuite", NameCRFsuite, []string{"label", "attributes"}, 0, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := WordColumn(tc.format, tc.columns, tc.label); got != tc.want {
				t.Errorf("WordColumn = %d, want %d", got, tc.want)
			}
		})
	}
}
