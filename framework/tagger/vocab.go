package tagger

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/model"
)

// Vocabulary is the set of words a model knows, as far as its file tells:
// the values of an emission template that reads the word column alone at
// offset 0 (w[0]=the). It is what in-vocabulary/out-of-vocabulary figures
// are computed against, by `trellis eval` and by a run alike. These words
// rather than the training corpus's: a word the model has no weight for
// (pruned by min_count) is unknown to it however often the corpus has it,
// and a lowercasing template knows "The" from "the"; IV/OOV accuracy is
// meant to split the tokens the model can recognise from those it must
// guess, and only the model's own vocabulary says which are which. It is
// also all a model file carries, so eval can compute the same figures.
type Vocabulary struct {
	// Template is the emission template the words come from.
	Template string
	// prefix is what its attributes of the word start with: "w[0]=",
	// or "U00=" for a format "{word[0]}" (CRF++'s %x[0,0]).
	prefix string
	// Lowercase is true when the template lowercases: words are then
	// looked up lowercased.
	Lowercase bool
	words     map[string]bool
}

// Has reports whether the model knows word.
func (v *Vocabulary) Has(word string) bool {
	if v.Lowercase {
		word = strings.Map(unicode.ToLower, word)
	}
	return v.words[word]
}

// Len is the number of words.
func (v *Vocabulary) Len() int { return len(v.words) }

// emissionConfig is the part of the emission template's config that says
// whether it emits the word itself.
type emissionConfig struct {
	Column    string   `json:"column"`
	Offsets   []int    `json:"offsets"`
	Ngram     int      `json:"ngram"`
	Join      []string `json:"join"`
	Lowercase bool     `json:"lowercase"`
	Format    string   `json:"format"`
}

// Vocabulary returns the model's vocabulary, or nil when the model has no
// emission template of the word column at offset 0 (a column template
// with offset 0, or the format "{word[0]}"; then nothing can be
// said about which words it saw). A template that keeps the case is
// preferred to one that lowercases. Words pruned by min_count are not in
// it: they are unknown to the model, which is what the figures measure.
func (t *Tagger) Vocabulary() *Vocabulary { return vocabulary(t.Model, t.Format) }

// VocabularyOf is the Vocabulary a tagger of m has, read from the model
// file alone (no template compiled, no plugin started): what a tool that
// rewrites a model must keep for the IV/OOV figures to stay the same.
func VocabularyOf(m *model.Model) (*Vocabulary, error) {
	f, err := corpus.New(m.Format)
	if err != nil {
		return nil, fmt.Errorf("model format: %w", err)
	}
	return vocabulary(m, f), nil
}

// Holds reports whether the attribute named attr is one of the
// vocabulary's words (an attribute of its template at offset 0).
func (v *Vocabulary) Holds(attr string) bool { return strings.HasPrefix(attr, v.prefix) }

// vocabulary is the Vocabulary of model m read in format f.
func vocabulary(m *model.Model, f corpus.Format) *Vocabulary {
	word := wordColumn(m, f)
	if word < 0 {
		return nil
	}
	wordName := f.Columns()[word]
	var best *Vocabulary
	for _, ts := range m.Templates {
		var c emissionConfig
		if ts.Type != "emission" || json.Unmarshal(ts.Config, &c) != nil {
			continue
		}
		var prefix string
		switch {
		case c.Format == "{"+wordName+"[0]}":
			prefix = ts.Name + "="
		case c.Column != wordName || len(c.Join) > 0 || c.Ngram > 1 || (len(c.Offsets) > 0 && !slices.Contains(c.Offsets, 0)):
			continue
		default:
			prefix = ts.Name + "[0]="
		}
		if best == nil || best.Lowercase && !c.Lowercase {
			best = &Vocabulary{Template: ts.Name, Lowercase: c.Lowercase, prefix: prefix}
		}
	}
	if best == nil {
		return nil
	}
	best.words = map[string]bool{}
	for _, a := range m.Attrs {
		if w, ok := strings.CutPrefix(a, best.prefix); ok {
			best.words[w] = true
		}
	}
	return best
}
