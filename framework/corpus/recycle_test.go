package corpus

import (
	"io"
	"reflect"
	"strings"
	"testing"
)

// snapshot is a deep copy of s's exported fields, which recycling s must
// not change.
func snapshot(s *Sentence) Sentence {
	c := Sentence{File: s.File, Line: s.Line, DocStart: s.DocStart, DocLine: s.DocLine, Document: s.Document}
	for _, row := range s.Tokens {
		c.Tokens = append(c.Tokens, append([]string(nil), row...))
	}
	c.Lines = append(c.Lines, s.Lines...)
	c.TokenLine = append(c.TokenLine, s.TokenLine...)
	c.TokenLineNo = append(c.TokenLineNo, s.TokenLineNo...)
	return c
}

// TestRecycle reads the same input with every sentence handed back
// (Recycler) as soon as it is copied, and without, and wants the same
// sentences: reused slices are cleared (a token without a label reads ""
// where an earlier one had a label), grown for longer sentences, and
// capped, so that appending to one sentence's slices cannot reach another's.
func TestRecycle(t *testing.T) {
	long := strings.Repeat("w NN B-NP\n", 40)
	tests := []struct {
		name  string
		cfg   Config
		opts  ReadOptions
		input string
	}{
		{"conll, lengths and labels vary", Config{Name: "conll", Columns: []string{"word", "pos", "chunk"}, Label: "chunk"}, ReadOptions{LabelOptional: true},
			"a DT B-NP\nb NN I-NP\nc VB B-VP\n\nd NN\n\n" + long + "\n-DOCSTART- -X- O\n\ne NN\nf NN O\n\n" + long + "\ng NN\n"},
		{"conllu with comments", Config{Name: "conllu", Label: "upos"}, ReadOptions{},
			"# sent_id = 1\n# text = a b\n1\ta\ta\tDET\t_\t_\t0\troot\t_\t_\n2\tb\tb\tNOUN\t_\t_\t1\tdep\t_\t_\n\n" +
				"# newdoc\n1-2\tcd\t_\t_\t_\t_\t_\t_\t_\t_\n1\tc\tc\tX\t_\t_\t0\troot\t_\t_\n2\td\td\tX\t_\t_\t1\tdep\t_\t_\n3\te\te\tX\t_\t_\t1\tdep\t_\t_\n\n" +
				"1\tf\tf\tX\t_\t_\t0\troot\t_\t_\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := mustNew(t, tc.cfg)
			read := func(recycle bool) (got []Sentence, reused int) {
				r := f.NewReader(strings.NewReader(tc.input), "in", tc.opts)
				seen := map[*Sentence]bool{}
				for {
					s, err := r.Read()
					if err == io.EOF {
						return got, reused
					}
					if err != nil {
						t.Fatal(err)
					}
					if seen[s] {
						reused++
					}
					seen[s] = true
					got = append(got, snapshot(s))
					// Appending to a sentence's slices must not write
					// into backing that other sentences use or reuse.
					if cap(s.Tokens) != len(s.Tokens) || cap(s.Lines) != len(s.Lines) || cap(s.TokenLine) != len(s.TokenLine) || cap(s.TokenLineNo) != len(s.TokenLineNo) {
						t.Errorf("line %d: a slice has room past its length", s.Line)
					}
					for _, row := range s.Tokens {
						if cap(row) != len(row) {
							t.Errorf("line %d: a row has room past its length", s.Line)
						}
					}
					if recycle {
						rc, ok := r.(Recycler)
						if !ok {
							t.Fatalf("%s reader is not a Recycler", tc.cfg.Name)
						}
						rc.Recycle(s)
						rc.Recycle(s)           // twice: ignored
						rc.Recycle(&Sentence{}) // not the reader's: ignored
					}
				}
			}
			want, _ := read(false)
			got, reused := read(true)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("recycled sentences differ:\n got %v\nwant %v", got, want)
			}
			if reused != len(want)-1 {
				t.Errorf("%d of %d sentences reused a recycled one, want all but the first", reused, len(want))
			}
		})
	}
}
