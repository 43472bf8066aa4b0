package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// pos is a WordNet part of speech; its letter names the database files.
type pos int

const (
	noun pos = iota
	verb
	adj
	adv
	numPOS
)

var posFile = [numPOS]string{"noun", "verb", "adj", "adv"}

// substitution is one of morphy's detachment rules: a word ending in
// suffix may be an inflection of the word ending in ending instead.
type substitution struct{ suffix, ending string }

// rules are WordNet's morphological detachment rules (morph.c; the same
// table as NLTK's MORPHOLOGICAL_SUBSTITUTIONS). Adverbs have none.
var rules = [numPOS][]substitution{
	noun: {{"s", ""}, {"ses", "s"}, {"ves", "f"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}},
	verb: {{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}},
	adj:  {{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}},
}

// lexNames are WordNet 3.0's lexicographer files, by number (its
// lexnames file; a dict folder that has one overrides this table).
var lexNames = []string{
	"adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact",
	"noun.attribute", "noun.body", "noun.cognition", "noun.communication", "noun.event",
	"noun.feeling", "noun.food", "noun.group", "noun.location", "noun.motive", "noun.object",
	"noun.person", "noun.phenomenon", "noun.plant", "noun.possession", "noun.process",
	"noun.quantity", "noun.relation", "noun.shape", "noun.state", "noun.substance", "noun.time",
	"verb.body", "verb.change", "verb.cognition", "verb.communication", "verb.competition",
	"verb.consumption", "verb.contact", "verb.creation", "verb.emotion", "verb.motion",
	"verb.perception", "verb.possession", "verb.social", "verb.stative", "verb.weather", "adj.ppl",
}

// database is the part of a WordNet dict folder the plugin uses: per part
// of speech, each lemma's lexicographer file number of its first sense,
// and the exception lists (irregular forms).
type database struct {
	firstLex   [numPOS]map[string]int
	exceptions [numPOS]map[string][]string
	lexNames   []string
}

// loadDatabase reads index.*, data.* and *.exc of dir (the .exc files are
// optional, as in WordNet).
func loadDatabase(dir string) (*database, error) {
	db := &database{lexNames: lexNames}
	if names, err := readLexNames(filepath.Join(dir, "lexnames")); err != nil {
		return nil, err
	} else if names != nil {
		db.lexNames = names
	}
	for p := range numPOS {
		lexOf, err := readDataLex(filepath.Join(dir, "data."+posFile[p]))
		if err != nil {
			return nil, err
		}
		if db.firstLex[p], err = readIndex(filepath.Join(dir, "index."+posFile[p]), lexOf); err != nil {
			return nil, err
		}
		if db.exceptions[p], err = readExceptions(filepath.Join(dir, posFile[p]+".exc")); err != nil {
			return nil, err
		}
	}
	return db, nil
}

// eachLine calls f on every line of path that is not part of the licence
// header (lines starting with two spaces), with its line number.
func eachLine(path string, f func(line string, n int) error) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "  ") || strings.TrimSpace(line) == "" {
			continue
		}
		if err := f(line, n); err != nil {
			return fmt.Errorf("%s:%d: %v", path, n, err)
		}
	}
	return sc.Err()
}

// readDataLex maps each synset offset of a data file to its lexicographer
// file number (the line's second field).
func readDataLex(path string) (map[string]int, error) {
	lexOf := map[string]int{}
	err := eachLine(path, func(line string, _ int) error {
		f := strings.SplitN(line, " ", 3)
		if len(f) < 3 {
			return fmt.Errorf("not a synset line")
		}
		lex, err := strconv.Atoi(f[1])
		if err != nil || lex < 0 {
			return fmt.Errorf("lex_filenum %q", f[1])
		}
		lexOf[f[0]] = lex
		return nil
	})
	return lexOf, err
}

// readIndex maps each lemma of an index file to the lexicographer file of
// its first sense: the line is "lemma pos synset_cnt p_cnt [ptr...]
// sense_cnt tagsense_cnt offset...", the offsets in sense order.
func readIndex(path string, lexOf map[string]int) (map[string]int, error) {
	first := map[string]int{}
	err := eachLine(path, func(line string, _ int) error {
		f := strings.Fields(line)
		if len(f) < 4 {
			return fmt.Errorf("not an index line")
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 1 || len(f) < 4+n {
			return fmt.Errorf("synset_cnt %q", f[2])
		}
		off := f[len(f)-n]
		lex, ok := lexOf[off]
		if !ok {
			return fmt.Errorf("synset %s of %q is not in the data file", off, f[0])
		}
		first[f[0]] = lex
		return nil
	})
	return first, err
}

// readExceptions reads an exception list: "inflected base [base...]".
func readExceptions(path string) (map[string][]string, error) {
	exc := map[string][]string{}
	err := eachLine(path, func(line string, _ int) error {
		f := strings.Fields(line)
		if len(f) < 2 {
			return fmt.Errorf("an exception needs a base form")
		}
		exc[f[0]] = append(exc[f[0]], f[1:]...)
		return nil
	})
	if os.IsNotExist(err) {
		return exc, nil
	}
	return exc, err
}

// readLexNames reads a lexnames file ("number name pos" lines); nil when
// there is none.
func readLexNames(path string) ([]string, error) {
	var names []string
	err := eachLine(path, func(line string, _ int) error {
		f := strings.Fields(line)
		if len(f) < 2 {
			return fmt.Errorf("not a lexnames line")
		}
		n, err := strconv.Atoi(f[0])
		if err != nil || n < 0 || n > 1000 {
			return fmt.Errorf("lexnames number %q", f[0])
		}
		for len(names) <= n {
			names = append(names, "")
		}
		names[n] = f[1]
		return nil
	})
	if os.IsNotExist(err) {
		return nil, nil
	}
	return names, err
}

// morphy returns the base form of word (lowercase, "_" between words) as
// part of speech p, the way WordNet's morphy does: the word and its
// exception-list bases if it has any, else the word and what the
// detachment rules make of it, the first of them that WordNet lists.
// ok is false when none is listed.
func (db *database) morphy(word string, p pos) (lemma string, ok bool) {
	index := db.firstLex[p]
	if _, ok := index[word]; ok {
		return word, true
	}
	if bases, isExc := db.exceptions[p][word]; isExc {
		for _, b := range bases {
			if _, ok := index[b]; ok {
				return b, true
			}
		}
		return "", false
	}
	for _, r := range rules[p] {
		if stem, found := strings.CutSuffix(word, r.suffix); found && stem != "" {
			base := stem + r.ending
			if _, ok := index[base]; ok {
				return base, true
			}
		}
	}
	return "", false
}

// lexName returns the lexicographer file of lemma's first sense as p.
func (db *database) lexName(lemma string, p pos) string {
	n := db.firstLex[p][lemma]
	if n < len(db.lexNames) && db.lexNames[n] != "" {
		return db.lexNames[n]
	}
	return strconv.Itoa(n)
}
