package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/trellis-nlp/trellis/framework/clusters"
)

// clustersCommand computes Brown clusters from unlabeled text.
func clustersCommand() command {
	return command{
		Name: "clusters",
		Usage: []string{"[TEXT]... [--conll FILE]... [--conllu FILE]... --out FILE [--clusters C] [--min-count N]",
			"TEXT... --tokenize --out FILE [--threads N] [--force]"},
		Summary: "compute Brown word clusters from unlabeled text (for the clusters template)",
		Description: "Reads TEXT files (plain text, a sentence per line, tokens separated by white space, " +
			"or with --tokenize running text that is split as the CoNLL corpora are: punctuation and " +
			"clitics apart), --conll files (the word is the first column) and --conllu files (FORM); a " +
			"name ending in .gz is read through gzip. Bigrams never cross a line (sentence). Writes FILE with a line bitstring<TAB>word<TAB>count per word, as " +
			"Liang's wcluster does: Brown clusters by Liang's (2005) windowed algorithm, C clusters " +
			"merged into a binary hierarchy. Words seen fewer than --min-count times are left out. " +
			"The output is the same for the same input, whatever --threads. FILE is written whole " +
			"or not at all, and an existing FILE is kept unless --force.",
		Run: func(a *app, ctx context.Context, args []string) error { return a.cmdClusters(ctx, args) },
	}
}

func (a *app) cmdClusters(ctx context.Context, args []string) error {
	fs := newFlagSet("clusters", a.stderr)
	out := fs.String("out", "", "the cluster file to write")
	c := fs.Int("clusters", 1000, "the number of clusters C (Liang's window)")
	minCount := fs.Int64("min-count", 1, "leave out words seen fewer times")
	var conll, conllu repeated
	fs.Var(&conll, "conll", "a CoNLL file (the word is the first column); repeatable")
	fs.Var(&conllu, "conllu", "a CoNLL-U file (the FORM column); repeatable")
	tokenize := fs.Bool("tokenize", false, "split the TEXT files' lines into tokens (punctuation, clitics)")
	threads := fs.Int("threads", runtime.GOMAXPROCS(0), "threads (the output does not depend on it)")
	force := fs.Bool("force", false, "overwrite FILE if it exists")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos)+len(conll)+len(conllu) == 0:
		return usagef("clusters needs at least one TEXT, --conll or --conllu file (`trellis clusters --help`)")
	case *out == "":
		return usagef("clusters needs --out FILE")
	case *c < 1:
		return usagef("--clusters must be at least 1, got %d", *c)
	case *minCount < 1:
		return usagef("--min-count must be at least 1, got %d", *minCount)
	}
	if !*force {
		if _, err := os.Lstat(*out); err == nil {
			return usagef("%s already exists; keep it, or overwrite it with --force", *out)
		}
	}
	// Clustering can take hours: a folder that cannot take the file is
	// said now, not after.
	if fi, err := os.Stat(filepath.Dir(*out)); err != nil || !fi.IsDir() {
		return usagef("--out %s: its folder %s does not exist", *out, filepath.Dir(*out))
	}
	counter := clusters.NewCounter()
	for _, in := range []struct {
		files []string
		read  func(io.Reader) error
	}{
		{pos, func(r io.Reader) error { return counter.ReadText(r, *tokenize) }},
		{conll, counter.ReadCoNLL},
		{conllu, counter.ReadCoNLLU},
	} {
		for _, p := range in.files {
			if err := readClusterText(p, a.stdin, in.read); err != nil {
				return err
			}
		}
	}
	counts, err := counter.Counts(*minCount)
	if err != nil {
		return err
	}
	a.log.Info().Int64("tokens", counter.Tokens()).Int("words", len(counts.Words)).Int64("kept_tokens", counts.Tokens).
		Int("clusters", *c).Msg("counted the text")
	bar := a.progress.Start("clustering", int64(len(counts.Words)+min(len(counts.Words), *c)-1), "steps")
	start := time.Now()
	res, err := clusters.Cluster(ctx, counts, clusters.Options{
		Clusters: *c, Threads: *threads,
		Progress: func(done, _ int) { bar.Set(int64(done), "") },
	})
	bar.Done()
	if err != nil {
		return err
	}
	if err := clusters.WriteFile(*out, res, *force); err != nil {
		return err
	}
	a.log.Info().Str("out", *out).Dur("took", time.Since(start)).Msg("clusters written")
	return nil
}

// repeated is a flag given any number of times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// readClusterText reads one file (openWords: stdin for -, through gzip
// if its name ends in .gz).
func readClusterText(path string, stdin io.Reader, read func(io.Reader) error) error {
	r, name, done, err := openWords(path, stdin)
	if err != nil {
		return err
	}
	defer done()
	if err := read(r); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
