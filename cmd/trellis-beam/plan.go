package main

// This file holds the launcher's checks: the flags and the models turned
// into the job the workers run, so that every mistake is found before a
// worker starts.

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// defaultTokenizer splits --input-format text when no --tokenizer is
// given, as in trellis tag.
const defaultTokenizer = "en-tokenizer"

// outputMode is what the shards hold.
type outputMode string

const (
	// formatOutput is the model's own corpus writer: trellis tag's output
	// for corpus input, and a segmentation model's segmented words.
	formatOutput outputMode = "format"
	// tsvOutput is token<TAB>label (a label per model), a blank line
	// after each sentence.
	tsvOutput outputMode = "tsv"
	// jsonOutput is an annotate.Sentence per line, with its file.
	jsonOutput outputMode = "json"
)

// gold says whether the input's gold labels are read and scored.
type gold int

const (
	// noGold: labels may be absent, and are not scored.
	noGold gold = iota
	// scoreGold (--eval): every token has its label, and it is scored.
	scoreGold
)

// readOptions are the corpus reader's options: labels may be absent
// unless they are scored.
func readOptions(g gold) corpus.ReadOptions {
	return corpus.ReadOptions{LabelOptional: g == noGold}
}

// job is the run as the workers do it, checked and resolved by the
// launcher (plan) and carried inside the DoFns.
type job struct {
	// Models are the chain, in order: paths or shipped models' names.
	Models []string
	Input  tagger.Input
	Output outputMode
	// Tokenizer names what splits raw text (a tokenizer model, rules,
	// lines or chars); "" for other input.
	Tokenizer string
	// Format is the last model's corpus.Config as JSON, which corpus
	// input is read in; Scheme is its label scheme.
	Format, Scheme string
	Gold           gold
}

// last is the model whose labels are the output's (and scored).
func (j job) last() string { return j.Models[len(j.Models)-1] }

// plan checks the flags, loads every model once (a wrong path, a missing
// producer, a model that cannot read the input fail here) and returns
// the job.
func plan(ctx context.Context, o options) (job, error) {
	if err := checkFlags(o); err != nil {
		return job{}, err
	}
	j := job{Models: o.models, Gold: noGold}
	in, err := tagger.ParseInput(o.inputFormat)
	if err != nil {
		return job{}, usagef("--input-format: %v", err)
	}
	j.Input = in
	switch {
	case o.tokenizer != "" && in != tagger.Text:
		return job{}, usagef("--tokenizer splits raw text: it takes --input-format text (the input is %s)", in)
	case in == tagger.Text:
		j.Tokenizer = cmp.Or(o.tokenizer, defaultTokenizer)
	}
	if o.eval {
		if in != tagger.Corpus {
			return job{}, usagef("--eval scores gold labels, which only --input-format corpus has (the input is %s)", in)
		}
		j.Gold = scoreGold
	}
	c, err := openChain(ctx, j)
	if err != nil {
		return job{}, err
	}
	defer c.close()
	if j.Output, err = resolveOutput(o.outputFormat, j, c); err != nil {
		return job{}, err
	}
	last := c.last()
	if o.eval && last.Format.LabelColumn() < 0 {
		return job{}, fmt.Errorf("%s: the model's format has no label column to evaluate against", j.last())
	}
	if _, err := scheme.Parse(last.Model.Scheme); err != nil {
		return job{}, fmt.Errorf("%s: %w", j.last(), err)
	}
	cfg, err := json.Marshal(last.Model.Format)
	if err != nil {
		return job{}, err
	}
	j.Format, j.Scheme = string(cfg), last.Model.Scheme
	return j, nil
}

// checkFlags checks the flags that need no model.
func checkFlags(o options) error {
	switch {
	case len(o.args) > 0:
		return usagef("unexpected argument %q (the input is given with --input)", o.args[0])
	case len(o.models) == 0:
		return usagef("--model is required")
	case o.input == "":
		return usagef("--input is required")
	case o.output == "":
		return usagef("--output is required")
	case o.shards < 1 || o.shards > 99999:
		return usagef("--shards must be between 1 and 99999")
	}
	return nil
}

// resolveOutput turns --output-format into the output mode, as trellis
// tag turns its --output: auto is the model's own format for one model
// reading corpus input, or a segmentation model (its segmented words),
// and tsv otherwise; tsv and json show tokens, which need a word column.
func resolveOutput(flag string, j job, c *chain) (outputMode, error) {
	one := c.p == nil
	switch flag {
	case "tsv", "json":
		if tg := c.last(); one && tg.WordColumn() < 0 {
			return "", usagef("--output-format %s shows tokens, and the model's format (%s) has no word column: its rows are attributes", flag, tg.Format.Name())
		}
		return outputMode(flag), nil
	case "auto":
	default:
		return "", usagef("--output-format must be auto, tsv or json, got %q", flag)
	}
	if one && (j.Input == tagger.Corpus || c.last().Format.Name() == corpus.NameChars) {
		return formatOutput, nil
	}
	return tsvOutput, nil
}
