// Command wordnet is a trellis feature-extractor plugin that looks tokens
// up in WordNet: the lemma WordNet's morphological rules (morphy: the
// exception lists, then the detachment rules) give, and the lexicographer
// file of the lemma's first sense, WordNet's coarse semantic class
// (noun.person, noun.location, noun.group, verb.motion...).
//
//	plugin "wn" {
//	  binary = "${var.plugin_dir}/wordnet"
//	  config {
//	    dict       = "/usr/share/wordnet"   # Debian's wordnet-base
//	    column     = "word"
//	    pos_column = "pos"                  # optional: Penn tags choose the part of speech
//	    lemma      = true
//	    lexname    = true
//	    offsets    = [-1, 0, 1]             # optional, default [0]
//	  }
//	}
//
// A token gets "lemma=L" and "lex=C" (C the class of L's first sense).
// Without pos_column, or for a tag that is none of NN*, VB*, JJ*, RB*,
// the parts of speech are tried in the order noun, verb, adjective,
// adverb and the first that knows the word wins; with pos_column a token
// whose tag maps to no part of speech gets no features. Lookups are
// case-insensitive ("Paris" finds paris, noun.location).
package main

import (
	"fmt"
	"strings"

	"github.com/trellis-nlp/trellis/plugins/sdk"
)

// version changes whenever the same config can give different features.
const version = "1.0.0"

type config struct {
	Dict      string `json:"dict" trellis:"required,path" help:"WordNet 3.0 dict folder (index.noun, data.noun, noun.exc...)"`
	Column    string `json:"column" trellis:"required" help:"the column holding the tokens"`
	PosColumn string `json:"pos_column" help:"column of Penn Treebank tags choosing the part of speech (default: try noun, verb, adjective, adverb)"`
	Lemma     bool   `json:"lemma" help:"emit lemma=L"`
	Lexname   bool   `json:"lexname" help:"emit lex=C, the lexicographer file of the first sense"`
	Offsets   []int  `json:"offsets" help:"token offsets whose features a token gets (default [0]); at offset o != 0 they are lemma[o]=L, lex[o]=C"`
}

// maxCached bounds the cache of token features.
const maxCached = 1 << 20

// cached is the features of one (token, tag) pair: keys[k] at offset
// Offsets[k].
type cached struct{ keys [][]string }

type wordnet struct {
	cfg     config
	db      *database
	cache   map[[2]string]cached
	suffix  []string // per offset: "" or "[o]"
	scratch []cached // Extract's: per token
}

var _ sdk.Plugin = (*wordnet)(nil)

func (w *wordnet) Info() sdk.Info {
	return sdk.Info{Name: "wordnet", Version: version, Description: "WordNet lemma (morphy) and lexicographer class of the first sense"}
}

func (w *wordnet) Config() any { return &w.cfg }

func (w *wordnet) Setup(columns []string) ([]string, error) {
	if !w.cfg.Lemma && !w.cfg.Lexname {
		return nil, sdk.Errorf("lexname", "set lemma or lexname (or both): nothing to emit")
	}
	if len(w.cfg.Offsets) == 0 {
		w.cfg.Offsets = []int{0}
	}
	for _, o := range w.cfg.Offsets {
		if o < -5 || o > 5 {
			return nil, sdk.Errorf("offsets", "offset %d is out of range -5..5", o)
		}
		if o == 0 {
			w.suffix = append(w.suffix, "")
		} else {
			w.suffix = append(w.suffix, fmt.Sprintf("[%d]", o))
		}
	}
	db, err := loadDatabase(w.cfg.Dict)
	if err != nil {
		return nil, sdk.Errorf("dict", "%v", err)
	}
	w.db, w.cache = db, map[[2]string]cached{}
	if w.cfg.PosColumn != "" {
		return []string{w.cfg.Column, w.cfg.PosColumn}, nil
	}
	return []string{w.cfg.Column}, nil
}

// posOfTag maps a Penn Treebank tag to the parts of speech to try.
func posOfTag(tag string) []pos {
	switch {
	case strings.HasPrefix(tag, "NN"):
		return []pos{noun}
	case strings.HasPrefix(tag, "VB"):
		return []pos{verb}
	case strings.HasPrefix(tag, "JJ"):
		return []pos{adj}
	case strings.HasPrefix(tag, "RB"):
		return []pos{adv}
	}
	return nil
}

var allPOS = []pos{noun, verb, adj, adv}

// features computes the keys of a token at every offset (uncached).
func (w *wordnet) features(token, tag string, tagged bool) cached {
	base := w.baseFeatures(token, tag, tagged)
	c := cached{keys: make([][]string, len(w.suffix))}
	for k, suffix := range w.suffix {
		for _, b := range base {
			c.keys[k] = append(c.keys[k], b[0]+suffix+"="+b[1])
		}
	}
	return c
}

// baseFeatures returns a token's (name, value) pairs: lemma and lex.
func (w *wordnet) baseFeatures(token, tag string, tagged bool) [][2]string {
	try := allPOS
	if tagged {
		try = posOfTag(tag)
	}
	word := strings.ToLower(token)
	for _, p := range try {
		lemma, ok := w.db.morphy(word, p)
		if !ok {
			continue
		}
		var pairs [][2]string
		if w.cfg.Lemma {
			pairs = append(pairs, [2]string{"lemma", lemma})
		}
		if w.cfg.Lexname {
			pairs = append(pairs, [2]string{"lex", w.db.lexName(lemma, p)})
		}
		return pairs
	}
	return nil
}

func (w *wordnet) Extract(s *sdk.Sentence, f *sdk.Features) error {
	tagged := w.cfg.PosColumn != ""
	n := s.Len()
	w.scratch = w.scratch[:0]
	for i := range n {
		k := [2]string{s.Value(i, 0), ""}
		if tagged {
			k[1] = s.Value(i, 1)
		}
		c, ok := w.cache[k]
		if !ok {
			if len(w.cache) >= maxCached {
				clear(w.cache) // bounded memory on endless input
			}
			c = w.features(k[0], k[1], tagged)
			w.cache[k] = c
		}
		w.scratch = append(w.scratch, c)
	}
	for i := range n {
		for k, o := range w.cfg.Offsets {
			if j := i + o; j >= 0 && j < n {
				for _, key := range w.scratch[j].keys[k] {
					f.Set(i, key)
				}
			}
		}
	}
	return nil
}

func main() {
	sdk.Serve(func() sdk.Plugin { return &wordnet{} })
}
