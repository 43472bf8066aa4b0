// embeddings.go: `trellis embeddings`, which trains word vectors on
// unlabelled text (framework/word2vec) and writes them in a format that
// framework/embeddings reads.

package main

import (
	"compress/flate"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/trellis-nlp/trellis/framework/clusters"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/embeddings"
	"github.com/trellis-nlp/trellis/framework/fileio"
	"github.com/trellis-nlp/trellis/framework/neural"
	"github.com/trellis-nlp/trellis/framework/word2vec"
)

// embeddingsCommand trains word vectors on unlabelled text.
func embeddingsCommand() command {
	return command{
		Name: "embeddings",
		Usage: []string{
			"TEXT... --out FILE [--dim N] [--window N] [--negative N] [--min-count N] [--epochs N] [--sample T] [--seed S] [--threads N]",
			"TEXT... --tokenize --out FILE [--lowercase] [--zero-digits]",
			"--format conll|conllu FILE... --out FILE [--column N] [--lowercase] [--zero-digits]",
			"[TEXT]... [--conll FILE]... [--conllu FILE]... --out FILE [--format-out word2vec|word2vec-binary|glove|fasttext] [--force]",
		},
		Summary: "train word vectors on unlabelled text (skip-gram with negative sampling)",
		Description: "Trains word2vec skip-gram vectors with negative sampling on the TEXT files and writes them to FILE " +
			"(word2vec text format unless --format-out says otherwise) for a neural encoder's word table. A TEXT " +
			"file holds a sentence per line, tokens separated by white space, or with --tokenize running text that is " +
			"split as `trellis clusters --tokenize` splits it (the CoNLL corpora's tokens); with --format conll a column of a " +
			"CoNLL file (the first by default: the word of CoNLL-2000 and CoNLL-2003), with --format conllu the " +
			"FORM of a CoNLL-U file. --conll and --conllu add files of those formats to the TEXT files, read " +
			"after them in that order. - is stdin and a name ending in .gz is read through gzip. Context windows " +
			"never cross a sentence. --lowercase and --zero-digits key the words as an encoder with lowercase = " +
			"true or zero_digits = true (the encoder's default) keys its table. Words seen fewer than --min-count " +
			"times are left out. The same text, settings and --seed give the same bytes on every run and machine; " +
			"--threads N trains N shards of the text side by side and merges them at fixed points, so the vectors " +
			"depend on N (not on the scheduling). FILE is written whole or not at all, and an existing FILE is " +
			"kept unless --force.",
		Run: func(a *app, ctx context.Context, args []string) error { return a.cmdEmbeddings(ctx, args) },
	}
}

// embeddingsFlags are the settings of one `trellis embeddings`.
type embeddingsFlags struct {
	train                        word2vec.Options
	conll, conllu                repeated
	minCount, column             int
	out, format, formatOut       string
	lowercase, zeroDigits, force bool
	tokenize                     bool
	columnSet                    bool
	outFormat                    embeddings.Format
}

func (a *app) cmdEmbeddings(ctx context.Context, args []string) error {
	fs := newFlagSet("embeddings", a.stderr)
	f := embeddingsFlags{train: word2vec.DefaultOptions()}
	fs.IntVar(&f.train.Dim, "dim", f.train.Dim, "`N` values per word vector")
	fs.IntVar(&f.train.Window, "window", f.train.Window, "the largest distance `N` between a word and a context word (each word draws its window from 1..N)")
	fs.IntVar(&f.train.Negative, "negative", f.train.Negative, "`N` noise words per (word, context word) pair")
	fs.IntVar(&f.minCount, "min-count", 5, "leave out words seen fewer than `N` times")
	fs.IntVar(&f.train.Epochs, "epochs", f.train.Epochs, "`N` passes over the text")
	fs.Float64Var(&f.train.Sample, "sample", f.train.Sample, "subsampling threshold `T`: a token of a word that makes up a share f > T of the text is dropped with probability 1 − (√(f/T)+1)·T/f; 0 keeps every token")
	fs.Float64Var(&f.train.Alpha, "alpha", f.train.Alpha, "the starting learning rate `A`, decaying linearly to A/10000")
	fs.Uint64Var(&f.train.Seed, "seed", f.train.Seed, "random seed `S`: the initial vectors and every random draw")
	fs.IntVar(&f.train.Threads, "threads", 1, "train `N` shards of the text side by side (default 1); the vectors depend on N")
	fs.StringVar(&f.out, "out", "", "the vector `FILE` to write (required)")
	fs.StringVar(&f.formatOut, "format-out", "word2vec", "the output `FORMAT`: word2vec (text), word2vec-binary, glove or fasttext")
	fs.StringVar(&f.format, "format", "text", "the input `FORMAT`: text (a sentence per line), conll (a column: --column) or conllu (FORM)")
	fs.Var(&f.conll, "conll", "a CoNLL `FILE` to read as with --format conll; repeatable")
	fs.Var(&f.conllu, "conllu", "a CoNLL-U `FILE` to read as with --format conllu; repeatable")
	fs.IntVar(&f.column, "column", 1, "the column `N` of CoNLL files to read, counted from 1")
	fs.BoolVar(&f.lowercase, "lowercase", false, "lowercase every word, as an encoder with lowercase = true keys its table")
	fs.BoolVar(&f.zeroDigits, "zero-digits", false, "make every digit 0, as an encoder with zero_digits = true (its default) keys its table")
	fs.BoolVar(&f.force, "force", false, "overwrite FILE if it exists")
	fs.BoolVar(&f.tokenize, "tokenize", false, "split the TEXT files' lines into tokens (punctuation, clitics) as `trellis clusters --tokenize` does")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	fs.Visit(func(fl *flag.Flag) { f.columnSet = f.columnSet || fl.Name == "column" })
	if err := f.check(pos); err != nil {
		return err
	}
	corpus, err := a.readEmbeddingsText(pos, &f)
	if err != nil {
		return err
	}
	return a.trainEmbeddings(ctx, corpus, &f)
}

// check validates the flags and the output path before any reading.
func (f *embeddingsFlags) check(pos []string) error {
	switch {
	case len(pos)+len(f.conll)+len(f.conllu) == 0:
		return usagef("embeddings needs at least one TEXT, --conll or --conllu file (`trellis embeddings --help`)")
	case f.out == "":
		return usagef("embeddings needs --out FILE")
	case f.minCount < 1:
		return usagef("--min-count %d: want at least 1", f.minCount)
	case f.format != "text" && f.format != "conll" && f.format != "conllu":
		return usagef("--format %q: want text, conll or conllu", f.format)
	case f.columnSet && f.format != "conll" && len(f.conll) == 0:
		return usagef("--column is for CoNLL files (--format conll, --conll)")
	case f.column < 1:
		return usagef("--column %d: columns count from 1", f.column)
	case f.tokenize && f.format != "text":
		return usagef("--tokenize splits running text; --format %s files are tokenized already", f.format)
	}
	if err := f.train.Check(); err != nil {
		return usagef("%v", err)
	}
	var err error
	if f.outFormat, err = embeddings.ParseFormat(f.formatOut); err != nil || f.outFormat == embeddings.Auto {
		return usagef("--format-out %q: want word2vec, word2vec-binary, glove or fasttext", f.formatOut)
	}
	stdin := 0
	for _, p := range slices.Concat(pos, f.conll, f.conllu) {
		if p == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return usagef("- (stdin) can be read once only")
	}
	if st, err := os.Stat(f.out); err == nil && st.IsDir() {
		return usagef("--out %s is a folder; name the file to write", f.out)
	}
	if _, err := os.Lstat(f.out); err == nil && !f.force {
		return usagef("%s already exists; keep it, or overwrite it with --force", f.out)
	}
	if st, err := os.Stat(filepath.Dir(f.out)); err != nil || !st.IsDir() {
		return usagef("--out %s: its folder %s does not exist", f.out, filepath.Dir(f.out))
	}
	return nil
}

// readEmbeddingsText reads every input file into a corpus. A file that
// cannot be opened, text a reader cannot take and text without words to
// train on are usage errors (exit 2).
func (a *app) readEmbeddingsText(paths []string, f *embeddingsFlags) (*word2vec.Corpus, error) {
	var normalize func(string) string
	if f.lowercase || f.zeroDigits {
		normalize = (&neural.Vocab{Lowercase: f.lowercase, ZeroDigits: f.zeroDigits}).Key
	}
	counter := word2vec.NewCounter(normalize)
	var inputs [][2]string // path, format
	for _, p := range paths {
		inputs = append(inputs, [2]string{p, f.format})
	}
	for _, p := range f.conll {
		inputs = append(inputs, [2]string{p, "conll"})
	}
	for _, p := range f.conllu {
		inputs = append(inputs, [2]string{p, "conllu"})
	}
	for _, in := range inputs {
		if err := a.readEmbeddingsFile(counter, in[0], in[1], f); err != nil {
			if badInput(err) {
				return nil, usagef("%v", err)
			}
			return nil, err
		}
	}
	tokens, skipped := counter.Tokens(), counter.Skipped()
	c, err := counter.Corpus(f.minCount)
	if errors.Is(err, word2vec.ErrNoWords) {
		return nil, usagef("%v (--min-count %d)", err, f.minCount)
	} else if err != nil {
		return nil, err
	}
	ev := a.log.Info().Int64("tokens", tokens).Int("sentences", c.Sentences).Int("types", c.Types).
		Int("words", len(c.Words)).Int64("kept_tokens", c.Tokens)
	if skipped > 0 {
		ev = ev.Int64("skipped_tokens", skipped)
	}
	ev.Msg("read the text")
	if skipped > 0 {
		a.log.Warn().Int64("skipped_tokens", skipped).Msg("tokens that cannot be a word of a vectors file (white space inside, invalid UTF-8) were left out")
	}
	return c, nil
}

// badInput reports whether a reading error is the input's fault (exit
// 2): a file that is not there or not readable, a line a reader cannot
// take, a damaged or truncated gzip file.
func badInput(err error) bool {
	var ie *corpus.Error
	var ce flate.CorruptInputError
	return errors.As(err, &ie) || errors.As(err, &ce) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) ||
		errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, io.ErrUnexpectedEOF)
}

// readEmbeddingsFile adds one file (stdin for -, through gzip for .gz)
// to the counter in format (text, conll or conllu).
func (a *app) readEmbeddingsFile(c *word2vec.Counter, path, format string, f *embeddingsFlags) error {
	r, name, done, err := openWords(path, a.stdin)
	if err != nil {
		return err
	}
	defer done()
	switch format {
	case "conll":
		return c.ReadCoNLL(name, r, f.column)
	case "conllu":
		return c.ReadCoNLLU(name, r)
	}
	if f.tokenize {
		return corpus.ReadSplitWords(name, r, clusters.Tokenize, c)
	}
	return c.ReadText(name, r)
}

// openWords opens a text for the commands that count words (clusters,
// embeddings): stdin for -, a file otherwise (not a folder), read
// through gzip when its name ends in .gz. name names it in errors; done
// closes what was opened.
func openWords(path string, stdin io.Reader) (r io.Reader, name string, done func(), err error) {
	r, name, done = stdin, "<stdin>", func() {}
	if path != "-" {
		file, err := os.Open(path)
		if err != nil {
			return nil, "", nil, err
		}
		if st, err := file.Stat(); err == nil && st.IsDir() {
			file.Close()
			return nil, "", nil, usagef("%s is a folder, not a text file", path)
		}
		r, name, done = file, path, func() { file.Close() }
	}
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(r)
		if err != nil {
			done()
			return nil, "", nil, fmt.Errorf("%s: %w", name, err)
		}
		closeFile := done
		r, done = gz, func() { gz.Close(); closeFile() }
	}
	return r, name, done, nil
}

// trainEmbeddings trains the vectors and writes them to --out.
func (a *app) trainEmbeddings(ctx context.Context, c *word2vec.Corpus, f *embeddingsFlags) error {
	o := f.train
	bar := a.progress.Start("training", int64(o.Epochs)*c.Tokens, "words")
	o.Progress = func(done, _ int64) { bar.Set(done, "") }
	start := time.Now()
	v, err := word2vec.Train(ctx, c, o)
	bar.Done()
	if err != nil {
		return err
	}
	took := time.Since(start)
	a.log.Info().Dur("took", took).Float64("words_per_s", float64(int64(o.Epochs)*c.Tokens)/max(took.Seconds(), 1e-9)).
		Int("dim", o.Dim).Int("epochs", o.Epochs).Int("threads", o.Threads).Msg("trained the vectors")
	file, err := fileio.Create(f.out)
	if err != nil {
		return err
	}
	defer file.Close()
	if err := embeddings.Write(file, v, f.outFormat); err != nil {
		return err
	}
	if err := commitNew(file, f.out, f.force); err != nil {
		return err
	}
	sum, err := fileio.SHA256File(f.out)
	if err != nil {
		return err
	}
	a.log.Info().Str("out", f.out).Str("format", f.outFormat.String()).Int("words", len(v.Words)).Int("dim", v.Dim).
		Str("sha256", sum).Msg("vectors written")
	return nil
}

// commitNew puts the finished file at path. With force it is renamed
// over whatever is there; otherwise it is hard-linked to path, which
// fails if a file appeared there during training, so no file is ever
// overwritten without --force (on a file system without hard links:
// checked, then renamed).
func commitNew(file *fileio.File, path string, force bool) error {
	if force {
		return file.Commit()
	}
	if err := file.Sync(); err != nil {
		return err
	}
	err := os.Link(file.Name(), path)
	switch {
	case err == nil:
		return file.Close() // drops the temporary name; path keeps the file
	case errors.Is(err, fs.ErrExist):
		return usagef("%s already exists; keep it, or overwrite it with --force", path)
	}
	if _, err := os.Lstat(path); err == nil {
		return usagef("%s already exists; keep it, or overwrite it with --force", path)
	}
	return file.Commit()
}
