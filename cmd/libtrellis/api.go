// Command libtrellis is trellis as a C shared library, for the Python
// package in python/trellis (and any language with a C FFI):
//
//	go build -buildmode=c-shared -o libtrellis.so ./cmd/libtrellis
//
// Models live in a handle table; every call that can fail takes a
// char **err and sets it to a message (free it with
// trellis_free_buffer) instead of keeping a "last error", because
// callers run calls in parallel (Python releases the GIL around them) and
// a shared last error would race. Attribute sentences, which can be
// large, travel in a sentence buffer (buffer.go); settings, tokens of
// models that read words, model information and results are JSON, small
// and in both ends' standard library; raw text (text.go) is UTF-8 bytes. Either way any string is a valid
// attribute name or label (tabs, newlines and colons included, which
// CRFsuite's text format cannot carry), NUL excepted.
//
// This file is the library's logic in plain Go, tested without cgo;
// exports.go is the thin cgo layer over it.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/trellis"
)

func main() {}

// Durations in log events (a training log's "elapsed") are in seconds, as
// the trellis command logs them; zerolog's default is milliseconds.
func init() { zerolog.DurationFieldUnit = time.Second }

// table holds the models handed out to C, each with the log of its
// training (nil for a loaded model). Handles start at 1; 0 means failure.
type table struct {
	mu     sync.Mutex
	next   int64
	models map[int64]entry
}

type entry struct {
	model *trellis.Model
	log   []byte
}

var models = &table{models: map[int64]entry{}}

// add puts m (and its training log, or nil) in the table.
func (t *table) add(m *trellis.Model, log []byte) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next++
	t.models[t.next] = entry{m, log}
	return t.next
}

func (t *table) get(h int64) (*trellis.Model, error) {
	e, err := t.entry(h)
	return e.model, err
}

func (t *table) entry(h int64) (entry, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.models[h]
	if !ok {
		return entry{}, fmt.Errorf("no model with handle %d (freed, or never made)", h)
	}
	return e, nil
}

// remove takes the model out of the table and closes it.
func (t *table) remove(h int64) {
	t.mu.Lock()
	e, ok := t.models[h]
	delete(t.models, h)
	t.mu.Unlock()
	if ok {
		e.model.Close()
	}
}

// trainRequest holds the settings trellis_train decodes (the sentences
// come in sentence buffers).
type trainRequest struct {
	Learner struct {
		Type   string         `json:"type"`
		Config map[string]any `json:"config,omitempty"`
	} `json:"learner"`
	Scheme  string `json:"scheme,omitempty"`
	Seed    uint64 `json:"seed,omitempty"`
	Threads int    `json:"threads,omitempty"`
	// Verbose logs training progress to standard error.
	Verbose bool `json:"verbose,omitempty"`
	// MinCount drops attributes seen fewer times in the training
	// sentences, as a spec's min_count does (prune.go).
	MinCount int `json:"min_count,omitempty"`
}

func decodeStrict(data []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return fmt.Errorf("bad request: %w", err)
	}
	return nil
}

// train trains a model: settings are a JSON trainRequest, train and dev
// sentence buffers (dev may be empty: no dev set). It returns the model
// and its training log: zerolog's JSON lines, one event each.
func train(settings, trainBuf, devBuf []byte) (*trellis.Model, []byte, error) {
	var r trainRequest
	if err := decodeStrict(settings, &r); err != nil {
		return nil, nil, err
	}
	if r.MinCount < 0 {
		return nil, nil, fmt.Errorf("bad request: min_count must be >= 0, got %d", r.MinCount)
	}
	sents, err := decodeSentences(trainBuf, "train", true)
	if err != nil {
		return nil, nil, err
	}
	pruneRare(sents, r.MinCount)
	var dev []trellis.AttributeSentence
	if len(devBuf) > 0 {
		if dev, err = decodeSentences(devBuf, "dev", true); err != nil {
			return nil, nil, err
		}
	}
	o := trellis.AttributeOptions{
		Learner: trellis.Learner{Type: r.Learner.Type, Config: r.Learner.Config},
		Scheme:  r.Scheme, Seed: r.Seed, Dev: dev, Threads: r.Threads,
	}
	// The log is always kept (CRF.training_log_ reads it), and with
	// Verbose also printed. Learners may log from several goroutines.
	var log bytes.Buffer
	var w io.Writer = zerolog.SyncWriter(&log)
	if r.Verbose {
		w = zerolog.MultiLevelWriter(w, zerolog.ConsoleWriter{Out: os.Stderr, NoColor: true})
	}
	l := zerolog.New(w).With().Timestamp().Logger()
	o.Log = &l
	m, err := trellis.TrainAttributes(context.Background(), sents, o)
	if err != nil {
		return nil, nil, err
	}
	return m, log.Bytes(), nil
}

// trainingLog is the log of the model with handle h as a JSON array of
// zerolog's events ([] for a model that was loaded, not trained).
func trainingLog(h int64) ([]byte, error) {
	e, err := models.entry(h)
	if err != nil {
		return nil, err
	}
	lines := bytes.Split(bytes.TrimSpace(e.log), []byte("\n"))
	if len(e.log) == 0 {
		lines = nil
	}
	out := append([]byte("["), bytes.Join(lines, []byte(","))...)
	return append(out, ']'), nil
}

// info is what trellis_info returns about a model.
type info struct {
	Labels  []string `json:"labels"`
	Learner string   `json:"learner"`
	Columns []string `json:"columns"`
	// Attributes: the model tags attribute tokens; else tokens (Plain)
	// or rows of Columns.
	Attributes bool `json:"attributes"`
	Plain      bool `json:"plain"`
	// PlainError says why the model does not take bare tokens.
	PlainError string `json:"plain_error,omitempty"`
}

func modelInfo(m *trellis.Model) ([]byte, error) {
	in := info{Labels: m.Labels(), Learner: m.Learner(), Columns: m.Columns(), Attributes: m.ReadsAttributes()}
	if _, err := m.Rows(nil); err == nil {
		in.Plain = true
	} else {
		in.PlainError = err.Error()
	}
	return json.Marshal(in)
}

// tagRequest holds sentences for models that read columns, in one of
// two forms: bare tokens (models whose templates read only the word) or
// rows of column values. (Attribute sentences come in a sentence
// buffer: tagAttributes.)
type tagRequest struct {
	Tokens [][]string   `json:"tokens,omitempty"`
	Rows   [][][]string `json:"rows,omitempty"`
}

// tagResult is what trellis_tag returns: per sentence the labels, and
// with marginals, per token P(label) for every label in the order of the
// model's labels.
type tagResult struct {
	Labels    [][]string    `json:"labels"`
	Marginals [][][]float64 `json:"marginals,omitempty"`
}

// tag labels the sentences of a JSON tagRequest.
func tag(m *trellis.Model, req []byte, marginals bool) ([]byte, error) {
	var r tagRequest
	if err := decodeStrict(req, &r); err != nil {
		return nil, err
	}
	if len(r.Tokens) > 0 && len(r.Rows) > 0 {
		return nil, errors.New("bad request: give tokens or rows, not both")
	}
	res := newResult(marginals)
	var err error
	switch {
	case len(r.Tokens) > 0:
		err = each(&res, len(r.Tokens), marginals, func(k int) ([]string, [][]float64, error) {
			rows, err := m.Rows(r.Tokens[k])
			if err != nil {
				return nil, nil, err
			}
			return tagRows(m, rows, marginals)
		})
	default:
		err = each(&res, len(r.Rows), marginals, func(k int) ([]string, [][]float64, error) {
			return tagRows(m, r.Rows[k], marginals)
		})
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// tagBuffer labels the sentences of a sentence buffer.
func tagBuffer(m *trellis.Model, buf []byte, marginals bool) ([]byte, error) {
	sents, err := decodeSentences(buf, "input", false)
	if err != nil {
		return nil, err
	}
	res := newResult(marginals)
	err = each(&res, len(sents), marginals, func(k int) ([]string, [][]float64, error) {
		return tagAttributes(m, sents[k].Tokens, marginals)
	})
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

func newResult(marginals bool) tagResult {
	res := tagResult{Labels: [][]string{}}
	if marginals {
		res.Marginals = [][][]float64{}
	}
	return res
}

// each runs one sentence's tagging for k = 0..n-1, collecting results and
// naming the sentence in an error.
func each(res *tagResult, n int, marginals bool, f func(k int) ([]string, [][]float64, error)) error {
	for k := 0; k < n; k++ {
		labels, marg, err := f(k)
		if err != nil {
			return fmt.Errorf("sentence %d: %w", k+1, err)
		}
		res.Labels = append(res.Labels, labels)
		if marginals {
			res.Marginals = append(res.Marginals, marg)
		}
	}
	return nil
}

func tagAttributes(m *trellis.Model, toks [][]trellis.Attribute, marginals bool) ([]string, [][]float64, error) {
	labels, err := m.TagAttributes(toks)
	if err != nil || !marginals {
		return labels, nil, err
	}
	marg, err := m.MarginalsAttributes(toks)
	return labels, marg, err
}

func tagRows(m *trellis.Model, rows [][]string, marginals bool) ([]string, [][]float64, error) {
	labels, err := m.TagRows(rows)
	if err != nil || !marginals {
		return labels, nil, err
	}
	marg, err := m.Marginals(rows)
	return labels, marg, err
}

// guard turns a panic into an error, so that none crosses into C.
func guard(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("internal error (please report): %v", r)
	}
}
