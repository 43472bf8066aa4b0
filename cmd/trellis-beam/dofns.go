package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/plugin"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/tagger"
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

// readOptions are the reader's options: labels may be absent unless they
// are scored.
func readOptions(labelled bool) corpus.ReadOptions {
	return corpus.ReadOptions{LabelOptional: !labelled}
}

// readFn reads one file in the model's format and emits its sentences.
// Data errors stop the pipeline with file:line, as in `trellis tag`.
type readFn struct {
	Format   string // corpus.Config as JSON
	Labelled bool

	format corpus.Format
}

func (f *readFn) Setup() (err error) {
	f.format, err = newFormat(f.Format)
	return err
}

func (f *readFn) ProcessElement(ctx context.Context, file fileio.ReadableFile, emit func(Sentence)) error {
	rc, err := file.Open(ctx)
	if err != nil {
		return err
	}
	defer rc.Close()
	name := file.Metadata.Path
	r := f.format.NewReader(rc, name, readOptions(f.Labelled))
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
		emit(Sentence{File: name, Line: s.Line, Text: text})
	}
}

// tagFn tags sentences. Setup loads the model and starts the plugins it
// was trained with, once per DoFn instance (a runner keeps an instance per
// worker thread and reuses it across bundles); Teardown stops them.
type tagFn struct {
	Model    string
	Labelled bool

	tg       *tagger.Tagger
	labelCol int
	seg      bool
	vocab    *tagger.Vocabulary // nil when the model does not tell its words
	word     int
	buf      bytes.Buffer
	w        corpus.Writer
	pending  []*corpus.Sentence
}

// newTagger loads the model at path and builds its tagger, with the
// plugins it was trained with started (the tagger's Close stops them).
func newTagger(ctx context.Context, path string) (*tagger.Tagger, error) {
	m, err := loadModel(ctx, path)
	if err != nil {
		return nil, err
	}
	templates, _ := builtin.Registries()
	host := plugin.NewHost(plugin.Options{
		Log:                zerolog.New(os.Stderr).With().Timestamp().Logger(),
		Path:               filepath.SplitList(os.Getenv("TRELLIS_PLUGIN_PATH")),
		AllowVersionChange: os.Getenv("TRELLIS_ALLOW_PLUGIN_VERSION_CHANGE") == "1",
	})
	host.Register(templates)
	tg, err := tagger.New(m, templates, tagger.Options{})
	if err != nil {
		host.Close()
		return nil, err
	}
	tg.OnClose(host.Close)
	return tg, nil
}

func (f *tagFn) Setup(ctx context.Context) error {
	tg, err := newTagger(ctx, f.Model)
	if err != nil {
		return err
	}
	f.tg = tg
	if err := checkTagger(tg, f.Model); err != nil {
		return err
	}
	f.labelCol = tg.Format.LabelColumn()
	sch, err := scheme.Parse(tg.Model.Scheme)
	if err != nil {
		return err
	}
	f.seg = sch.IsSegmentation()
	f.vocab, f.word = tg.Vocabulary(), tg.WordColumn()
	f.w = tg.Format.NewWriter(&f.buf)
	return nil
}

func (f *tagFn) Teardown() error {
	if f.tg == nil {
		return nil
	}
	err := f.tg.Close()
	f.tg = nil
	return err
}

// ProcessElement parses the sentence again and queues it; a full batch
// is tagged at once, as `trellis tag` does (one encoder pass, one request
// per plugin), the rest when the bundle ends.
func (f *tagFn) ProcessElement(ctx context.Context, in Sentence, emit func(string), score func(Scored)) error {
	s, err := f.parse(in)
	if err != nil {
		return err
	}
	f.pending = append(f.pending, s)
	if len(f.pending) < tagger.BatchSize {
		return nil
	}
	return f.flush(ctx, emit, score)
}

func (f *tagFn) FinishBundle(ctx context.Context, emit func(string), score func(Scored)) error {
	return f.flush(ctx, emit, score)
}

// flush tags the queued sentences and emits, for each, the lines `trellis
// tag` writes for it (and, with --eval, its labels).
func (f *tagFn) flush(ctx context.Context, emit func(string), score func(Scored)) error {
	if len(f.pending) == 0 {
		return nil
	}
	preds, err := f.tg.Tag(f.pending)
	if err != nil {
		return err
	}
	tokens := 0
	for k, s := range f.pending {
		f.buf.Reset()
		if err := f.w.Write(s, preds[k]); err != nil {
			return err
		}
		if err := f.w.Flush(); err != nil {
			return err
		}
		emit(f.buf.String())
		tokens += s.Len()
		if f.Labelled {
			score(f.scored(s, preds[k]))
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
// `trellis eval` collects them.
func (f *tagFn) scored(s *corpus.Sentence, pred []string) Scored {
	cols := eval.Columns{Label: f.labelCol, Word: f.word, Segmentation: f.seg}
	if f.vocab != nil {
		cols.Vocabulary = f.vocab
	}
	es := eval.NewSentence(s.Tokens, pred, cols)
	return Scored{Gold: es.Gold, Pred: es.Pred, OOV: es.OOV, Chars: es.Chars}
}

// parse reads in's text back into a sentence whose line numbers are the
// input file's.
func (f *tagFn) parse(in Sentence) (*corpus.Sentence, error) {
	r := f.tg.Format.NewReader(strings.NewReader(in.Text), in.File, readOptions(f.Labelled))
	s, err := r.Read()
	if err == nil && s == nil {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		var de *corpus.Error
		if errors.As(err, &de) {
			de.Line += in.Line - 1
		}
		return nil, fmt.Errorf("%s:%d: sentence read again: %w", in.File, in.Line, err)
	}
	delta := in.Line - s.Line
	s.Line = in.Line
	for i := range s.TokenLineNo {
		s.TokenLineNo[i] += delta
	}
	return s, nil
}
