package plural

import "testing"

func TestCount(t *testing.T) {
	tests := []struct {
		n    int
		noun string
		want string
	}{
		{0, "token", "0 tokens"},
		{1, "token", "1 token"},
		{2, "token", "2 tokens"},
		{1, "corpus", "1 corpus"},
		{3, "corpus", "3 corpora"},
		{2, "class", "2 classes"},
		{2, "match", "2 matches"},
		{2, "entry", "2 entries"},
		{2, "day", "2 days"},
		{2, "test sentence", "2 test sentences"},
		{1, "test sentence", "1 test sentence"},
		{-1, "point", "-1 point"},
		{2, "index", "2 indices"},
		{10, "epoch", "10 epochs"},
		{10, "SGD epoch", "10 SGD epochs"},
		{216, "L-BFGS iteration", "216 L-BFGS iterations"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			if got := Count(tc.n, tc.noun); got != tc.want {
				t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
			}
		})
	}
}

func TestPick(t *testing.T) {
	if got := Pick(1, "is", "are"); got != "is" {
		t.Errorf("Pick(1) = %q", got)
	}
	if got := Pick(0, "is", "are"); got != "are" {
		t.Errorf("Pick(0) = %q", got)
	}
}

func TestQuoted(t *testing.T) {
	tests := []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"pos"}, `"pos"`},
		{[]string{"pos", "chunk", "a\tb"}, `"pos", "chunk", "a\tb"`},
	}
	for _, tc := range tests {
		if got := Quoted(tc.names); got != tc.want {
			t.Errorf("Quoted(%q) = %s, want %s", tc.names, got, tc.want)
		}
	}
}
