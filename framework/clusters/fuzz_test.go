package clusters

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"unicode"
)

// FuzzCluster runs the algorithm on small texts drawn from the input
// (words over a 12-word alphabet, C from the first byte) and checks every
// loss of every step against the AMI recomputed from scratch.
func FuzzCluster(f *testing.F) {
	f.Add([]byte{3, 0, 1, 2, 0, 1, 255, 3, 3, 4, 1, 0})
	f.Add([]byte{1, 5, 5, 5, 255, 6, 7, 6, 7})
	f.Add([]byte{6, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 255, 11, 10, 9, 8, 7, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || len(data) > 200 {
			return
		}
		clusters := 1 + int(data[0])%6
		var lines []string
		var words []string
		for _, b := range data[1:] {
			if b == 255 {
				lines = append(lines, strings.Join(words, " "))
				words = words[:0]
				continue
			}
			words = append(words, string(rune('a'+int(b)%12)))
		}
		lines = append(lines, strings.Join(words, " "))
		c := NewCounter()
		if err := c.ReadText(strings.NewReader(strings.Join(lines, "\n")), false); err != nil {
			t.Fatal(err)
		}
		counts, err := c.Counts(1)
		if err != nil {
			return // no words
		}
		r, err := cluster(context.Background(), counts, Options{Clusters: clusters}, func(b *brown, a, c int) { checkStep(t, b, a, c) })
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, r); err != nil {
			t.Fatal(err)
		}
		paths, err := Read("out", &buf)
		if err != nil {
			t.Fatalf("reading what Write wrote: %v", err)
		}
		leaves := map[string]bool{}
		for i, w := range r.Words {
			if paths[w] != r.Paths[i] {
				t.Fatalf("word %q: read %q, wrote %q", w, paths[w], r.Paths[i])
			}
			leaves[r.Paths[i]] = true
		}
		if want := min(clusters, len(r.Words)); len(leaves) != want {
			t.Fatalf("%d distinct bit strings, want %d", len(leaves), want)
		}
	})
}

// FuzzTokenize: tokens are non-empty, hold no white space, and are the
// input's characters in order.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"Mr. Smith's car (the U.S. one) costs $3.5m, doesn't it?", "``quoted''", "...", "'s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		toks := Tokenize(nil, line)
		for _, tok := range toks {
			if tok == "" || strings.IndexFunc(tok, unicode.IsSpace) >= 0 {
				t.Fatalf("token %q of %q", tok, line)
			}
		}
		if got, want := strings.Join(toks, ""), strings.Join(strings.Fields(line), ""); got != want {
			t.Fatalf("tokens %q of %q lose or add characters", toks, line)
		}
	})
}
