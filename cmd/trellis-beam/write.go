package main

// This file holds the sinks: the shard files and the eval reports, each
// written whole, and the check that none of them exists yet.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/fileio"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

const (
	evalTextSuffix = ".eval.txt"
	evalJSONSuffix = ".eval.json"
)

// shardName is the file of shard k of n, as Beam's own sinks name them.
func shardName(prefix string, k, n int) string {
	return fmt.Sprintf("%s-%05d-of-%05d", prefix, k, n)
}

// shardFn keys a tagged sentence by its shard: a hash of its text, so a
// retried bundle sends a sentence to the same shard.
type shardFn struct{ Shards int }

func (f *shardFn) ProcessElement(text string, emit func(int, string)) {
	h := fnv.New64a()
	h.Write([]byte(text))
	emit(int(h.Sum64()%uint64(f.Shards)), text)
}

// allShardsFn emits an empty text for every shard, so that every shard
// file is written even when no sentence lands in it.
type allShardsFn struct{ Shards int }

func (f *allShardsFn) ProcessElement(_ []byte, emit func(int, string)) {
	for k := range f.Shards {
		emit(k, "")
	}
}

// writeShardFn writes one shard's sentences to its file.
type writeShardFn struct {
	Prefix string
	Shards int
}

func (f *writeShardFn) ProcessElement(ctx context.Context, shard int, texts func(*string) bool) error {
	return writeFile(ctx, shardName(f.Prefix, shard, f.Shards), func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		var t string
		for texts(&t) {
			if _, err := bw.WriteString(t); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
}

// isLocal reports whether path is a local file (no scheme://).
func isLocal(path string) bool { return !strings.Contains(path, "://") }

// writeFile writes path in one piece: locally through trellis's atomic
// writer (temporary file, sync, rename), elsewhere through the Beam
// filesystem, whose object stores publish an object when it is closed.
func writeFile(ctx context.Context, path string, write func(io.Writer) error) error {
	if isLocal(path) {
		f, err := fileio.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := write(f); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return f.Commit()
	}
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return err
	}
	defer fs.Close()
	w, err := fs.OpenWrite(ctx, path)
	if err != nil {
		return err
	}
	if err := write(w); err != nil {
		w.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return w.Close()
}

// prepareOutput refuses to run when any file the run would write is
// already there (nothing of the user's is overwritten), and makes a local
// output's folder, so that the run does not fail at its very end.
func prepareOutput(ctx context.Context, o options) error {
	fs, err := filesystem.New(ctx, o.output)
	if err != nil {
		return usagef("--output: %v", err)
	}
	defer fs.Close()
	patterns := []string{o.output + "-*-of-*"}
	if o.eval {
		patterns = append(patterns, o.output+evalTextSuffix, o.output+evalJSONSuffix)
	}
	for _, p := range patterns {
		found, err := fs.List(ctx, p)
		if err != nil {
			return fmt.Errorf("--output: %w", err)
		}
		if len(found) > 0 {
			return usagef("--output %s: %s already exists (remove it or choose another prefix)", o.output, found[0])
		}
	}
	if isLocal(o.output) {
		return os.MkdirAll(filepath.Dir(o.output), 0o755)
	}
	return nil
}

// evalFn sums the scores of tagged sentences: an eval.Partial per bundle,
// merged in any order into the counts of the whole input.
type evalFn struct{ Scheme string }

func (f *evalFn) options() eval.Options {
	sch, _ := scheme.Parse(f.Scheme) // checked by the launcher
	return eval.Options{Scheme: sch}
}

func (f *evalFn) CreateAccumulator() *eval.Partial { return eval.NewPartial(f.options()) }

func (f *evalFn) AddInput(p *eval.Partial, s Scored) *eval.Partial {
	p.Add(eval.Sentence{Gold: s.Gold, Pred: s.Pred, Chars: s.Chars, OOV: s.OOV})
	return p
}

func (f *evalFn) MergeAccumulators(a, b *eval.Partial) *eval.Partial {
	a.Merge(b)
	return a
}

func (f *evalFn) ExtractOutput(p *eval.Partial) *eval.Partial { return p }

// writeEvalFn writes the report `trellis eval` prints and the JSON
// `trellis eval --json` prints; Setup loads the model for its scheme and
// vocabulary, which the reports name.
type writeEvalFn struct {
	Prefix string
	Model  string

	sch   scheme.Scheme
	vocab *tagger.Vocabulary
}

func (f *writeEvalFn) Setup(ctx context.Context) error {
	tg, err := newTagger(ctx, f.Model)
	if err != nil {
		return err
	}
	defer tg.Close()
	f.vocab = tg.Vocabulary()
	f.sch, err = scheme.Parse(tg.Model.Scheme)
	return err
}

func (f *writeEvalFn) ProcessElement(ctx context.Context, p *eval.Partial) error {
	res := p.Result()
	if res.Sentences == 0 {
		return fmt.Errorf("no sentences to evaluate")
	}
	var text, js bytes.Buffer
	if err := tagger.WriteEvalText(&text, res, f.sch, f.vocab); err != nil {
		return err
	}
	if err := tagger.WriteEvalJSON(&js, res, f.vocab); err != nil {
		return err
	}
	if err := writeFile(ctx, f.Prefix+evalTextSuffix, func(w io.Writer) error {
		_, err := w.Write(text.Bytes())
		return err
	}); err != nil {
		return err
	}
	return writeFile(ctx, f.Prefix+evalJSONSuffix, func(w io.Writer) error {
		_, err := w.Write(js.Bytes())
		return err
	})
}
