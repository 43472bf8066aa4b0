package main

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type evalVocabJSON struct {
	Tokens      int      `json:"tokens"`
	Accuracy    float64  `json:"accuracy"`
	IVAccuracy  *float64 `json:"iv_accuracy"`
	OOVAccuracy *float64 `json:"oov_accuracy"`
	IVTokens    *int     `json:"iv_tokens"`
	OOVTokens   *int     `json:"oov_tokens"`
	Vocabulary  *struct {
		Template  string `json:"template"`
		Lowercase bool   `json:"lowercase"`
		Words     int    `json:"words"`
	} `json:"vocabulary"`
}

func evalVocab(t *testing.T, model, data string) evalVocabJSON {
	t.Helper()
	out, _ := mustRun(t, "", "eval", "--model", model, data, "--json")
	var res evalVocabJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return res
}

// lowerForms is the set of lowercased forms of a CoNLL-U file's tokens.
func lowerForms(t *testing.T, path string) (set map[string]bool, forms []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	set = map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 10 || strings.ContainsAny(cols[0], "-.") {
			continue
		}
		w := strings.ToLower(cols[1])
		set[w] = true
		forms = append(forms, w)
	}
	return set, forms
}

// TestEvalVocabulary: eval's IV/OOV figures come from the model's
// vocabulary (the quickstart's lowercased "w" template: the lowercased
// training forms, counted here from train.conllu), and are null, never 0,
// when the model's file cannot tell.
func TestEvalVocabulary(t *testing.T) {
	dir := sharedRun(t, quickstart)
	res := evalVocab(t, filepath.Join(dir, "models", "hmm.model"), ewtTest)
	if res.Vocabulary == nil || res.Vocabulary.Template != "w" || !res.Vocabulary.Lowercase {
		t.Fatalf("vocabulary %+v, want template w, lowercased", res.Vocabulary)
	}
	train, _ := lowerForms(t, filepath.Join(filepath.Dir(ewtTest), "train.conllu"))
	_, test := lowerForms(t, ewtTest)
	oov := 0
	for _, w := range test {
		if !train[w] {
			oov++
		}
	}
	if res.Vocabulary.Words != len(train) {
		t.Errorf("vocabulary of %d words, train.conllu has %d lowercased forms", res.Vocabulary.Words, len(train))
	}
	if res.OOVTokens == nil || *res.OOVTokens != oov || *res.IVTokens != len(test)-oov || len(test) != res.Tokens {
		t.Fatalf("oov_tokens %v, iv_tokens %v of %d; counted %d OOV of %d", res.OOVTokens, res.IVTokens, res.Tokens, oov, len(test))
	}
	mixed := (*res.IVAccuracy*float64(*res.IVTokens) + *res.OOVAccuracy*float64(*res.OOVTokens)) / float64(res.Tokens)
	if math.Abs(mixed-res.Accuracy) > 1e-9 {
		t.Errorf("IV and OOV accuracy mix to %v, accuracy is %v", mixed, res.Accuracy)
	}

	// Every test word of the chunk data was seen: no OOV accuracy.
	res = evalVocab(t, filepath.Join(sharedRun(t, chunkSpec), "models", "hmm.model"), chunkTest)
	if res.OOVTokens == nil || *res.OOVTokens != 0 || res.OOVAccuracy != nil || res.IVAccuracy == nil {
		t.Errorf("chunk: oov_tokens %v, oov_accuracy %v (want 0 and null), iv_accuracy %v", res.OOVTokens, res.OOVAccuracy, res.IVAccuracy)
	}

	// No emission of the word at offset 0: nothing is known.
	res = evalVocab(t, filepath.Join(sharedRun(t, "testdata/eval-novocab.hcl"), "models", "hmm.model"), chunkTest)
	if res.Vocabulary != nil || res.IVAccuracy != nil || res.OOVAccuracy != nil || res.IVTokens != nil || res.OOVTokens != nil {
		t.Errorf("no vocabulary: got %+v, want null IV/OOV figures", res)
	}
	out, _ := mustRun(t, "", "eval", "--model", filepath.Join(sharedRun(t, "testdata/eval-novocab.hcl"), "models", "hmm.model"), chunkTest)
	if strings.Contains(out, "vocabulary") || !strings.Contains(out, "per label (tokens):") {
		t.Errorf("text report without a vocabulary:\n%s", out)
	}
}
