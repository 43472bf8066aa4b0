package trellis

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/pretrained"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// Model is a trained model ready to tag. Its methods are safe for
// concurrent use; tagging calls are serialized (one tagger per Model: for
// parallel tagging, load one Model per goroutine). Close releases it;
// a call after Close (or racing with it and losing) returns ErrClosed.
type Model struct {
	file   *model.Model
	mu     sync.Mutex
	tg     *tagger.Tagger
	closed bool
	// seq orders the models by creation: a Pipeline takes their locks
	// in this order.
	seq uint64
}

// models counts the models made, for Model.seq.
var models atomic.Uint64

// ErrClosed is what a Model's tagging methods return after Close.
var ErrClosed = errors.New("trellis: the model is closed")

// lock takes the model for one tagging call and returns its tagger; the
// caller unlocks m.mu. A closed model gives ErrClosed: Close waits for the
// call in progress, so no call tags on a released tagger.
func (m *Model) lock() (*tagger.Tagger, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrClosed
	}
	return m.tg, nil
}

// onSentence runs one of the tagger's batch methods (Tag, Marginals,
// Explain) on sentence s alone, holding the model's lock (so ErrClosed
// after Close), and returns its one result.
func onSentence[R any](m *Model, s *corpus.Sentence, f func(*tagger.Tagger, []*corpus.Sentence) ([]R, error)) (R, error) {
	var zero R
	tg, err := m.lock()
	if err != nil {
		return zero, err
	}
	defer m.mu.Unlock()
	out, err := f(tg, []*corpus.Sentence{s})
	if err != nil {
		return zero, err
	}
	return out[0], nil
}

// Load reads a model file: one saved by Model.Save or written by
// `trellis run` (RUN/models/NAME.model), or, where no file has that
// path, the shipped model of that name (`trellis models` lists them).
func Load(path string) (*Model, error) {
	m, err := pretrained.Open(path)
	if err != nil {
		return nil, err
	}
	return newModel(m)
}

// newModel wraps a model file in a tagger over the builtin templates.
func newModel(m *model.Model) (*Model, error) {
	templates, learners := builtin.Registries()
	tg, err := tagger.New(m, templates, tagger.Options{Learners: learners})
	if err != nil {
		return nil, err
	}
	return &Model{file: m, tg: tg, seq: models.Add(1)}, nil
}

// Save writes the model file to path atomically (a temporary file renamed
// into place), in the format `trellis tag` reads.
func (m *Model) Save(path string) error { return model.Save(path, m.file) }

// Labels returns the labels the model predicts.
func (m *Model) Labels() []string { return slices.Clone(m.file.Labels) }

// Columns returns the model's input columns in order, the label column
// included: what each row given to TagRows holds.
func (m *Model) Columns() []string { return slices.Clone(m.tg.Format.Columns()) }

// Learner returns the type of learner that trained the model ("hmm",
// "perceptron" or "crf").
func (m *Model) Learner() string { return m.file.Learner.Type }

// Tag labels one sentence given as its tokens, which fill the model's
// word column. It needs a model whose templates read only the word (those
// Train makes, and spec models without POS or chunk features); for
// others it returns a *tagger.ColumnsError naming the columns they read,
// and TagRows takes every column. An empty sentence gives an empty
// result.
func (m *Model) Tag(tokens []string) ([]string, error) {
	rows, err := m.Rows(tokens)
	if err != nil {
		return nil, err
	}
	return m.TagRows(rows)
}

// TagRows labels one sentence given as rows of column values in the order
// of Columns; a row may leave out the label column (or hold any value
// there: it is not read).
func (m *Model) TagRows(rows [][]string) ([]string, error) {
	if len(rows) == 0 {
		return []string{}, nil
	}
	s, err := m.sentence(rows)
	if err != nil {
		return nil, err
	}
	return onSentence(m, s, (*tagger.Tagger).Tag)
}

// Explanation is why a model labels a sentence as it does: per token, the
// largest state-feature contributions, the transition, start and stop
// terms, the margin over the runner-up label and (CRF, HMM) the marginal
// probability; `trellis explain` prints it.
type Explanation = tagger.Explanation

// Explain labels one sentence as TagRows does and explains the labels,
// keeping the top contributions of each token (top <= 0: all).
func (m *Model) Explain(rows [][]string, top int) (Explanation, error) {
	if len(rows) == 0 {
		return Explanation{Labels: []string{}, Tokens: []tagger.TokenExplanation{}}, nil
	}
	s, err := m.sentence(rows)
	if err != nil {
		return Explanation{}, err
	}
	return onSentence(m, s, func(tg *tagger.Tagger, sents []*corpus.Sentence) ([]Explanation, error) {
		return tg.Explain(sents, top)
	})
}

// Rows returns tokens as rows for TagRows and Explain: each token in the
// model's word column, the other columns empty. Like Tag, it refuses a
// model whose templates read other columns than the word.
func (m *Model) Rows(tokens []string) ([][]string, error) {
	if err := m.tg.CheckPlain(); err != nil {
		return nil, err
	}
	rows := make([][]string, len(tokens))
	n, word := len(m.tg.Format.Columns()), m.tg.WordColumn()
	for i, tok := range tokens {
		rows[i] = make([]string, n)
		rows[i][word] = tok
	}
	return rows, nil
}

// sentence checks rows against the model's columns and makes them a
// sentence with no label.
func (m *Model) sentence(rows [][]string) (*corpus.Sentence, error) {
	cols := m.tg.Format.Columns()
	label := m.tg.Format.LabelColumn()
	s := &corpus.Sentence{File: "<input>", Line: 1, Tokens: make([][]string, len(rows))}
	for i, r := range rows {
		switch {
		case len(r) == len(cols):
			s.Tokens[i] = slices.Clone(r)
		case label == len(cols)-1 && len(r) == len(cols)-1:
			s.Tokens[i] = append(slices.Clone(r), "")
		default:
			return nil, fmt.Errorf("token %d: %d columns, want %d (%v)", i+1, len(r), len(cols), cols)
		}
		if label >= 0 {
			s.Tokens[i][label] = ""
		}
	}
	return s, nil
}

// Close releases the model's tagger, once; later calls do nothing.
func (m *Model) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	return m.tg.Close()
}
