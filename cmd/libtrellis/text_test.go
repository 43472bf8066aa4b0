package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/trellis-nlp/trellis/framework/annotate"
	"github.com/trellis-nlp/trellis/framework/pretrained"
	"github.com/trellis-nlp/trellis/framework/tokenize"
	"github.com/trellis-nlp/trellis/framework/trellis"
)

// chunkModel is a word model of BIO chunks (scheme iob2), trained on
// sentences with non-ASCII words so that its spans hold some.
func chunkModel(t *testing.T) *trellis.Model {
	t.Helper()
	var sents []trellis.Sentence
	for _, line := range []string{
		"the/B-NP dog/I-NP barks/B-VP at/B-PP the/B-NP cat/I-NP ./O",
		"a/B-NP café/I-NP sleeps/B-VP ./O",
		"Ünïcode/B-NP lait/I-NP sings/B-VP in/B-PP the/B-NP tree/I-NP ?/O",
	} {
		var s trellis.Sentence
		for _, tl := range strings.Fields(line) {
			w, l, _ := strings.Cut(tl, "/")
			s.Tokens, s.Labels = append(s.Tokens, w), append(s.Labels, l)
		}
		sents = append(sents, s)
	}
	m, err := trellis.Train(context.Background(), sents, trellis.Options{Scheme: "iob2", Seed: 1,
		Learner: trellis.Learner{Type: "crf", Config: map[string]any{"c2": 0.01}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// checkOffsets fails unless every token and span of sents is the
// characters [start, end) of text.
func checkOffsets(t *testing.T, text string, sents []annotate.Sentence) {
	t.Helper()
	rs := []rune(text)
	at := func(what string, start, end *int, want string) {
		if start == nil || end == nil || *start < 0 || *end > len(rs) || *start > *end {
			t.Fatalf("%s %q: offsets %v %v out of the text's %d characters", what, want, start, end, len(rs))
		}
		if got := string(rs[*start:*end]); got != want {
			t.Errorf("%s: text[%d:%d] = %q, want %q", what, *start, *end, got, want)
		}
	}
	for _, s := range sents {
		at("sentence", s.Start, s.End, s.Text)
		for _, tok := range s.Tokens {
			at("token", tok.Start, tok.End, tok.Text)
		}
		for _, sp := range s.Spans {
			at("span", sp.Start, sp.End, sp.Text)
		}
	}
}

// TestTagText: text is tokenized by the named tokenizer and tagged as Tag
// tags its words, with spans of the scheme; offsets are characters.
func TestTagText(t *testing.T) {
	m := chunkModel(t)
	const text = "Café au lait. Ünïcode?\n\nthe dog barks at a café ."
	for _, name := range []string{"", "en-tokenizer", "rules", "lines", "chars"} {
		t.Run(name, func(t *testing.T) {
			out, err := tagText(m, []byte(text), name)
			if err != nil {
				t.Fatal(err)
			}
			var sents []annotate.Sentence
			if err := json.Unmarshal(out, &sents); err != nil {
				t.Fatal(err)
			}
			if len(sents) < 2 {
				t.Fatalf("%d sentences: %s", len(sents), out)
			}
			checkOffsets(t, text, sents)
			spans := 0
			for _, s := range sents {
				want, err := m.Tag(words(s.Tokens))
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(s.Labels, want) {
					t.Errorf("%q: labels %v, Tag gives %v", s.Text, s.Labels, want)
				}
				spans += len(s.Spans)
			}
			if spans == 0 {
				t.Errorf("no spans: %s", out)
			}
		})
	}
	// The tokenizers split differently: "lines" keeps "lait." whole.
	out, _ := tagText(m, []byte("Café au lait."), "lines")
	if !strings.Contains(string(out), `"text":"lait."`) {
		t.Errorf("lines: %s", out)
	}
	out, err := tagText(m, nil, "")
	if err != nil || string(out) != "[]" {
		t.Errorf("empty text: %s, %v", out, err)
	}
}

func words(toks []annotate.Token) []string {
	out := make([]string, len(toks))
	for i, tok := range toks {
		out[i] = tok.Text
	}
	return out
}

// TestTagTextErrors: a model that reads attributes, an unknown tokenizer
// and a model that is not a tokenizer are refused with messages naming
// the problem.
func TestTagTextErrors(t *testing.T) {
	attrModel, _, err := train([]byte(settings), encodeSentences(chunkSentences()), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer attrModel.Close()
	wordModel := chunkModel(t)
	path := filepath.Join(t.TempDir(), "chunks.model")
	if err := wordModel.Save(path); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    func() error
		want string
	}{
		{"attribute model", func() error { _, err := tagText(attrModel, []byte("the dog"), "rules"); return err }, "needs a model that reads only the words"},
		{"attribute model, no text", func() error { _, err := tagText(attrModel, nil, "rules"); return err }, "needs a model that reads only the words"},
		{"unknown tokenizer", func() error { _, err := tagText(wordModel, []byte("a"), "no-such-tokenizer"); return err }, `tokenizer "no-such-tokenizer"`},
		{"unknown tokenizer (tokenize)", func() error { _, err := tokenizeText([]byte("a"), "no-such-tokenizer"); return err }, "name of a shipped model (en-tokenizer"},
		{"not a tokenizer", func() error { _, err := tokenizeText([]byte("a"), path); return err }, "not a tokenizer model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.f()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, ok := tokenizers.toks["no-such-tokenizer"]; ok {
		t.Error("a failed tokenizer was cached")
	}
}

// TestTokenizerCache: a tokenizer is made once per name, however many
// callers ask at once, and a model file is found by path as well as a
// shipped model by name.
func TestTokenizerCache(t *testing.T) {
	var wg sync.WaitGroup
	got := make([]tokenize.Tokenizer, 4)
	for i := range got {
		wg.Go(func() {
			tok, err := tokenizers.get("en-tokenizer")
			if err != nil {
				t.Error(err)
			}
			got[i] = tok
		})
	}
	wg.Wait()
	for _, tok := range got[1:] {
		if tok != got[0] {
			t.Fatal("en-tokenizer was made more than once")
		}
	}
	if def, _ := tokenizers.get(""); def != got[0] {
		t.Error(`"" is not en-tokenizer`)
	}

	data, err := pretrained.Bytes("en-tokenizer")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tok.model")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	const text = "Café au lait. Ünïcode? It's 3.5 km."
	byName, err := tokenizeText([]byte(text), "en-tokenizer")
	if err != nil {
		t.Fatal(err)
	}
	byPath, err := tokenizeText([]byte(text), path)
	if err != nil {
		t.Fatal(err)
	}
	if string(byName) != string(byPath) {
		t.Errorf("by name %s, by path %s", byName, byPath)
	}
	fromPath, _ := tokenizers.get(path)
	if fromPath == got[0] {
		t.Error("a path shares the shipped model's cache entry")
	}
	var sents []tokenize.Sentence
	if err := json.Unmarshal(byName, &sents); err != nil {
		t.Fatal(err)
	}
	if len(sents) != 3 {
		t.Fatalf("%d sentences, want 3: %s", len(sents), byName)
	}
	rs := []rune(text)
	for _, s := range sents {
		for _, tok := range s.Tokens {
			if string(rs[tok.Start:tok.End]) != tok.Text {
				t.Errorf("token %q at [%d, %d) is %q", tok.Text, tok.Start, tok.End, string(rs[tok.Start:tok.End]))
			}
		}
	}
	if out, err := tokenizeText(nil, "rules"); err != nil || string(out) != "[]" {
		t.Errorf("empty text: %s, %v", out, err)
	}
}
