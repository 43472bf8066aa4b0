package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/plugins/sdk"
)

// fixtureDict writes a tiny WordNet-format dict folder: the real files'
// layouts (licence header lines start with two spaces) with a few
// entries, so the tests need no WordNet installation.
func fixtureDict(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	header := "  1 This software and database is being provided to you, the LICENSEE, by\n"
	files := map[string]string{
		"index.noun": header +
			"goose n 1 1 @ 1 0 00000100  \n" +
			"dog n 1 1 @ 1 0 00000200  \n" +
			"church n 1 1 @ 1 0 00000300  \n" +
			"paris n 2 1 @ 2 0 00000400 00000500  \n" +
			"running n 1 1 @ 1 0 00000600  \n" +
			"man n 1 1 @ 1 0 00000700  \n",
		"data.noun": header +
			"00000100 05 n 01 goose 0 000 | a bird  \n" +
			"00000200 05 n 01 dog 0 000 | an animal  \n" +
			"00000300 06 n 01 church 0 000 | a building  \n" +
			"00000400 15 n 01 Paris 0 000 | the capital of France  \n" +
			"00000500 18 n 01 Paris 1 000 | a Trojan prince  \n" +
			"00000600 04 n 01 running 0 000 | the act of running  \n" +
			"00000700 18 n 01 man 0 000 | an adult male  \n",
		"index.verb": header +
			"run v 1 1 @ 1 0 00000100  \n" +
			"walk v 1 1 @ 1 0 00000200  \n" +
			"make v 1 1 @ 1 0 00000300  \n",
		"data.verb": header +
			"00000100 38 v 01 run 0 000 | move fast  \n" +
			"00000200 38 v 01 walk 0 000 | use one's feet  \n" +
			"00000300 36 v 01 make 0 000 | create  \n",
		"index.adj": header + "big a 1 0 1 0 00000100  \n",
		"data.adj":  header + "00000100 00 a 01 big 0 000 | large  \n",
		"index.adv": header,
		"data.adv":  header,
		"noun.exc":  "geese goose\nmen man\n",
		"verb.exc":  "ran run\nrunning run\n",
		"adj.exc":   "bigger big\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestMorphy(t *testing.T) {
	db, err := loadDatabase(fixtureDict(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		word  string
		p     pos
		lemma string // "" = not found
	}{
		{"geese", noun, "goose"},     // exception list
		{"men", noun, "man"},         // exception list (also the men->man rule)
		{"dogs", noun, "dog"},        // s -> ""
		{"churches", noun, "church"}, // ches -> ch
		{"goose", noun, "goose"},     // the word itself
		{"running", verb, "run"},     // exception list
		{"running", noun, "running"}, // a noun in its own right
		{"ran", verb, "run"},
		{"walked", verb, "walk"}, // ed -> ""
		{"making", verb, "make"}, // ing -> e
		{"walks", verb, "walk"},  // s -> ""
		{"bigger", adj, "big"},   // exception list
		{"geese", verb, ""},      // no verb
		{"cats", noun, ""},       // unknown stem
		{"s", noun, ""},          // a suffix alone
	} {
		t.Run(tc.word+"/"+posFile[tc.p], func(t *testing.T) {
			got, ok := db.morphy(tc.word, tc.p)
			if ok != (tc.lemma != "") || got != tc.lemma {
				t.Errorf("morphy(%q, %s) = %q, %v; want %q", tc.word, posFile[tc.p], got, ok, tc.lemma)
			}
		})
	}
}

func TestExtract(t *testing.T) {
	dict := fixtureDict(t)
	sent := [][]string{{"Paris", "NNP"}, {"geese", "NNS"}, {"running", "VBG"}, {"ran", "VBD"}, {"the", "DT"}, {"zzz", "NN"}}
	for _, tc := range []struct {
		name, cfg string
		want      map[int][]string
	}{
		{"tagged", `{"dict":%q,"column":"w","pos_column":"p","lemma":true,"lexname":true}`, map[int][]string{
			0: {"lemma=paris", "lex=noun.location"}, 1: {"lemma=goose", "lex=noun.animal"},
			2: {"lemma=run", "lex=verb.motion"}, 3: {"lemma=run", "lex=verb.motion"},
		}},
		{"untagged: noun first", `{"dict":%q,"column":"w","lexname":true}`, map[int][]string{
			0: {"lex=noun.location"}, 1: {"lex=noun.animal"}, 2: {"lex=noun.act"}, 3: {"lex=verb.motion"},
		}},
		{"offsets", `{"dict":%q,"column":"w","pos_column":"p","lexname":true,"offsets":[-1,1]}`, map[int][]string{
			0: {"lex[1]=noun.animal"}, 1: {"lex[-1]=noun.location", "lex[1]=verb.motion"},
			2: {"lex[-1]=noun.animal", "lex[1]=verb.motion"}, 3: {"lex[-1]=verb.motion"}, 4: {"lex[-1]=verb.motion"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := strings.Replace(tc.cfg, "%q", `"`+dict+`"`, 1)
			got, err := sdk.Try(&wordnet{}, cfg, []string{"w", "p"}, sent)
			if err != nil {
				t.Fatal(err)
			}
			byToken := map[int][]string{}
			for _, f := range got {
				byToken[f.Token] = append(byToken[f.Token], f.Key)
			}
			if !reflect.DeepEqual(byToken, tc.want) {
				t.Errorf("got %v\nwant %v", byToken, tc.want)
			}
		})
	}
}

func TestSetupErrors(t *testing.T) {
	dict := fixtureDict(t)
	os.WriteFile(filepath.Join(dict, "index.adj"), []byte("big a 1 0 1 0 00000999  \n"), 0o644)
	for _, tc := range []struct{ cfg, want string }{
		{`{"dict":"/nonexistent","column":"w","lemma":true}`, "dict: open /nonexistent/data.noun"},
		{`{"dict":"` + dict + `","column":"w"}`, "lexname: set lemma or lexname"},
		{`{"dict":"` + dict + `","column":"w","lemma":true}`, `index.adj:1: synset 00000999 of "big" is not in the data file`},
	} {
		_, err := sdk.Try(&wordnet{}, tc.cfg, []string{"w"}, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

// TestRealWordNet checks the known cases against the installed WordNet
// 3.0 when there is one (Debian: apt-get install wordnet-base); the
// fixture tests above cover the code without it.
func TestRealWordNet(t *testing.T) {
	const dir = "/usr/share/wordnet"
	if _, err := os.Stat(filepath.Join(dir, "data.noun")); err != nil {
		t.Skip("no WordNet at /usr/share/wordnet (apt-get install wordnet-base); the fixture tests cover the code")
	}
	db, err := loadDatabase(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		word       string
		p          pos
		lemma, lex string
	}{
		{"geese", noun, "goose", "noun.animal"},
		{"running", verb, "run", "verb.motion"},
		{"paris", noun, "paris", "noun.location"},
		{"churches", noun, "church", "noun.group"},
		{"biggest", adj, "big", "adj.all"},
	} {
		lemma, _ := db.morphy(tc.word, tc.p)
		if lemma != tc.lemma || db.lexName(lemma, tc.p) != tc.lex {
			t.Errorf("%s: %q %s, want %q %s", tc.word, lemma, db.lexName(lemma, tc.p), tc.lemma, tc.lex)
		}
	}
}
