// Command gazetteer is a trellis feature-extractor plugin: phrase lists
// (one file per entity type) matched over a sentence's tokens, longest
// match first, left to right. A token inside a match of type T gets the
// features "T" (in a T phrase), "B-T" or "I-T" (first or later token of
// the phrase) and "any"; the features are what helps NER most with names
// the training data has few examples of.
//
//	plugin "gaz" {
//	  binary = "${var.plugin_dir}/gazetteer"
//	  config {
//	    column    = "word"
//	    lists     = { LOC = "gazetteer/countries.txt", ORG = "gazetteer/organizations.txt" }
//	    lowercase = false
//	    case_variants = true
//	    offsets   = [-1, 0, 1]
//	  }
//	}
//
// A list file holds one phrase per line, tokens separated by spaces; blank
// lines and lines starting with # are ignored. The same phrase may be in
// several lists. A jackknifed list (`gazetteer build-lists -folds K`)
// starts with "# folds=K" and marks a phrase with the folds whose
// sentences must not see it ("Fed<TAB>except=3"): the plugin puts every
// sentence in fold hash(tokens) mod K, as build-lists did, and skips the
// phrases marked with that fold.
//
// With case_variants, "New York" also matches "NEW YORK" (CoNLL headlines)
// and a list of lowercase phrases also matches them capitalized.
//
// Run by hand, `gazetteer build-lists` derives lists from a labelled
// corpus (see buildlists.go) and `gazetteer import` from public sources
// installed by npm or apt (see import.go).
package main

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/trellis-nlp/trellis/plugins/sdk"
)

// version changes whenever the same config can give different features.
const version = "1.0.0"

type config struct {
	Column       string            `json:"column" trellis:"required" help:"the column holding the tokens to match"`
	Lists        map[string]string `json:"lists" trellis:"required,path" help:"entity type => phrase list file (relative to the spec)"`
	Lowercase    bool              `json:"lowercase" help:"match case-insensitively"`
	CaseVariants bool              `json:"case_variants" help:"also match each phrase in UPPER CASE and with every token capitalized (headlines, lowercase lists)"`
	Offsets      []int             `json:"offsets" help:"token offsets whose matches a token gets (default [0]); features of offset o != 0 end in [o]"`
}

// edge is a trie transition: from node parent on token tok. One map of
// edges for the whole trie keeps large lists (100,000s of phrases) compact.
type edge struct {
	parent int32
	tok    string
}

type gazetteer struct {
	cfg   config
	types []string
	edges map[edge]int32
	ends  [][]int // per node: indices into types, sorted; non-empty at a phrase end
	// except[node][i] are the folds whose sentences must not see the
	// phrase of type ends[node][i] (jackknifed lists; 0 otherwise).
	except [][]uint64
	// folds is the fold count of the jackknifed lists, 0 without.
	folds int
	// keys[k][t] are the features of type t at offset Offsets[k]: T, B-T,
	// I-T; anyKeys[k] is "any" at that offset.
	keys    [][][3]string
	anyKeys []string
	// matches is Extract's scratch: per token, the match covering it.
	matches []match
}

// match is the match covering a token: the trie node where its phrase
// ends (whose types it has), and whether the token begins it. node is 0
// (the root, never an end) for a token outside every match.
type match struct {
	node  int32
	begin bool
}

var _ sdk.Plugin = (*gazetteer)(nil)

func (g *gazetteer) Info() sdk.Info {
	return sdk.Info{Name: "gazetteer", Version: version, Description: "phrase lists matched longest-first: begin/inside/type features"}
}

func (g *gazetteer) Config() any { return &g.cfg }

func (g *gazetteer) Setup(columns []string) ([]string, error) {
	if len(g.cfg.Lists) == 0 {
		return nil, sdk.Errorf("lists", "needs at least one list")
	}
	g.edges = map[edge]int32{}
	g.ends = [][]int{nil} // node 0 is the root
	g.except = [][]uint64{nil}
	for t := range g.cfg.Lists {
		g.types = append(g.types, t)
	}
	sort.Strings(g.types)
	phrases := 0
	for ti, t := range g.types {
		if strings.TrimSpace(t) == "" {
			return nil, sdk.Errorf("lists", "an entity type is empty")
		}
		n, err := g.load(ti, g.cfg.Lists[t])
		if err != nil {
			return nil, sdk.Errorf("lists", "%s: %v", t, err)
		}
		phrases += n
	}
	if err := g.makeKeys(); err != nil {
		return nil, err
	}
	sdk.Log().Debug("gazetteer loaded", "types", len(g.types), "phrases", phrases, "nodes", len(g.ends))
	return []string{g.cfg.Column}, nil
}

// makeKeys checks the offsets and names the features of each offset.
func (g *gazetteer) makeKeys() error {
	if len(g.cfg.Offsets) == 0 {
		g.cfg.Offsets = []int{0}
	}
	for _, o := range g.cfg.Offsets {
		if o < -5 || o > 5 {
			return sdk.Errorf("offsets", "offset %d is out of range -5..5", o)
		}
		suffix := ""
		if o != 0 {
			suffix = fmt.Sprintf("[%d]", o)
		}
		keys := make([][3]string, len(g.types))
		for ti, t := range g.types {
			keys[ti] = [3]string{t + suffix, "B-" + t + suffix, "I-" + t + suffix}
		}
		g.keys = append(g.keys, keys)
		g.anyKeys = append(g.anyKeys, "any"+suffix)
	}
	return nil
}

func (g *gazetteer) norm(s string) string {
	if g.cfg.Lowercase {
		return strings.ToLower(s)
	}
	return s
}

func (g *gazetteer) load(ti int, path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	n, lineNo, folds := 0, 0, 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") {
			k, ok, err := parseFoldsHeader(line)
			if err == nil && ok && g.folds != 0 && k != g.folds {
				err = fmt.Errorf("%d folds, another list has %d: build the lists with the same -folds", k, g.folds)
			}
			if err != nil {
				return n, fmt.Errorf("%s:%d: %v", path, lineNo, err)
			}
			if ok {
				folds, g.folds = k, k
			}
			continue
		}
		if line == "" {
			continue
		}
		phrase, field, marked := strings.Cut(line, "\t")
		var except uint64
		if marked {
			if folds == 0 {
				return n, fmt.Errorf("%s:%d: a fold mark without a \"# folds=K\" line before it", path, lineNo)
			}
			var err error
			if except, err = parseExcept(strings.TrimSpace(field), folds); err != nil {
				return n, fmt.Errorf("%s:%d: %v", path, lineNo, err)
			}
		}
		toks := strings.Fields(phrase)
		g.insert(toks, ti, except)
		if g.cfg.CaseVariants && !g.cfg.Lowercase {
			g.insert(caseVariant(toks, strings.ToUpper), ti, except)
			g.insert(caseVariant(toks, capitalize), ti, except)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		return n, err
	}
	if n == 0 {
		return 0, fmt.Errorf("%s holds no phrases", path)
	}
	return n, nil
}

// insert adds the phrase toks, of type ti, to the trie, hidden from the
// sentences of the folds in except. A phrase inserted twice (a case
// variant equal to another entry) is hidden only from the folds both hide
// it from.
func (g *gazetteer) insert(toks []string, ti int, except uint64) {
	cur := int32(0)
	for _, tok := range toks {
		e := edge{cur, g.norm(tok)}
		nx, ok := g.edges[e]
		if !ok {
			nx = int32(len(g.ends))
			g.ends = append(g.ends, nil)
			g.except = append(g.except, nil)
			g.edges[e] = nx
		}
		cur = nx
	}
	ends := g.ends[cur]
	i := sort.SearchInts(ends, ti)
	if i < len(ends) && ends[i] == ti {
		g.except[cur][i] &= except
		return
	}
	g.ends[cur] = slices.Insert(ends, i, ti)
	g.except[cur] = slices.Insert(g.except[cur], i, except)
}

// visible reports whether node ends a phrase that sentences of the fold
// whose bit is foldBit may see (foldBit 0: no folds, every phrase).
func (g *gazetteer) visible(node int32, foldBit uint64) bool {
	for _, e := range g.except[node] {
		if e&foldBit == 0 {
			return true
		}
	}
	return false
}

// caseVariant returns toks with f applied to each token.
func caseVariant(toks []string, f func(string) string) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = f(t)
	}
	return out
}

// capitalize upper-cases the first letter of s and keeps the rest
// ("new" => "New", "McDonald" => "McDonald").
func capitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || unicode.IsUpper(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

// Extract finds the longest match starting at each token not already
// inside a match, left to right, then gives each token the features of
// the matches at its offsets. With jackknifed lists, only the phrases the
// sentence's fold may see match.
func (g *gazetteer) Extract(s *sdk.Sentence, f *sdk.Features) error {
	n := s.Len()
	if cap(g.matches) < n {
		g.matches = make([]match, n)
	}
	g.matches = g.matches[:n]
	clear(g.matches)
	var foldBit uint64
	if g.folds > 0 {
		foldBit = 1 << foldOf(n, func(i int) string { return s.Value(i, 0) }, g.folds)
	}
	for i := 0; i < n; {
		cur, end, endNode := int32(0), -1, int32(0)
		for j := i; j < n; j++ {
			nx, ok := g.edges[edge{cur, g.norm(s.Value(j, 0))}]
			if !ok {
				break
			}
			cur = nx
			if g.visible(cur, foldBit) {
				end, endNode = j+1, cur
			}
		}
		if end < 0 {
			i++
			continue
		}
		for j := i; j < end; j++ {
			g.matches[j] = match{node: endNode, begin: j == i}
		}
		i = end
	}
	for i := range n {
		for k, o := range g.cfg.Offsets {
			j := i + o
			if j < 0 || j >= n || g.matches[j].node == 0 {
				continue
			}
			m := g.matches[j]
			f.Set(i, g.anyKeys[k])
			for idx, t := range g.ends[m.node] {
				if g.except[m.node][idx]&foldBit != 0 {
					continue
				}
				key := &g.keys[k][t]
				f.Set(i, key[0])
				if m.begin {
					f.Set(i, key[1])
				} else {
					f.Set(i, key[2])
				}
			}
		}
	}
	return nil
}

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "import":
			os.Exit(importMain(os.Args[2:]))
		case "build-lists":
			os.Exit(buildListsMain(os.Args[1:]))
		default:
			fmt.Fprint(os.Stderr, buildUsage, "\n", importUsage)
			os.Exit(2)
		}
	}
	sdk.Serve(func() sdk.Plugin { return &gazetteer{} })
}
