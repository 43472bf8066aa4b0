package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/trellis-nlp/trellis/framework/annotate"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/tagger"
	"github.com/trellis-nlp/trellis/framework/tokenize"
)

func tagCommand() command {
	return command{
		Name: "tag",
		Usage: []string{
			"--model MODEL [FILE|-] [--threads N] [--marginals] [--nbest K] [--constrained auto|on|off] [--decode viterbi|greedy|beam|posterior|labelpath] [--beam N]",
			"--model MODEL --input text|tokens [FILE|-] [--tokenizer MODEL|rules|lines|chars] [--output tsv|json]",
			"--model MODEL [FILE|-] --output json",
			"--model MODEL [FILE|-] --consistency token|span [--consistency-words all|capitalized] [--penalty X] [--dd-iterations N] [--dd-step X] [--constraint TYPE<=N]...",
			"--model MODEL --model MODEL... --input text|tokens [FILE|-] [--output tsv|json]",
		},
		Summary: "tag a file, plain text or stdin with a model",
		Description: "Reads FILE (stdin when it is absent or -) and prints the predicted labels.\n" +
			"--input corpus (the default) reads the model's own corpus format and prints every line with the label appended. " +
			"--input text reads raw text: the --tokenizer splits it into sentences and tokens that keep their character offsets " +
			"(default: the shipped " + defaultTokenizer + " model; lines reads a sentence per line, tokens separated by white space; " +
			"a segmentation model reads every line as characters); " +
			"--input tokens one token per line, a blank line between sentences. " +
			"Plain text has only words: a model whose templates read other columns (POS, chunk) is refused, naming them.\n" +
			"--output tsv prints token<TAB>label per token and a blank line between sentences (the default for text and tokens; " +
			"a segmentation model prints the segmented words instead unless --output tsv is given); --output json one JSON object per sentence: " +
			"its tokens, each with its text and label (and, for --input text, its start and end character offsets into the input, and the sentence's own), " +
			"the labels, the spans of a span scheme (label, text, first and last token, offsets), the words of a segmentation, " +
			"marginals and probability with --marginals, the k best with --nbest. " +
			"--nbest K adds the 2nd..Kth best labels as further columns in tsv; --marginals adds the best label's marginal after it.\n" +
			"--decode picks how labels are chosen: viterbi (the best sequence, the default), greedy (left to right, each label the best after the one before), " +
			"beam with --beam N (the N best partial paths per position), posterior (the largest marginals the scheme's constraints allow), " +
			"labelpath (for a latent model, the most probable label sequence summed over its hidden-state paths; Viterbi for any other).\n" +
			"--consistency decodes each document (opened by -DOCSTART- or # newdoc) jointly, by dual decomposition: " +
			"every occurrence of a repeated word (token; --consistency-words capitalized keeps only words with a capital), " +
			"or the tokens of every occurrence of a word sequence labelled as a span somewhere in the document (span), take one type; " +
			"--penalty X makes the agreement soft (a token pays X to differ), --dd-iterations and --dd-step bound and size the subgradient steps. " +
			"--constraint TYPE<=N, TYPE>=N or TYPE=N bounds the spans of a type in every sentence. Both decode with viterbi and give one labelling (no --nbest, --marginals).\n" +
			"Several --model make a pipeline: each model reads the labels of the ones before it as the column they label " +
			"(a chunker reading \"pos\" after a POS tagger whose label column is \"pos\"); tsv prints token<TAB>label per model, " +
			"json the last model's object with every model's label in each token's \"tags\".\n" +
			"--threads N tags N batches at once, written in input order: the output is the same bytes for any N. " +
			"--marginals and --nbest tag on one thread.",
		Run: (*app).cmdTag,
	}
}

// tagOptions are the tag command's settings that shape its output.
type tagOptions struct {
	input     tagger.Input
	output    string // corpus, tsv, json or words
	nbest     int
	marginals bool
	// replicas tag beside the tagger (--threads N: N-1 of them).
	replicas []*tagger.Tagger
	// text reads raw text (--input text through a tokenizer): it gives
	// back each sentence's offsets. Nil for other input.
	text *tokenize.Sentences
}

func (o tagOptions) detailed() bool { return o.marginals || o.nbest > 1 }

func (a *app) cmdTag(ctx context.Context, args []string) error {
	fs := newFlagSet("tag", a.stderr)
	var models listFlag
	fs.Var(&models, "model", "the `MODEL` file or shipped model name; repeated, a pipeline: each model reads the labels of the ones before it as the columns they name")
	marginals := fs.Bool("marginals", false, "add each label's marginal probability as a column after it (json: marginals and the sentence's probability); a model trained in an encoding gives the marginal of the encoded label (E-PER printed as I-PER)")
	nbest := fs.Int("nbest", 1, "add the 2nd..`K`th best labels as further columns (json: the K best sequences with their scores and probabilities)")
	constrained := fs.String("constrained", "auto", "constrained decoding for span schemes: `auto|on|off` (auto: the model's setting)")
	input := fs.String("input", "corpus", "what FILE holds: `corpus|text|tokens` (corpus: the model's own format)")
	tokName := fs.String("tokenizer", defaultTokenizer, "what splits --input text: a tokenizer `MODEL` file or shipped model name, or rules, lines or chars (a segmentation model always reads characters)")
	decode := addDecodeFlags(fs)
	output := fs.String("output", "auto", "what to print: `auto|tsv|json` (auto: the input's layout for corpus input, tsv for text and tokens, segmented words for a segmentation model)")
	threads := fs.Int("threads", 1, "tag with `N` threads, batches written in input order (the output does not depend on N)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if *nbest < 1 || *nbest > 10000 {
		return usagef("--nbest must be between 1 and 10000")
	}
	if *threads < 1 || *threads > 1024 {
		return usagef("--threads must be between 1 and 1024")
	}
	o := tagOptions{nbest: *nbest, marginals: *marginals}
	if o.input, err = tagger.ParseInput(*input); err != nil {
		return usagef("--input: %v", err)
	}
	if err := checkTokenizerFlag(fs, o.input); err != nil {
		return err
	}
	var opt tagger.Options
	if opt.Constrained, err = parseConstrained(*constrained); err != nil {
		return err
	}
	if err := decode.apply(&opt, *nbest); err != nil {
		return err
	}
	if opt.Joint != nil && *marginals {
		return usagef("--consistency and --constraint give one labelling; they do not combine with --marginals")
	}
	if len(pos) > 1 {
		return usagef("tag takes at most one input file")
	}
	if len(models) > 1 {
		o.output = *output
		if *threads > 1 {
			return usagef("several --model (a pipeline) tag on one thread")
		}
		return a.tagPipeline(ctx, models, opt, o, *tokName, pos)
	}
	tg, reg, err := a.loadTaggerRegistry(ctx, models.first(), opt)
	if err != nil {
		return err
	}
	defer tg.Close()
	for range *threads - 1 {
		rp, err := tg.Replica(reg)
		if err != nil {
			return err
		}
		defer rp.Close() // before tg's: its plugins' host closes with tg
		o.replicas = append(o.replicas, rp)
	}
	if o.output, err = resolveOutput(*output, o, tg); err != nil {
		return err
	}
	in, name, done, err := a.openInput(pos, "tagging")
	if err != nil {
		return err
	}
	defer done()
	r, closeTok, err := a.tagReader(ctx, tg, in, name, *tokName, &o)
	var ce *tagger.ColumnsError
	if errors.As(err, &ce) {
		return usagef("--input %s: %v", o.input, err)
	} else if err != nil {
		return err
	}
	defer closeTok()
	w := bufio.NewWriterSize(a.stdout, 1<<16)
	err = tagTo(ctx, tg, r, w, o)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err == nil {
		a.logJoint(tg, opt.Joint)
	}
	return err
}

// tagReader returns the reader of the input for tg, and what closes the
// tokenizer it may have opened. Raw text (--input text) goes through the
// tokenizer called tokName (characters for a segmentation model) and sets
// o.text.
func (a *app) tagReader(ctx context.Context, tg *tagger.Tagger, in io.Reader, file, tokName string, o *tagOptions) (corpus.Reader, func(), error) {
	if o.input != tagger.Text {
		r, err := tg.NewReader(in, file, o.input)
		return r, func() {}, err
	}
	if err := tg.CheckPlain(); err != nil {
		return nil, nil, err
	}
	tin, err := tg.TokenInput()
	if err != nil {
		return nil, nil, err
	}
	tok, done, err := a.textTokenizer(ctx, tg, tokName)
	if err != nil {
		return nil, nil, err
	}
	o.text = tokenize.NewSentences(tokenize.NewReader(in, file, tok), tin)
	return o.text, done, nil
}

// resolveOutput turns --output auto into what the input asks for.
func resolveOutput(flag string, o tagOptions, tg *tagger.Tagger) (string, error) {
	switch flag {
	case "tsv", "json":
		if tg.WordColumn() < 0 {
			return "", usagef("--output %s shows tokens, and the model's format (%s) has no word column: its rows are attributes", flag, tg.Format.Name())
		}
		return flag, nil
	case "auto":
	default:
		return "", usagef("--output must be auto, tsv or json, got %q", flag)
	}
	chars := tg.Format.Name() == corpus.NameChars
	switch {
	case chars && o.detailed():
		// Segmented words have no place for per-character marginals or
		// labels: char<TAB>label<TAB>marginal has.
		return "tsv", nil
	case chars:
		return "words", nil
	case o.input == tagger.Corpus:
		return "corpus", nil
	}
	return "tsv", nil
}

func ptr[T any](v T) *T { return &v }

// parseConstrained reads --constrained: nil for auto (the model's
// setting), else on or off.
func parseConstrained(flag string) (*bool, error) {
	switch flag {
	case "auto":
		return nil, nil
	case "on", "true":
		return ptr(true), nil
	case "off", "false":
		return ptr(false), nil
	}
	return nil, usagef("--constrained must be auto, on or off, got %q", flag)
}

// tagTo tags every sentence of r and writes it to w as o.output says.
func tagTo(ctx context.Context, tg *tagger.Tagger, r corpus.Reader, w *bufio.Writer, o tagOptions) error {
	if (o.output == "corpus" || o.output == "words") && !o.detailed() {
		// The plain path: labels only, in the format's own layout
		// (segmented words for chars), buffers reused; raw text's offsets
		// are dropped as each sentence is tagged.
		var drop func(*corpus.Sentence, []string)
		if o.text != nil {
			drop = func(s *corpus.Sentence, _ []string) { o.text.Offsets(s) }
		}
		_, err := tg.StreamParallel(ctx, r, tg.Format.NewWriter(w), nil, drop, o.replicas)
		return err
	}
	var write func(s *corpus.Sentence, d *tagger.Decoded) error
	switch o.output {
	case "corpus":
		write = detailedWriter(tg, w, o)
	case "tsv":
		write = tsvWriter(w, tg.WordColumn(), o)
	case "json":
		write = jsonWriter(w, tg, o)
	}
	if o.text != nil && o.output != "json" {
		// Only json shows the offsets; they are dropped as each sentence
		// is written, so the reader keeps none.
		inner := write
		write = func(s *corpus.Sentence, d *tagger.Decoded) error {
			o.text.Offsets(s)
			return inner(s, d)
		}
	}
	if err := eachDecoded(ctx, tg, r, o, write); err != nil {
		return err
	}
	return nil
}

// eachDecoded tags r batch by batch and hands every sentence with its
// decoding to fn: with o's k best paths and marginals when asked, else
// the Viterbi labels alone (through Stream, the fast path).
func eachDecoded(ctx context.Context, tg *tagger.Tagger, r corpus.Reader, o tagOptions, fn func(*corpus.Sentence, *tagger.Decoded) error) error {
	if !o.detailed() {
		var werr error
		d := &tagger.Decoded{Paths: make([][]string, 1)}
		_, err := tg.StreamParallel(ctx, r, nil, nil, func(s *corpus.Sentence, pred []string) {
			if werr == nil {
				d.Paths[0] = pred
				werr = fn(s, d)
			}
		}, o.replicas)
		if err == nil {
			err = werr
		}
		return err
	}
	return tg.Batches(ctx, r, func(batch []*corpus.Sentence) error {
		decoded, err := tg.TagDetailed(batch, o.nbest)
		if err != nil {
			return err
		}
		for j, s := range batch {
			if err := fn(s, &decoded[j]); err != nil {
				return err
			}
		}
		return nil
	})
}

// detailedWriter writes the k best labels and the marginals in the
// model's own format, so that the output stays a column file: every token
// line gets the best label, its marginal (with --marginals), then the
// 2nd..kth best labels ("_" where a sentence has fewer sequences), as
// further columns. The sequences' scores and probabilities have no place
// in a CoNLL file; CoNLL-U gets them as comment lines ("# rank=1 score=…
// probability=…") after the sentence's own comments, and --output json has them for
// every format. The slash format, one sentence a line, gets one line per
// rank after such a comment line.
func detailedWriter(tg *tagger.Tagger, w *bufio.Writer, o tagOptions) func(*corpus.Sentence, *tagger.Decoded) error {
	cw := tg.Format.NewWriter(w)
	format := tg.Format.Name()
	comments := func(d *tagger.Decoded) {
		for rank := range d.Paths {
			fmt.Fprintf(w, "# rank=%d score=%.6f probability=%.6f\n", rank+1, d.Scores[rank], d.Probabilities[rank])
		}
	}
	if format == corpus.NameSlash {
		return func(s *corpus.Sentence, d *tagger.Decoded) error {
			comments(d)
			for _, path := range d.Paths {
				if err := cw.Write(s, path); err != nil {
					return err
				}
			}
			return cw.Flush()
		}
	}
	sep := columnSeparator(tg.Model.Format)
	var parts []string
	return func(s *corpus.Sentence, d *tagger.Decoded) error {
		if format == corpus.NameCoNLLU {
			s = withRankComments(s, d)
		}
		cols := make([]string, s.Len())
		for i := range cols {
			parts = append(parts[:0], d.Paths[0][i])
			if o.marginals {
				parts = append(parts, strconv.FormatFloat(d.Marginals[i], 'f', 6, 64))
			}
			for rank := 1; rank < o.nbest; rank++ {
				if rank < len(d.Paths) {
					parts = append(parts, d.Paths[rank][i])
				} else {
					parts = append(parts, "_")
				}
			}
			line := ""
			if s.TokenLine != nil {
				line = s.Lines[s.TokenLine[i]]
			}
			cols[i] = strings.Join(parts, sep(line))
		}
		if err := cw.Write(s, cols); err != nil {
			return err
		}
		return cw.Flush()
	}
}

// withRankComments is s with a "# rank=K score=… probability=…" comment
// line per path of d after its own leading comments (# newdoc, # sent_id,
// # text), so that these still open the sentence; s itself is unchanged.
func withRankComments(s *corpus.Sentence, d *tagger.Decoded) *corpus.Sentence {
	if len(s.Lines) == 0 || len(s.TokenLine) != len(s.Tokens) {
		return s // built in code: the writer writes its columns only
	}
	head := 0
	for head < len(s.Lines) && strings.HasPrefix(s.Lines[head], "#") {
		head++
	}
	ranks := make([]string, len(d.Paths))
	for rank := range d.Paths {
		ranks[rank] = fmt.Sprintf("# rank=%d score=%.6f probability=%.6f", rank+1, d.Scores[rank], d.Probabilities[rank])
	}
	c := *s
	c.Lines = slices.Concat(s.Lines[:head], ranks, s.Lines[head:])
	c.TokenLine = make([]int, len(s.TokenLine))
	for i, l := range s.TokenLine {
		c.TokenLine[i] = l
		if l >= head {
			c.TokenLine[i] += len(ranks)
		}
	}
	return &c
}

// columnSeparator returns how the format's writer separates the label it
// appends from a token line (see corpus.Writer), so that further columns
// are separated the same way: the conll separator if one is set, else a
// tab when the line holds one and a space otherwise; a tab for conllu and
// crfsuite.
func columnSeparator(cfg corpus.Config) func(line string) string {
	switch {
	case cfg.Name != corpus.NameCoNLL:
		return func(string) string { return "\t" }
	case cfg.Separator == "\t" || cfg.Separator == "tab":
		return func(string) string { return "\t" }
	case cfg.Separator == " " || cfg.Separator == "space":
		return func(string) string { return " " }
	}
	return func(line string) string {
		if strings.Contains(line, "\t") {
			return "\t"
		}
		return " "
	}
}

// tsvWriter writes token<TAB>label per token and a blank line after each
// sentence; with --marginals the best label's marginal follows it, with
// --nbest K the labels of the 2nd..Kth best sequences follow ("_" where a
// sentence has fewer sequences).
func tsvWriter(w *bufio.Writer, word int, o tagOptions) func(*corpus.Sentence, *tagger.Decoded) error {
	var num []byte
	return func(s *corpus.Sentence, d *tagger.Decoded) error {
		for i, row := range s.Tokens {
			w.WriteString(row[word])
			w.WriteByte('\t')
			w.WriteString(d.Paths[0][i])
			if o.marginals {
				num = strconv.AppendFloat(num[:0], d.Marginals[i], 'f', 6, 64)
				w.WriteByte('\t')
				w.Write(num)
			}
			for rank := 1; rank < o.nbest; rank++ {
				w.WriteByte('\t')
				if rank < len(d.Paths) {
					w.WriteString(d.Paths[rank][i])
				} else {
					w.WriteByte('_')
				}
			}
			w.WriteByte('\n')
		}
		return w.WriteByte('\n')
	}
}

// jsonWriter writes one JSON object per sentence and line: an
// annotate.Sentence, with offsets for raw text.
func jsonWriter(w *bufio.Writer, tg *tagger.Tagger, o tagOptions) func(*corpus.Sentence, *tagger.Decoded) error {
	word := tg.WordColumn()
	kind, sch := annotate.KindOf(tg), tg.Scheme()
	return func(s *corpus.Sentence, d *tagger.Decoded) error {
		var text *tokenize.Sentence
		if o.text != nil {
			if t, ok := o.text.Offsets(s); ok {
				text = &t
			}
		}
		words := make([]string, s.Len())
		for i, row := range s.Tokens {
			words[i] = row[word]
		}
		js := annotate.New(words, d.Paths[0], kind, sch, text)
		if o.marginals {
			js.Marginals = d.Marginals
			js.Probability = tagger.Finite(d.Probabilities[0])
		}
		if o.nbest > 1 {
			var segment func([]string) []string
			if kind == annotate.Words {
				segment = func(labels []string) []string { return corpus.WordsFromLabels(words, labels) }
			}
			js.NBest = d.Ranked(segment)
		}
		return writeJSONLine(w, js)
	}
}

// writeJSONLine writes v as one line of JSON with <, > and & as they are
// (json.Marshal escapes them for HTML): every JSON-lines output of the
// commands goes through it, so a single model and a pipeline print the
// same bytes.
func writeJSONLine(w *bufio.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
