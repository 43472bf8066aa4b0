package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/plural"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

func explainCommand() command {
	return command{
		Name:    "explain",
		Usage:   []string{"--model MODEL [FILE|-] [--top K] [--json] [--input corpus|text|tokens] [--constrained auto|on|off]"},
		Summary: "show why a model gives each token its label",
		Description: "Tags FILE (stdin when it is absent or -) as `trellis tag` does and prints, per token, the predicted label and its score split into " +
			"the K largest state-feature contributions (value × weight; the others summed), the transition from the previous label, and start and stop; " +
			"the margin over the runner-up label with the neighbouring labels fixed; and, for CRF and HMM models, the marginal probability. " +
			"The parts add up to the sequence score. --json prints one object per sentence with every number at full precision. " +
			"--input reads the model's corpus format (the default), raw text (split by --tokenizer) or one token per line, as in `trellis tag`.",
		Run: (*app).cmdExplain,
	}
}

// cmdExplain prints, per token, why the model chose its label: the
// largest state-feature contributions, the transition, start and stop
// terms, the margin over the runner-up label with the neighbours fixed,
// and the marginal probability for CRF and HMM models. The labels are
// decoded by the tagger exactly as `trellis tag` decodes them.
func (a *app) cmdExplain(ctx context.Context, args []string) error {
	fs := newFlagSet("explain", a.stderr)
	modelPath := fs.String("model", "", "the `MODEL` file")
	top := fs.Int("top", 5, "`K` state features shown per token, largest |value × weight| first (0: all)")
	asJSON := fs.Bool("json", false, "one JSON object per sentence instead of text")
	constrained := fs.String("constrained", "auto", "constrained decoding for span schemes: `auto|on|off` (auto: the model's setting)")
	inputFlag := fs.String("input", "corpus", "what FILE holds: `corpus|text|tokens` (corpus: the model's own format)")
	tokName := fs.String("tokenizer", defaultTokenizer, "what splits --input text: a tokenizer `MODEL` file or shipped model name, or rules, lines or chars")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if *top < 0 {
		return usagef("--top must be 0 (all) or more, got %d", *top)
	}
	if len(pos) > 1 {
		return usagef("explain takes at most one input file")
	}
	input, err := tagger.ParseInput(*inputFlag)
	if err != nil {
		return usagef("--input: %v", err)
	}
	if err := checkTokenizerFlag(fs, input); err != nil {
		return err
	}
	var opt tagger.Options
	if opt.Constrained, err = parseConstrained(*constrained); err != nil {
		return err
	}
	tg, err := a.loadTagger(ctx, *modelPath, opt)
	if err != nil {
		return err
	}
	defer tg.Close()
	in, name, done, err := a.openInput(pos, "explaining")
	if err != nil {
		return err
	}
	defer done()
	o := tagOptions{input: input}
	r, closeTok, err := a.tagReader(ctx, tg, in, name, *tokName, &o)
	var ce *tagger.ColumnsError
	if errors.As(err, &ce) {
		return usagef("--input %s: %v", input, err)
	} else if err != nil {
		return err
	}
	defer closeTok()
	if o.text != nil {
		r = untracked{o.text} // explain shows no offsets
	}
	w := bufio.NewWriterSize(a.stdout, 1<<16)
	x := explainer{tg: tg, w: w, top: *top, json: *asJSON, word: tg.WordColumn()}
	err = x.stream(ctx, r)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return err
}

// explainer writes the explanations of a stream of sentences.
type explainer struct {
	tg   *tagger.Tagger
	w    *bufio.Writer
	top  int
	json bool
	// word is the column shown as the token (-1: the format has none,
	// the tokens are numbered instead).
	word int
	// sentences counts the sentences written, for the text headers.
	sentences int
}

func (x *explainer) stream(ctx context.Context, r corpus.Reader) error {
	return x.tg.Batches(ctx, r, func(batch []*corpus.Sentence) error {
		exps, err := x.tg.Explain(batch, x.top)
		if err != nil {
			return err
		}
		for k, s := range batch {
			if err := x.write(s, exps[k]); err != nil {
				return err
			}
		}
		return nil
	})
}

// explainedSentence is the JSON form of one sentence: its words beside
// the tagger's explanation.
type explainedSentence struct {
	Words []string `json:"words,omitempty"` // none for the crfsuite format
	tagger.Explanation
}

func (x *explainer) write(s *corpus.Sentence, ex tagger.Explanation) error {
	x.sentences++
	words := make([]string, s.Len())
	for i := range words {
		if x.word >= 0 {
			words[i] = s.Tokens[i][x.word]
		} else {
			words[i] = strconv.Itoa(i + 1)
		}
	}
	if x.json {
		js := explainedSentence{Words: words, Explanation: ex}
		if x.word < 0 {
			js.Words = nil
		}
		return writeJSONLine(x.w, js)
	}
	width := 0
	for _, w := range words {
		// fmt pads by runes.
		width = max(width, utf8.RuneCountInString(w))
	}
	fmt.Fprintf(x.w, "# sentence %d (%s:%d): score %.4f\n", x.sentences, s.File, s.Line, ex.Score)
	for i, te := range ex.Tokens {
		fmt.Fprintf(x.w, "%-*s  %-8s score %9.4f", width, words[i], te.Label, te.Score)
		if te.Margin != nil {
			fmt.Fprintf(x.w, "  margin %8.4f over %s", *te.Margin, te.RunnerUp)
		} else {
			fmt.Fprintf(x.w, "  (no other label allowed)")
		}
		if te.Marginal != nil {
			fmt.Fprintf(x.w, "  p %.4f", *te.Marginal)
		}
		x.w.WriteByte('\n')
		for _, c := range te.Features {
			if c.Value == 1 {
				fmt.Fprintf(x.w, "    %+9.4f  %s\n", c.Score, c.Attr)
			} else {
				fmt.Fprintf(x.w, "    %+9.4f  %s (%g × %.4f)\n", c.Score, c.Attr, c.Value, c.Weight)
			}
		}
		if te.RestCount > 0 {
			fmt.Fprintf(x.w, "    %+9.4f  (%s)\n", te.Rest, plural.Count(te.RestCount, "more feature"))
		}
		if te.Encoder != nil {
			fmt.Fprintf(x.w, "    %+9.4f  encoder\n", *te.Encoder)
		}
		if te.Start != nil {
			fmt.Fprintf(x.w, "    %+9.4f  start → %s\n", *te.Start, te.Label)
		}
		if te.Trans != nil {
			// The transition weight, then each input-conditioned
			// transition (a pair feature) of the same bigram.
			shared := *te.Trans
			for _, c := range te.TransFeatures {
				shared -= c.Score
			}
			fmt.Fprintf(x.w, "    %+9.4f  transition %s → %s\n", shared, ex.Labels[i-1], te.Label)
			for _, c := range te.TransFeatures {
				fmt.Fprintf(x.w, "    %+9.4f  %s × %s → %s\n", c.Score, c.Attr, ex.Labels[i-1], te.Label)
			}
		}
		if te.Trigram != nil {
			fmt.Fprintf(x.w, "    %+9.4f  trigram %s %s → %s\n", *te.Trigram, previousLabel(ex.Labels, i-2), ex.Labels[i-1], te.Label)
		}
		if te.Stop != nil {
			fmt.Fprintf(x.w, "    %+9.4f  %s → stop\n", *te.Stop, te.Label)
		}
		if te.StopTrigram != nil {
			fmt.Fprintf(x.w, "    %+9.4f  trigram %s %s → stop\n", *te.StopTrigram, previousLabel(ex.Labels, i-1), te.Label)
		}
	}
	return x.w.WriteByte('\n')
}

// previousLabel is labels[j], or "start" before the first token.
func previousLabel(labels []string, j int) string {
	if j < 0 {
		return "start"
	}
	return labels[j]
}
