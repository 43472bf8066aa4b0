package clusters

import (
	"strings"
	"testing"
)

func TestTokenize(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Thank you. Mr. Speaker, Members of Congress:", "Thank you . Mr. Speaker , Members of Congress :"},
		{"the U.S. economy grew 3.5%.", "the U.S. economy grew 3.5 % ."},
		{`He said, "I don't know."`, `He said , " I do n't know . "`},
		{"Germany's (EU) stance... [Laughter]", "Germany 's ( EU ) stance... [ Laughter ]"},
		{"It's 1,000 dollars; we'll see!", "It 's 1,000 dollars ; we 'll see !"},
		{"end.", "end ."},
		{"A.", "A."},
		{"-- . ,", "-- . ,"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			if got := strings.Join(Tokenize(nil, tc.in), " "); got != tc.want {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
