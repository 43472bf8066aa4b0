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
}

// maxCached bounds the cache of token features.
const maxCached = 1 << 20

// cached is the features of one (token, tag) pair.
type cached struct{ keys []string }

type wordnet struct {
	cfg   config
	db    *database
	cache map[[2]string]cached
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

// features computes the keys of a token (uncached).
func (w *wordnet) features(token, tag string, tagged bool) []string {
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
		var keys []string
		if w.cfg.Lemma {
			keys = append(keys, "lemma="+lemma)
		}
		if w.cfg.Lexname {
			keys = append(keys, "lex="+w.db.lexName(lemma, p))
		}
		return keys
	}
	return nil
}

func (w *wordnet) Extract(s *sdk.Sentence, f *sdk.Features) error {
	tagged := w.cfg.PosColumn != ""
	for i := 0; i < s.Len(); i++ {
		k := [2]string{s.Value(i, 0), ""}
		if tagged {
			k[1] = s.Value(i, 1)
		}
		c, ok := w.cache[k]
		if !ok {
			if len(w.cache) >= maxCached {
				clear(w.cache) // bounded memory on endless input
			}
			c = cached{w.features(k[0], k[1], tagged)}
			w.cache[k] = c
		}
		for _, key := range c.keys {
			f.Set(i, key)
		}
	}
	return nil
}

func main() {
	sdk.Serve(func() sdk.Plugin { return &wordnet{} })
}
