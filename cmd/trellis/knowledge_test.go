package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree writes files (slash-separated paths under dir).
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRunWithKnowledgePlugins builds the gazetteer and wordnet plugins,
// builds lists with `gazetteer import` from a fixture node_modules and a
// fixture WordNet, and runs and tags the quickstart spec with both
// plugins: the plugins add attributes, the manifest records them, and
// `trellis tag` reproduces the run's predictions.
func TestRunWithKnowledgePlugins(t *testing.T) {
	bin := t.TempDir()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(goTool, "build", "-o", bin+string(filepath.Separator), "../../plugins/gazetteer", "../../plugins/regex", "../../plugins/wordnet").CombinedOutput(); err != nil {
		t.Fatalf("building plugins: %v\n%s", err, out)
	}
	requirePluginsWired(t, bin)
	fixtures := t.TempDir()
	header := "  1 This software and database is being provided to you, the LICENSEE, by\n"
	writeTree(t, fixtures, map[string]string{
		"node_modules/countries-list/package.json":                     `{"name":"countries-list","version":"3.4.1","license":"MIT"}`,
		"node_modules/countries-list/countries.min.json":               `{"US":{"name":"United States","alias":["US"]},"IQ":{"name":"Iraq"},"IN":{"name":"India"}}`,
		"node_modules/countries-list/languages.min.json":               `{"en":{"name":"English"}}`,
		"node_modules/@cspell/dict-people-names/package.json":          `{"name":"@cspell/dict-people-names","version":"1.1.16","license":"MIT"}`,
		"node_modules/@cspell/dict-people-names/dict/people-names.txt": "Bush\nPervez\n",
		"wordnet/data.noun":  header + "00000100 15 n 02 Iraq 0 Republic_of_Iraq 0 000 | a country\n00000200 18 n 01 Bush 0 000 | a president\n00000250 14 n 01 Taliban 0 000 | a movement\n",
		"wordnet/index.noun": header + "iraq n 1 0 1 0 00000100  \nbush n 1 0 1 0 00000200  \n",
		"wordnet/data.verb":  header + "00000300 42 v 01 be 0 000 | have the quality of being\n",
		"wordnet/index.verb": header + "be v 1 0 1 0 00000300  \n",
		"wordnet/verb.exc":   "is be\nwas be\n",
		"wordnet/data.adj":   "", "wordnet/index.adj": "", "wordnet/data.adv": "", "wordnet/index.adv": "",
	})
	lists := filepath.Join(fixtures, "lists")
	imp := exec.Command(filepath.Join(bin, "gazetteer"), "import", "-npm", filepath.Join(fixtures, "node_modules"), "-wordnet", filepath.Join(fixtures, "wordnet"), lists)
	if out, err := imp.CombinedOutput(); err != nil || !strings.Contains(string(out), "countries.txt: 4 phrases") {
		t.Fatalf("gazetteer import: %v\n%s", err, out)
	}

	src := string(readFile(t, "../../specs/quickstart.hcl"))
	src = strings.Replace(src, `default     = "data/ud-ewt-sample"`, `default     = "`+mustAbs(t, "../../specs/data/ud-ewt-sample")+`"`, 1)
	blocks := `plugin "gaz" {
    binary = "` + filepath.Join(bin, "gazetteer") + `"
    config {
      column        = "form"
      case_variants = true
      lists = {
        COUNTRY = "` + filepath.Join(lists, "countries.txt") + `"
        NAME    = "` + filepath.Join(lists, "people.txt") + `"
        WNLOC   = "` + filepath.Join(lists, "wordnet-location.txt") + `"
      }
    }
  }
  plugin "wn" {
    binary = "` + filepath.Join(bin, "wordnet") + `"
    config {
      dict       = "` + filepath.Join(fixtures, "wordnet") + `"
      column     = "form"
      pos_column = "xpos"
      lemma      = true
      lexname    = true
    }
  }
  transition "trans" {}`
	attributes := map[string]float64{}
	for _, variant := range []string{"builtin", "knowledge"} {
		s := src
		if variant == "knowledge" {
			s = strings.Replace(src, `transition "trans" {}`, blocks, 1)
		}
		dir := t.TempDir()
		specPath := filepath.Join(dir, "spec.hcl")
		if err := os.WriteFile(specPath, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "run")
		mustRun(t, "", "run", specPath, "--learner", "hmm", "--out", out)
		var manifest struct {
			Attributes float64
			Plugins    map[string]struct{ Plugin, Version string }
		}
		if err := json.Unmarshal(readFile(t, filepath.Join(out, "manifest.json")), &manifest); err != nil {
			t.Fatal(err)
		}
		attributes[variant] = manifest.Attributes
		if variant == "builtin" {
			continue
		}
		if manifest.Plugins["gaz"].Plugin != "gazetteer" || manifest.Plugins["wn"].Plugin != "wordnet" || manifest.Plugins["wn"].Version == "" {
			t.Errorf("manifest records plugins %+v", manifest.Plugins)
		}
		tagged, _ := mustRun(t, "", "tag", "--model", filepath.Join(out, "models", "hmm.model"), "../../specs/data/ud-ewt-sample/test.conllu")
		if pred := string(readFile(t, filepath.Join(out, "predictions", "hmm.txt"))); tagged != pred {
			t.Errorf("trellis tag with the knowledge plugins differs from the run's predictions")
		}
	}
	// gaz: any, COUNTRY, B-COUNTRY, NAME, B-NAME, WNLOC, B-WNLOC at least;
	// wn: lemma=iraq, lemma=bush, lemma=be, lex=noun.location, lex=noun.person, lex=verb.stative.
	if got := attributes["knowledge"] - attributes["builtin"]; got < 13 {
		t.Errorf("the plugins added %v attributes (%v), want at least 13", got, attributes)
	}
}
