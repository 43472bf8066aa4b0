// groups.go builds Problems' parts from labels and words: the type of each
// label, the start states of a limited type, and the groups of a
// document's repeated tokens or spans.

package dual

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/trellis-nlp/trellis/framework/scheme"
)

// ErrNoTypes is returned for a scheme whose labels carry no types to agree
// on or count (a segmentation scheme).
var ErrNoTypes = errors.New("dual: the labels of a segmentation scheme carry no types")

// Types returns each label's type ([l] indexes names) and the types' names:
// a span label's entity type (B-PER and I-PER are PER), "O" its own type;
// for the scheme none, the label itself.
func Types(labels []string, sch scheme.Scheme) (types []int32, names []string, err error) {
	if sch.IsSegmentation() {
		return nil, nil, ErrNoTypes
	}
	index := map[string]int32{}
	for _, l := range labels {
		typ := l
		if sch.HasSpans() && l != "O" {
			_, typ = scheme.Split(l)
		}
		id, ok := index[typ]
		if !ok {
			id = int32(len(names))
			index[typ] = id
			names = append(names, typ)
		}
		types = append(types, id)
	}
	return types, names, nil
}

// Starts returns an [L] slice whose element [l] is whether label l begins a
// span of type typ: B-typ (and S-typ under bioes), or the label typ itself
// under the scheme none. Under iob1 and the segmentation schemes a span's
// start depends on the label before it, which a state score cannot see.
func Starts(labels []string, sch scheme.Scheme, typ string) ([]bool, error) {
	switch sch {
	case scheme.None, scheme.IOB2, scheme.BIOES:
	default:
		return nil, fmt.Errorf("dual: span limits need labels in iob2, bioes or none, not %s (a span's start under %s depends on the label before it)", sch, sch)
	}
	starts := make([]bool, len(labels))
	found := false
	for l, name := range labels {
		if sch == scheme.None {
			starts[l] = name == typ
		} else if p, t := scheme.Split(name); t == typ && (p == "B" || p == "S") {
			starts[l] = true
		}
		found = found || starts[l]
	}
	if !found {
		return nil, fmt.Errorf("dual: no label begins a span of type %q", typ)
	}
	return starts, nil
}

// Match is which tokens of a document form groups: Tokens or Spans.
type Match interface {
	groups(g *Grouper, words [][]string, spans [][]scheme.Chunk)
}

// Tokens groups the occurrences of each word that appears at least twice
// in a document; with Capitalized, only words that begin with an upper-case
// letter.
type Tokens struct{ Capitalized bool }

// Spans groups the tokens of every occurrence, anywhere in the document, of
// a word sequence that a first pass labelled as a span somewhere in it: the
// j-th tokens of the occurrences of one sequence form a group.
type Spans struct{}

var (
	_ Match = Tokens{}
	_ Match = Spans{}
)

// Grouper builds a document's groups with buffers reused from one document
// to the next. It is not safe for concurrent use.
type Grouper struct {
	index  map[string]int
	groups [][]Site
	seen   map[string]bool
	key    strings.Builder
}

// Groups returns the groups of a document: words [k][i] is token i of
// sentence k; spans [k] are the spans of a first pass's labels of sentence
// k (only Spans reads them). The groups are valid until the next call.
func (g *Grouper) Groups(m Match, words [][]string, spans [][]scheme.Chunk) [][]Site {
	if g.index == nil {
		g.index, g.seen = map[string]int{}, map[string]bool{}
	}
	for i := range g.groups {
		g.groups[i] = g.groups[i][:0]
	}
	g.groups = g.groups[:0]
	clear(g.index)
	clear(g.seen)
	m.groups(g, words, spans)
	return slices.DeleteFunc(g.groups, func(s []Site) bool { return len(s) < 2 })
}

// add puts site s into the group of key, opening it in first-seen order.
func (g *Grouper) add(key string, s Site) {
	i, ok := g.index[key]
	if !ok {
		i = g.open()
		g.index[key] = i
	}
	g.groups[i] = append(g.groups[i], s)
}

// open appends an empty group, reusing an earlier document's slice, and
// returns its index.
func (g *Grouper) open() int {
	i := len(g.groups)
	if i < cap(g.groups) {
		g.groups = g.groups[:i+1]
	} else {
		g.groups = append(g.groups, nil)
	}
	return i
}

func (t Tokens) groups(g *Grouper, words [][]string, _ [][]scheme.Chunk) {
	for k, sent := range words {
		for i, w := range sent {
			if t.Capitalized {
				if r, _ := utf8.DecodeRuneInString(w); !unicode.IsUpper(r) {
					continue
				}
			}
			g.add(w, Site{k, i})
		}
	}
}

func (Spans) groups(g *Grouper, words [][]string, spans [][]scheme.Chunk) {
	for k, chunks := range spans {
		for _, c := range chunks {
			seq := words[k][c.Start:c.End]
			key := g.join(seq)
			if g.seen[key] {
				continue
			}
			g.seen[key] = true
			g.addOccurrences(seq, words)
		}
	}
}

// addOccurrences opens a group per token of seq and adds every occurrence
// of seq in the document, its j-th token to the j-th group. Spans call it
// once per distinct sequence, so the groups need no key.
func (g *Grouper) addOccurrences(seq []string, words [][]string) {
	base := len(g.groups)
	for range seq {
		g.open()
	}
	for k, sent := range words {
		for i := 0; i+len(seq) <= len(sent); i++ {
			if !slices.Equal(sent[i:i+len(seq)], seq) {
				continue
			}
			for j := range seq {
				g.groups[base+j] = append(g.groups[base+j], Site{k, i + j})
			}
		}
	}
}

// join is seq's words joined by a separator no token holds.
func (g *Grouper) join(seq []string) string {
	g.key.Reset()
	for j, w := range seq {
		if j > 0 {
			g.key.WriteByte(0x1f)
		}
		g.key.WriteString(w)
	}
	return g.key.String()
}
