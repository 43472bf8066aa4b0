package main

// This file holds the DoFns that read and tag: readFn cuts a file into
// units (sentences, or paragraphs of raw text), tagFn tags them with the
// job's models and renders them as trellis tag prints them.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/pipeline"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/tagger"
	"github.com/trellis-nlp/trellis/framework/tokenize"
)

// Counter names (namespace "trellis"), read back by report.
const (
	counterSentences = "sentences"
	counterTokens    = "tokens"
)

var (
	sentencesTagged = beam.NewCounter("trellis", counterSentences)
	tokensTagged    = beam.NewCounter("trellis", counterTokens)
)

// newFormat rebuilds the model's corpus format from its JSON config.
func newFormat(config string) (corpus.Format, error) {
	var cfg corpus.Config
	if err := json.Unmarshal([]byte(config), &cfg); err != nil {
		return nil, fmt.Errorf("format config: %w", err)
	}
	return corpus.New(cfg)
}

// readFn reads one file and emits its units: the sentences of corpus
// input (in the last model's format) or of tokens input, or the
// paragraphs of raw text. Data errors stop the pipeline with file:line,
// as in trellis tag.
type readFn struct {
	Job job

	format corpus.Format // corpus input only
}

func (f *readFn) Setup() (err error) {
	if f.Job.Input == tagger.Corpus {
		f.format, err = newFormat(f.Job.Format)
	}
	return err
}

func (f *readFn) ProcessElement(ctx context.Context, file fileio.ReadableFile, emit func(Unit)) error {
	rc, err := file.Open(ctx)
	if err != nil {
		return err
	}
	defer rc.Close()
	name := file.Metadata.Path
	if f.Job.Input == tagger.Text {
		return readParagraphs(rc, name, emit)
	}
	r := corpus.NewTokensReader(rc, name, 1, 0)
	if f.format != nil {
		r = f.format.NewReader(rc, name, readOptions(f.Job.Gold))
	}
	for {
		s, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		text := strings.Join(s.Lines, "\n")
		if s.DocLine != "" {
			text = s.DocLine + "\n" + text
		}
		emit(Unit{File: name, Line: s.Line, Text: text})
	}
}

// readParagraphs emits the paragraphs of raw text r (tokenize.Paragraphs:
// those a tokenize.Reader tokenizes one at a time) that hold more than
// white space.
func readParagraphs(r io.Reader, file string, emit func(Unit)) error {
	ps := tokenize.NewParagraphs(r, file)
	for {
		p, err := ps.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if strings.TrimFunc(p.Text, corpus.IsTextSpace) != "" {
			emit(Unit(p))
		}
	}
}

// tagFn tags units. Setup loads the models and starts the plugins they
// were trained with, once per DoFn instance (a runner keeps an instance
// per worker thread and reuses it across bundles); Teardown stops them.
type tagFn struct {
	Job job

	c    *chain
	out  *writer
	word int
	// in is one model's column layout, for raw text.
	in tagger.TokenInput
	// cols are the last model's columns, for --eval.
	cols    eval.Columns
	pending []item
}

func (f *tagFn) Setup(ctx context.Context) error {
	c, err := openChain(ctx, f.Job)
	if err != nil {
		return err
	}
	f.c, f.out, f.word = c, newWriter(f.Job.Output, c), c.wordColumn(f.Job.Input)
	if f.Job.Input == tagger.Text && c.p == nil {
		if f.in, err = c.stages[0].TokenInput(); err != nil {
			return err
		}
	}
	last := c.last()
	sch, err := scheme.Parse(last.Model.Scheme) // the corpus's: trellis eval's
	if err != nil {
		return err
	}
	f.cols = eval.Columns{Label: last.Format.LabelColumn(), Word: last.WordColumn(), Segmentation: sch.IsSegmentation()}
	if v := last.Vocabulary(); v != nil {
		f.cols.Vocabulary = v // not a typed nil
	}
	return nil
}

func (f *tagFn) Teardown() error {
	if f.c == nil {
		return nil
	}
	err := f.c.close()
	f.c = nil
	return err
}

// ProcessElement queues the unit's sentences; a full batch is tagged at
// once, as trellis tag does (one encoder pass, one request per plugin),
// the rest when the bundle ends.
func (f *tagFn) ProcessElement(ctx context.Context, u Unit, emit func(string), score func(Scored)) error {
	if err := f.queue(u); err != nil {
		return err
	}
	if len(f.pending) < tagger.BatchSize {
		return nil
	}
	return f.flush(ctx, emit, score)
}

func (f *tagFn) FinishBundle(ctx context.Context, emit func(string), score func(Scored)) error {
	return f.flush(ctx, emit, score)
}

// queue parses the unit into the sentences it holds and queues them: a
// sentence read again, or the sentences a paragraph of raw text
// tokenizes into.
func (f *tagFn) queue(u Unit) error {
	if f.Job.Input != tagger.Text {
		s, err := f.parse(u)
		if err != nil {
			return err
		}
		it := item{file: u.File, s: s}
		if f.Job.Output != formatOutput {
			it.words = wordsOf(s, f.word)
		}
		f.pending = append(f.pending, it)
		return nil
	}
	sents, lines, err := tokenize.Paragraph(u).Tokenize(f.c.tok)
	if err != nil {
		return err
	}
	for k := range sents {
		it := item{file: u.File, words: sents[k].Words(), text: &sents[k]}
		if f.c.p == nil {
			it.s = f.in.Sentence(it.words, nil)
			it.s.File, it.s.Line = u.File, lines[k]
		}
		f.pending = append(f.pending, it)
	}
	return nil
}

// flush tags the queued sentences and emits, for each, the lines trellis
// tag prints for it (and, with --eval, its labels).
func (f *tagFn) flush(ctx context.Context, emit func(string), score func(Scored)) error {
	if len(f.pending) == 0 {
		return nil
	}
	labels, err := f.c.tag(f.pending)
	if err != nil {
		return err
	}
	tokens := 0
	for k, it := range f.pending {
		mine := pipeline.Of(labels, k)
		text, err := f.out.write(it, mine)
		if err != nil {
			return err
		}
		emit(text)
		tokens += len(mine[0])
		if f.Job.Gold == scoreGold {
			score(f.scored(it.s, mine[len(mine)-1]))
		}
	}
	sentencesTagged.Inc(ctx, int64(len(f.pending)))
	tokensTagged.Inc(ctx, int64(tokens))
	clear(f.pending)
	f.pending = f.pending[:0]
	return nil
}

// scored is a tagged sentence's gold and predicted labels, whether each
// word is unknown to the model, and the tokens for segmentation, as
// trellis eval collects them.
func (f *tagFn) scored(s *corpus.Sentence, pred []string) Scored {
	es := eval.NewSentence(s.Tokens, pred, f.cols)
	return Scored{Gold: es.Gold, Pred: es.Pred, OOV: es.OOV, Chars: es.Chars}
}

// parse reads a sentence unit back into a sentence whose line numbers
// are the input file's.
func (f *tagFn) parse(u Unit) (*corpus.Sentence, error) {
	r, err := f.c.sentenceReader(strings.NewReader(u.Text), u.File, f.Job)
	if err != nil {
		return nil, err
	}
	s, err := r.Read()
	if err == nil && s == nil {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		var de *corpus.Error
		if errors.As(err, &de) {
			de.Line += u.Line - 1
		}
		return nil, fmt.Errorf("%s:%d: sentence read again: %w", u.File, u.Line, err)
	}
	delta := u.Line - s.Line
	s.Line = u.Line
	for i := range s.TokenLineNo {
		s.TokenLineNo[i] += delta
	}
	return s, nil
}
