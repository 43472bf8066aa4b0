package main

// This file holds raw text: tokenizing it, and tagging it into the
// sentences `trellis tag --input text --output json` prints, through
// framework/trellis's NewTokenizer and TagText.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/trellis-nlp/trellis/framework/annotate"
	"github.com/trellis-nlp/trellis/framework/tokenize"
	"github.com/trellis-nlp/trellis/framework/trellis"
)

// defaultTokenizer is the tokenizer of a call that names none: the
// shipped English one.
const defaultTokenizer = "en-tokenizer"

// tokenizerCache keeps every tokenizer made, by name, for the library's
// lifetime: a tokenizer model takes a while to load, and callers tag one
// text per call. NewTokenizer's tokenizers are safe for concurrent use.
type tokenizerCache struct {
	mu   sync.Mutex
	toks map[string]*tokenizerEntry
}

// tokenizerEntry is one tokenizer; ready closes once tok and err are set,
// so that callers asking for a tokenizer being loaded wait for that load
// rather than load it again.
type tokenizerEntry struct {
	ready chan struct{}
	tok   tokenize.Tokenizer
	err   error
}

var tokenizers = &tokenizerCache{toks: map[string]*tokenizerEntry{}}

// get returns the tokenizer called name ("" is defaultTokenizer), made by
// trellis.NewTokenizer on first use. A failure is not kept: the next call
// tries again (the file may have been fixed).
func (c *tokenizerCache) get(name string) (tokenize.Tokenizer, error) {
	if name == "" {
		name = defaultTokenizer
	}
	key := cacheKey(name)
	c.mu.Lock()
	e, loaded := c.toks[key]
	if !loaded {
		e = &tokenizerEntry{ready: make(chan struct{})}
		c.toks[key] = e
	}
	c.mu.Unlock()
	if loaded {
		<-e.ready
		return e.tok, e.err
	}
	// Deferred, so that a panic (turned into an error by guard) neither
	// leaves waiters blocked nor is cached.
	e.err = fmt.Errorf("tokenizer %q: loading failed", name)
	defer func() {
		if e.err != nil {
			c.mu.Lock()
			delete(c.toks, key)
			c.mu.Unlock()
		}
		close(e.ready)
	}()
	e.tok, e.err = trellis.NewTokenizer(name)
	if e.err != nil {
		e.err = fmt.Errorf("tokenizer %q: %w", name, e.err)
	}
	return e.tok, e.err
}

// cacheKey is the key of the tokenizer called name: a model file by its
// absolute path, size and time (so a relative path means the same file
// after a change of directory, and a rewritten file is read again), else
// the name (a builtin or shipped tokenizer). As in trellis.Load, a file
// wins over a shipped model's name.
func cacheKey(name string) string {
	switch name {
	case "rules", "lines", "chars":
		return name
	}
	fi, err := os.Stat(name)
	if err != nil || fi.IsDir() {
		return name
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return name
	}
	return fmt.Sprintf("file:%s:%d:%d", abs, fi.Size(), fi.ModTime().UnixNano())
}

// tagText tags text with m, split into sentences by the tokenizer called
// tokenizer, and returns the sentences as a JSON array of
// annotate.Sentence (offsets in characters of text).
func tagText(m *trellis.Model, text []byte, tokenizer string) ([]byte, error) {
	// Checked first so that a model that reads more than the words is
	// refused on any text, empty text included, with CheckPlain's message.
	if _, err := m.Rows(nil); err != nil {
		return nil, fmt.Errorf("tagging text needs a model that reads only the words: %w", err)
	}
	tok, err := tokenizers.get(tokenizer)
	if err != nil {
		return nil, err
	}
	sents, err := m.TagText(string(text), tok)
	if err != nil {
		return nil, err
	}
	if sents == nil {
		sents = []annotate.Sentence{}
	}
	return json.Marshal(sents)
}

// tokenizeText splits text into sentences with the tokenizer called
// tokenizer and returns them as a JSON array of tokenize.Sentence.
func tokenizeText(text []byte, tokenizer string) ([]byte, error) {
	tok, err := tokenizers.get(tokenizer)
	if err != nil {
		return nil, err
	}
	sents, err := tok.Tokenize(string(text))
	if err != nil {
		return nil, err
	}
	if sents == nil {
		sents = []tokenize.Sentence{}
	}
	return json.Marshal(sents)
}

// errNoText is a text call given a length but no bytes.
var errNoText = errors.New("bad request: text is NULL but its length is not 0")
