package run

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// readCorpus reads all sentences of a corpus block, applying its split.
func readCorpus(c *spec.Corpus) ([]*corpus.Sentence, error) {
	f, err := corpus.New(c.Format)
	if err != nil {
		return nil, err
	}
	fh, err := os.Open(c.Path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	r := f.NewReader(fh, c.Path, corpus.ReadOptions{})
	var out []*corpus.Sentence
	for i := 0; ; i++ {
		s, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if c.Split.Keep(i) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: corpus %q has no sentences", c.Path, c.Name)
	}
	return out, nil
}

// checkCorpus reads a corpus block through, keeping nothing, and fails on
// a data error or when its split keeps no sentence.
func checkCorpus(c *spec.Corpus) error {
	f, err := corpus.New(c.Format)
	if err != nil {
		return err
	}
	fh, err := os.Open(c.Path)
	if err != nil {
		return err
	}
	defer fh.Close()
	r := f.NewReader(fh, c.Path, corpus.ReadOptions{})
	kept := 0
	for i := 0; ; i++ {
		_, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if c.Split.Keep(i) {
			kept++
		}
	}
	if kept == 0 {
		return fmt.Errorf("%s: corpus %q has no sentences", c.Path, c.Name)
	}
	return nil
}

// hashFile returns the SHA-256 of a file, hex encoded.
func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
