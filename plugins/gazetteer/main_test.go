package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/plugins/sdk"
)

func TestLongestMatch(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "loc.txt"), []byte("# places\nNew York\nNew York City\nYork\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "org.txt"), []byte("New York Times\nYork\n"), 0o644)
	cfg := fmt.Sprintf(`{"column":"word","lists":{"LOC":%q,"ORG":%q}}`, filepath.Join(dir, "loc.txt"), filepath.Join(dir, "org.txt"))
	sent := [][]string{{"The"}, {"New"}, {"York"}, {"City"}, {"of"}, {"York"}, {"and"}, {"New"}, {"York"}, {"Times"}, {"new"}, {"york"}}
	got, err := sdk.Try(&gazetteer{}, cfg, []string{"word"}, sent)
	if err != nil {
		t.Fatal(err)
	}
	byToken := map[int][]string{}
	for _, f := range got {
		byToken[f.Token] = append(byToken[f.Token], f.Key)
	}
	want := map[int][]string{
		1: {"any", "LOC", "B-LOC"}, 2: {"any", "LOC", "I-LOC"}, 3: {"any", "LOC", "I-LOC"},
		5: {"any", "LOC", "B-LOC", "ORG", "B-ORG"},
		7: {"any", "ORG", "B-ORG"}, 8: {"any", "ORG", "I-ORG"}, 9: {"any", "ORG", "I-ORG"},
	}
	if !reflect.DeepEqual(byToken, want) {
		t.Errorf("got %v\nwant %v", byToken, want)
	}
	// Case-insensitive matching finds "new york".
	cfg = strings.Replace(cfg, `"column"`, `"lowercase":true,"column"`, 1)
	got, _ = sdk.Try(&gazetteer{}, cfg, []string{"word"}, sent[10:])
	if len(got) != 6 || got[1].Key != "LOC" || got[2].Key != "B-LOC" {
		t.Errorf("lowercase: %v", got)
	}
}

func TestSetupErrors(t *testing.T) {
	_, err := sdk.Try(&gazetteer{}, `{"column":"word","lists":{"LOC":"/nonexistent/x.txt"}}`, []string{"word"}, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "lists: LOC: open /nonexistent/x.txt") {
		t.Errorf("missing list: %v", err)
	}
}

func TestBuildLists(t *testing.T) {
	dir := t.TempDir()
	corpus := "-DOCSTART- -X- -X- O\n\nEU NNP B-NP I-ORG\nrejects VBZ B-VP O\nGerman JJ B-NP I-MISC\ncall NN I-NP O\n\n" +
		"Peter NNP B-NP I-PER\nBlackburn NNP I-NP I-PER\n\nEU NNP B-NP I-ORG\nand CC O O\nEU NNP B-NP B-ORG\n"
	p := filepath.Join(dir, "train")
	os.WriteFile(p, []byte(corpus), 0o644)
	lists, err := buildLists(p, 0, 3, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]listEntry{"ORG": {{"EU", 0}}, "MISC": {{"German", 0}}, "PER": {{"Peter Blackburn", 0}}}
	if !reflect.DeepEqual(lists, want) {
		t.Errorf("lists %v, want %v", lists, want)
	}
	lists, _ = buildLists(p, 0, 3, 2, 0)
	if !reflect.DeepEqual(lists, map[string][]listEntry{"ORG": {{"EU", 0}}}) {
		t.Errorf("min-count 2: %v", lists)
	}
}

// TestJackknifedLists: with -folds, a phrase is hidden from exactly the
// folds whose leave-one-out count is below min-count (checked against a
// recount per fold), the files carry the folds, and the plugin, given the
// training sentences, never matches a phrase that only its own sentence
// labelled — while a sentence of another fold still sees it.
func TestJackknifedLists(t *testing.T) {
	dir := t.TempDir()
	sents := [][]string{
		{"Acme NNP I-ORG", "rose VBD O"},
		{"Acme NNP I-ORG", "fell VBD O"},
		{"Zorbco NNP I-ORG", "rose VBD O"},
		{"Paris NNP I-LOC", "wins VBZ O"},
		{"Paris NNP I-LOC", "loses VBZ O"},
		{"Paris NNP I-LOC", "draws VBZ O"},
	}
	var b strings.Builder
	var toks [][]string
	for _, sent := range sents {
		var words []string
		for _, line := range sent {
			b.WriteString(line + "\n")
			words = append(words, strings.Fields(line)[0])
		}
		b.WriteString("\n")
		toks = append(toks, words)
	}
	p := filepath.Join(dir, "train")
	os.WriteFile(p, []byte(b.String()), 0o644)
	const folds = 3
	for _, minCount := range []int{1, 2} {
		lists, err := buildLists(p, 0, 2, minCount, folds)
		if err != nil {
			t.Fatal(err)
		}
		// Recount: per phrase, the sentences of each fold that label it.
		for typ, entries := range lists {
			for _, e := range entries {
				for k := 0; k < folds; k++ {
					outside := 0
					for si, sent := range sents {
						if sentenceFold(toks[si], folds) != k && strings.HasPrefix(sent[0], e.phrase+" ") && strings.HasSuffix(sent[0], "-"+typ) {
							outside++
						}
					}
					if hidden := e.except&(1<<k) != 0; hidden != (outside < minCount) {
						t.Errorf("min-count %d: %s %q fold %d: hidden %v with %d labels outside the fold", minCount, typ, e.phrase, k, hidden, outside)
					}
				}
			}
		}
		out := filepath.Join(dir, "lists", strconv.Itoa(minCount))
		if err := writeLists(out, lists, folds); err != nil {
			t.Fatal(err)
		}
		cfg := fmt.Sprintf(`{"column":"word","lists":{"ORG":%q,"LOC":%q}}`, filepath.Join(out, "ORG.txt"), filepath.Join(out, "LOC.txt"))
		for si := range sents {
			var sent [][]string // tokens × columns
			for _, w := range toks[si] {
				sent = append(sent, []string{w})
			}
			got, err := sdk.Try(&gazetteer{}, cfg, []string{"word"}, sent)
			if err != nil {
				t.Fatal(err)
			}
			typ := strings.TrimPrefix(strings.Fields(sents[si][0])[2], "I-")
			matched := false
			for _, f := range got {
				matched = matched || f.Key == typ
			}
			fold := sentenceFold(toks[si], folds)
			visible := false
			for _, e := range lists[typ] {
				if e.phrase == toks[si][0] && e.except&(1<<fold) == 0 {
					visible = true
				}
			}
			if matched != visible {
				t.Errorf("min-count %d, sentence %d (fold %d): matched %v, the list says visible %v (%v)", minCount, si, fold, matched, visible, got)
			}
		}
	}
	// "Zorbco" is labelled once: with min-count 1 its own fold must not see
	// it, every other fold must.
	lists, _ := buildLists(p, 0, 2, 1, folds)
	for _, e := range lists["ORG"] {
		if e.phrase == "Zorbco" && e.except != 1<<sentenceFold(toks[2], folds) {
			t.Errorf("Zorbco hidden from folds %b, want only its own fold %d", e.except, sentenceFold(toks[2], folds))
		}
	}
}

func TestJackknifedListErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, a, b, want string }{
		{"mark without folds", "Acme\texcept=1\n", "", "a fold mark without"},
		{"fold out of range", "# folds=3\nAcme\texcept=3\n", "", "fold \"3\" is not in 0..2"},
		{"bad folds", "# folds=1\nAcme\n", "", "folds must be 2 to 64"},
		{"folds differ", "# folds=3\nAcme\n", "# folds=5\nParis\n", "5 folds, another list has 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
			os.WriteFile(a, []byte(tc.a), 0o644)
			lists := fmt.Sprintf(`{"ORG":%q}`, a)
			if tc.b != "" {
				os.WriteFile(b, []byte(tc.b), 0o644)
				lists = fmt.Sprintf(`{"A":%q,"B":%q}`, a, b)
			}
			_, err := sdk.Try(&gazetteer{}, `{"column":"word","lists":`+lists+`}`, []string{"word"}, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestCaseVariants(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "loc.txt"), []byte("New York\nnew mexico\nMcAllen\n"), 0o644)
	sent := [][]string{{"NEW"}, {"YORK"}, {"New"}, {"Mexico"}, {"new"}, {"mexico"}, {"MCALLEN"}, {"McAllen"}, {"New"}, {"york"}}
	for _, tc := range []struct {
		name     string
		variants bool
		begins   []int // tokens with B-LOC
	}{
		{"exact", false, []int{4, 7}},
		{"variants", true, []int{0, 2, 4, 6, 7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := fmt.Sprintf(`{"column":"word","case_variants":%v,"lists":{"LOC":%q}}`, tc.variants, filepath.Join(dir, "loc.txt"))
			got, err := sdk.Try(&gazetteer{}, cfg, []string{"word"}, sent)
			if err != nil {
				t.Fatal(err)
			}
			var begins []int
			for _, f := range got {
				if f.Key == "B-LOC" {
					begins = append(begins, f.Token)
				}
			}
			if !reflect.DeepEqual(begins, tc.begins) {
				t.Errorf("B-LOC at %v, want %v (features %v)", begins, tc.begins, got)
			}
		})
	}
}

// TestLongestMatchLargeList: with many overlapping multi-token entries the
// longest match wins, and a token ends up in at most one match.
func TestLongestMatchOverlaps(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\na b\na b c d\nb c\nc d e\n"), 0o644)
	cfg := fmt.Sprintf(`{"column":"word","lists":{"X":%q}}`, filepath.Join(dir, "a.txt"))
	for _, tc := range []struct {
		sent string
		want string // per token: B, I or -
	}{
		{"a b c d e", "B I I I -"}, // a b c d beats a b, then e alone matches nothing
		{"a b c e", "B I - -"},     // a b c d fails at e: back to a b; c e is no entry
		{"x b c d e", "- B I - -"}, // b c, then d e is no entry
		{"c d e a", "B I I B"},
	} {
		var sent [][]string
		for _, w := range strings.Fields(tc.sent) {
			sent = append(sent, []string{w})
		}
		got, err := sdk.Try(&gazetteer{}, cfg, []string{"word"}, sent)
		if err != nil {
			t.Fatal(err)
		}
		marks := make([]string, len(sent))
		for i := range marks {
			marks[i] = "-"
		}
		for _, f := range got {
			switch f.Key {
			case "B-X":
				marks[f.Token] = "B"
			case "I-X":
				marks[f.Token] = "I"
			}
		}
		if strings.Join(marks, " ") != tc.want {
			t.Errorf("%q: %s, want %s", tc.sent, strings.Join(marks, " "), tc.want)
		}
	}
}

func TestOffsets(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "loc.txt"), []byte("New York\n"), 0o644)
	sent := [][]string{{"in"}, {"New"}, {"York"}, {"today"}}
	cfg := fmt.Sprintf(`{"column":"word","offsets":[-1,0,1],"lists":{"LOC":%q}}`, filepath.Join(dir, "loc.txt"))
	got, err := sdk.Try(&gazetteer{}, cfg, []string{"word"}, sent)
	if err != nil {
		t.Fatal(err)
	}
	byToken := map[int][]string{}
	for _, f := range got {
		byToken[f.Token] = append(byToken[f.Token], f.Key)
	}
	want := map[int][]string{
		0: {"any[1]", "LOC[1]", "B-LOC[1]"},
		1: {"any", "LOC", "B-LOC", "any[1]", "LOC[1]", "I-LOC[1]"},
		2: {"any[-1]", "LOC[-1]", "B-LOC[-1]", "any", "LOC", "I-LOC"},
		3: {"any[-1]", "LOC[-1]", "I-LOC[-1]"},
	}
	if !reflect.DeepEqual(byToken, want) {
		t.Errorf("got %v\nwant %v", byToken, want)
	}
	cfg = fmt.Sprintf(`{"column":"word","offsets":[9],"lists":{"LOC":%q}}`, filepath.Join(dir, "loc.txt"))
	if _, err := sdk.Try(&gazetteer{}, cfg, []string{"word"}, sent); err == nil || !strings.HasPrefix(err.Error(), "offsets: offset 9") {
		t.Errorf("offset 9: %v", err)
	}
}
