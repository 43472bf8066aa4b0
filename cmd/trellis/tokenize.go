package main

// This file holds `trellis tokenize`, `trellis models`, and the tokenizer
// that `tag --input text` reads raw text with.

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/pretrained"
	"github.com/trellis-nlp/trellis/framework/tagger"
	"github.com/trellis-nlp/trellis/framework/tokenize"
)

// defaultTokenizer is the shipped model that tokenizes raw text when no
// --tokenizer is given.
const defaultTokenizer = "en-tokenizer"

func tokenizeCommand() command {
	return command{
		Name: "tokenize",
		Usage: []string{
			"[--tokenizer MODEL|rules|lines|chars] [FILE|-] [--output tsv|json|conllu]",
			"[--tokenizer MODEL|rules] --score GOLD.conllu [--json]",
		},
		Summary: "split raw text into sentences and tokens, with their character offsets",
		Description: "Reads raw text (stdin when FILE is absent or -) and prints its sentences and tokens. " +
			"The tokenizer is a model of the rawtext format (default: the shipped " + defaultTokenizer + ", learned from UD English EWT; " +
			"specs/ud-ewt-tokenizer.hcl trains it), or rules (a regular expression, and a split after . ! ? before white space), " +
			"lines (a sentence per line, tokens split at white space) or chars (a sentence per line, a token per character). " +
			"Text is tokenized a paragraph at a time: a blank line always ends a sentence.\n" +
			"--output tsv prints token<TAB>start<TAB>end per token and a blank line after each sentence; json one object per sentence " +
			"(start, end, text, tokens); conllu a CoNLL-U sentence per sentence (# text, ID, FORM, SpaceAfter=No), for a model that reads CoNLL-U. " +
			"Offsets count characters (code points), from the start of the input.\n" +
			"--score GOLD.conllu joins the \"# text\" of each document's sentences with single spaces, tokenizes it, and prints the precision, " +
			"recall and F1 of the tokens and of the sentence ends against the gold ones, matched by character offsets: " +
			"sentence boundaries are the ends inside a document, sentence ends count each document's last one too.",
		Run: (*app).cmdTokenize,
	}
}

func (a *app) cmdTokenize(ctx context.Context, args []string) error {
	fs := newFlagSet("tokenize", a.stderr)
	name := fs.String("tokenizer", defaultTokenizer, "the tokenizer: a `MODEL` file or shipped model name, or rules, lines or chars")
	output := fs.String("output", "tsv", "what to print: `tsv|json|conllu`")
	score := fs.String("score", "", "score the tokenizer against the CoNLL-U file `GOLD` instead of tokenizing input")
	asJSON := fs.Bool("json", false, "with --score, print the scores as JSON")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 || *score != "" && len(pos) > 0 {
		return usagef("tokenize takes at most one input file, and none with --score")
	}
	write, err := tokenWriter(*output)
	if err != nil {
		return err
	}
	tok, done, err := a.tokenizer(ctx, *name)
	if err != nil {
		return err
	}
	defer done()
	if *score != "" {
		return a.scoreTokenizer(*score, tok, *asJSON)
	}
	in, file, closeIn, err := a.openInput(pos, "tokenizing")
	if err != nil {
		return err
	}
	defer closeIn()
	r := tokenize.NewReader(in, file, tok)
	w := bufio.NewWriterSize(a.stdout, 1<<16)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		s, _, err := r.Read()
		if err == io.EOF {
			return w.Flush()
		}
		if err != nil {
			return err
		}
		if err := write(w, &s); err != nil {
			return err
		}
	}
}

// tokenWriter returns the writer of one tokenized sentence for --output.
func tokenWriter(output string) (func(w *bufio.Writer, s *tokenize.Sentence) error, error) {
	switch output {
	case "tsv":
		return func(w *bufio.Writer, s *tokenize.Sentence) error {
			for _, t := range s.Tokens {
				fmt.Fprintf(w, "%s\t%d\t%d\n", t.Text, t.Start, t.End)
			}
			return w.WriteByte('\n')
		}, nil
	case "json":
		return func(w *bufio.Writer, s *tokenize.Sentence) error {
			return writeJSONLine(w, s)
		}, nil
	case "conllu":
		return writeCoNLLU, nil
	}
	return nil, usagef("--output must be tsv, json or conllu, got %q", output)
}

// writeCoNLLU writes s as a CoNLL-U sentence with ID and FORM filled,
// and SpaceAfter=No in MISC where the next token follows without white
// space.
func writeCoNLLU(w *bufio.Writer, s *tokenize.Sentence) error {
	fmt.Fprintf(w, "# text = %s\n", s.Text)
	for i, t := range s.Tokens {
		misc := "_"
		if i+1 < len(s.Tokens) && s.Tokens[i+1].Start == t.End {
			misc = "SpaceAfter=No"
		}
		fmt.Fprintf(w, "%d\t%s\t_\t_\t_\t_\t_\t_\t_\t%s\n", i+1, t.Text, misc)
	}
	return w.WriteByte('\n')
}

// checkTokenizerFlag refuses --tokenizer with input that is not raw text,
// where it would do nothing.
func checkTokenizerFlag(fs *flag.FlagSet, in tagger.Input) error {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "tokenizer" })
	if set && in != tagger.Text {
		return usagef("--tokenizer splits raw text: it takes --input text (the input is %s)", in)
	}
	return nil
}

// textTokenizer returns the tokenizer of raw text for tg: the one tg
// fixes (tokenize.Fixed: characters for a segmenter), else the one called
// name; and what closes it.
func (a *app) textTokenizer(ctx context.Context, tg *tagger.Tagger, name string) (tokenize.Tokenizer, func(), error) {
	if tok := tokenize.Fixed(tg); tok != nil {
		return tok, func() {}, nil
	}
	return a.tokenizer(ctx, name)
}

// tokenizer returns the tokenizer called name (a model file or shipped
// model, or rules, lines or chars) and what closes it.
func (a *app) tokenizer(ctx context.Context, name string) (tokenize.Tokenizer, func(), error) {
	if tok, ok := tokenize.Builtin(name); ok {
		return tok, func() {}, nil
	}
	tg, err := a.loadTagger(ctx, name, tagger.Options{})
	if err != nil {
		return nil, nil, err
	}
	m, err := tokenize.NewModel(tg)
	if err != nil {
		tg.Close()
		return nil, nil, usagef("--tokenizer %s: %v", name, err)
	}
	return m, func() { tg.Close() }, nil
}

// scoreTokenizer prints tok's scores on the documents of the CoNLL-U
// file gold.
func (a *app) scoreTokenizer(gold string, tok tokenize.Tokenizer, asJSON bool) error {
	f, err := os.Open(gold)
	if err != nil {
		return err
	}
	defer f.Close()
	sc, err := tokenize.Score(corpus.NewTextDocumentReader(f, gold), tok)
	if err != nil {
		return err
	}
	if asJSON {
		b, err := json.MarshalIndent(sc, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.stdout, "%s\n", b)
		return err
	}
	pct := func(x float64) string { return strconv.FormatFloat(100*x, 'f', 2, 64) }
	fmt.Fprintf(a.stdout, "%d documents\n", sc.Documents)
	fmt.Fprintf(a.stdout, "%-20s %6s %9s %9s %9s %9s %9s\n", "", "gold", "predicted", "correct", "precision", "recall", "F1")
	for _, row := range []struct {
		name string
		c    tokenize.Counts
	}{{"tokens", sc.Tokens}, {"sentence boundaries", sc.Boundaries}, {"sentence ends", sc.Ends}} {
		fmt.Fprintf(a.stdout, "%-20s %6d %9d %9d %9s %9s %9s\n", row.name, row.c.Gold, row.c.Predicted, row.c.Correct,
			pct(row.c.Precision()), pct(row.c.Recall()), pct(row.c.F1()))
	}
	return nil
}

func modelsCommand() command {
	return command{
		Name:    "models",
		Usage:   []string{"[--long]"},
		Summary: "list the shipped models, which --model takes by name",
		Description: "Prints the name of every model shipped inside trellis, one a line; --model takes such a name wherever it takes a file " +
			"(a file of that name wins). --long adds what each does, the spec that builds it, its training data and the licence that binds it.",
		Run: (*app).cmdModels,
	}
}

func (a *app) cmdModels(ctx context.Context, args []string) error {
	fs := newFlagSet("models", a.stderr)
	long := fs.Bool("long", false, "describe each model")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("models takes no arguments")
	}
	for _, e := range pretrained.List() {
		if !*long {
			fmt.Fprintln(a.stdout, e.Name)
			continue
		}
		pruned := ""
		if e.Pruned {
			pruned = ", pruned by trellis prune (the same output, a smaller file)"
		}
		fmt.Fprintf(a.stdout, "%s\n  %s\n  built by: %s (learner %q)%s\n  data: %s\n  licence: %s\n", e.Name, e.Description, e.Spec, e.Learner, pruned, e.Data, e.Licence)
	}
	return nil
}

// untracked reads raw text for a command that shows no offsets: it
// forgets each sentence's as soon as it is read.
type untracked struct{ *tokenize.Sentences }

func (u untracked) Read() (*corpus.Sentence, error) {
	s, err := u.Sentences.Read()
	if s != nil {
		u.Offsets(s)
	}
	return s, err
}
