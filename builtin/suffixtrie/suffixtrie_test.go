package suffixtrie

import (
	"slices"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

type recorder struct{ tokens [][]string }

func (r *recorder) Add(i int, key []byte, _ float64) { r.tokens[i] = append(r.tokens[i], string(key)) }

func TestExtract(t *testing.T) {
	three := 3
	for _, tc := range []struct {
		name, word string
		max        *int
		want       []string
	}{
		{"lower", "walks", &three, []string{"s:l:0=", "s:l:1=s", "s:l:2=ks", "s:l:3=lks"}},
		{"upper", "Walks", &three, []string{"s:U:0=", "s:U:1=s", "s:U:2=ks", "s:U:3=lks"}},
		{"shorter than max", "Ok", &three, []string{"s:U:0=", "s:U:1=k", "s:U:2=Ok"}},
		{"runes", "naïve", &three, []string{"s:l:0=", "s:l:1=e", "s:l:2=ve", "s:l:3=ïve"}},
		{"non-letter first", "1st", nil, []string{"s:l:0=", "s:l:1=t", "s:l:2=st", "s:l:3=1st"}},
		{"empty", "", nil, []string{"s:l:0="}},
		{"default ten", "internationalization", nil, []string{"s:l:0=", "s:l:1=n", "s:l:2=on", "s:l:3=ion", "s:l:4=tion",
			"s:l:5=ation", "s:l:6=zation", "s:l:7=ization", "s:l:8=lization", "s:l:9=alization", "s:l:10=nalization"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tpl := &Template{cfg: Config{Column: "w", MaxLength: tc.max}}
			if d := tpl.Validate(); d.HasErrors() {
				t.Fatal(d)
			}
			x, err := tpl.Compile("s", feature.Columns{Names: []string{"w", "y"}, Label: 1})
			if err != nil {
				t.Fatal(err)
			}
			r := &recorder{tokens: make([][]string, 1)}
			if err := x.Extract(&corpus.Sentence{Tokens: [][]string{{tc.word, "X"}}}, r); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.tokens[0], tc.want) {
				t.Errorf("got %q, want %q", r.tokens[0], tc.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	for _, n := range []int{0, 65} {
		tpl := &Template{cfg: Config{Column: "w", MaxLength: &n}}
		if d := tpl.Validate(); !d.HasErrors() || !strings.Contains(d.Error(), "max_length") {
			t.Errorf("max_length = %d: %v", n, d)
		}
	}
	if _, err := (&Template{cfg: Config{Column: "y"}}).Compile("s", feature.Columns{Names: []string{"w", "y"}, Label: 1}); err == nil {
		t.Error("reading the label column was not refused")
	}
}
