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
//	  }
//	}
//
// A list file holds one phrase per line, tokens separated by spaces; blank
// lines and lines starting with # are ignored. The same phrase may be in
// several lists.
//
// Run by hand, `gazetteer build-lists` derives lists from a labelled
// corpus (see buildlists.go).
package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/trellis-nlp/trellis/plugins/sdk"
)

// version changes whenever the same config can give different features.
const version = "1.0.0"

type config struct {
	Column    string            `json:"column" trellis:"required" help:"the column holding the tokens to match"`
	Lists     map[string]string `json:"lists" trellis:"required,path" help:"entity type => phrase list file (relative to the spec)"`
	Lowercase bool              `json:"lowercase" help:"match case-insensitively"`
}

type node struct {
	next  map[string]*node
	types []int // indices into gazetteer.types, sorted; non-empty at a phrase end
}

type gazetteer struct {
	cfg   config
	types []string
	root  *node
	keys  [][3]string // per type: T, B-T, I-T
}

func (g *gazetteer) Info() sdk.Info {
	return sdk.Info{Name: "gazetteer", Version: version, Description: "phrase lists matched longest-first: begin/inside/type features"}
}

func (g *gazetteer) Config() any { return &g.cfg }

func (g *gazetteer) Setup(columns []string) ([]string, error) {
	if len(g.cfg.Lists) == 0 {
		return nil, sdk.Errorf("lists", "needs at least one list")
	}
	g.root = &node{}
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
		g.keys = append(g.keys, [3]string{t, "B-" + t, "I-" + t})
	}
	sdk.Log().Debug("gazetteer loaded", "types", len(g.types), "phrases", phrases)
	return []string{g.cfg.Column}, nil
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
	n := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cur := g.root
		for _, tok := range strings.Fields(line) {
			tok = g.norm(tok)
			if cur.next == nil {
				cur.next = map[string]*node{}
			}
			nx := cur.next[tok]
			if nx == nil {
				nx = &node{}
				cur.next[tok] = nx
			}
			cur = nx
		}
		if len(cur.types) == 0 || cur.types[len(cur.types)-1] != ti {
			cur.types = append(cur.types, ti)
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

func (g *gazetteer) Extract(s *sdk.Sentence, f *sdk.Features) error {
	n := s.Len()
	for i := 0; i < n; {
		cur, end := g.root, -1
		var types []int
		for j := i; j < n && cur.next != nil; j++ {
			cur = cur.next[g.norm(s.Value(j, 0))]
			if cur == nil {
				break
			}
			if len(cur.types) > 0 {
				end, types = j+1, cur.types
			}
		}
		if end < 0 {
			i++
			continue
		}
		for j := i; j < end; j++ {
			f.Set(j, "any")
			for _, t := range types {
				k := &g.keys[t]
				f.Set(j, k[0])
				if j == i {
					f.Set(j, k[1])
				} else {
					f.Set(j, k[2])
				}
			}
		}
		i = end
	}
	return nil
}

func main() {
	if len(os.Args) > 1 {
		os.Exit(buildListsMain(os.Args[1:]))
	}
	sdk.Serve(func() sdk.Plugin { return &gazetteer{} })
}
