package main

// This file holds pipelines: several models tagging in order, each reading
// the labels of the ones before it as the columns it names, through
// framework/trellis's NewPipeline, Pipeline.Tag and Pipeline.TagText
// (which run framework/pipeline).

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/trellis-nlp/trellis/framework/annotate"
	"github.com/trellis-nlp/trellis/framework/trellis"
)

// textPipeline is a pipeline handed out to C. It holds its models but
// does not own them: they stay in the model table, and freeing one there
// closes it under the pipeline (whose calls then fail with errPipelineClosed).
type textPipeline struct {
	p *trellis.Pipeline
}

// pipelineTable holds the pipelines handed out to C, by handle (from 1; 0
// means failure), apart from the models' handles.
type pipelineTable struct {
	mu    sync.Mutex
	next  int64
	pipes map[int64]*textPipeline
}

var pipelines = &pipelineTable{pipes: map[int64]*textPipeline{}}

func (t *pipelineTable) add(p *textPipeline) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next++
	t.pipes[t.next] = p
	return t.next
}

func (t *pipelineTable) get(h int64) (*textPipeline, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.pipes[h]
	if !ok {
		return nil, fmt.Errorf("no pipeline with handle %d (freed, or never made)", h)
	}
	return p, nil
}

// remove forgets the pipeline; its models are the model table's.
func (t *pipelineTable) remove(h int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.pipes, h)
}

// errPipelineClosed is a pipeline call after one of its models was freed.
var errPipelineClosed = errors.New("a model of the pipeline was freed (its CRF was refit or closed): make the pipeline again")

// newPipeline makes the pipeline of the models with handles hs, in order:
// trellis.NewPipeline's checks (every column a model reads besides the
// words labelled by an earlier one, no model twice) are its errors.
func newPipeline(hs []int64) (int64, error) {
	ms := make([]*trellis.Model, len(hs))
	for i, h := range hs {
		m, err := models.get(h)
		if err != nil {
			return 0, fmt.Errorf("model %d: %w", i+1, err)
		}
		ms[i] = m
	}
	p, err := trellis.NewPipeline(ms...)
	if err != nil {
		return 0, err
	}
	return pipelines.add(&textPipeline{p: p}), nil
}

// pipelineTagText tags text with the pipeline, split into sentences by the
// tokenizer called tokenizer, and returns the sentences as tagText does,
// each token with every model's label in "tags" (column -> label).
func pipelineTagText(p *textPipeline, text []byte, tokenizer string) ([]byte, error) {
	tok, err := tokenizers.get(tokenizer)
	if err != nil {
		return nil, err
	}
	sents, err := p.p.TagText(string(text), tok)
	if err != nil {
		return nil, pipelineError(err)
	}
	if sents == nil {
		sents = []annotate.Sentence{}
	}
	return json.Marshal(sents)
}

// pipelineTag tags sentences given as words (a JSON array of arrays of
// strings) with the pipeline and returns, per sentence, a JSON object
// column -> the labels of its words in that column (the last model's, when
// two label one column, as a token's tags have it).
func pipelineTag(p *textPipeline, req []byte) ([]byte, error) {
	var words [][]string
	if err := decodeStrict(req, &words); err != nil {
		return nil, err
	}
	labels, err := p.p.Tag(words)
	if err != nil {
		return nil, pipelineError(err)
	}
	cols := p.p.Columns()
	out := make([]map[string][]string, len(words))
	for s := range words {
		out[s] = make(map[string][]string, len(cols))
		for k, c := range cols {
			out[s][c] = labels[k][s]
		}
	}
	return json.Marshal(out)
}

// pipelineError says which call failed when a model was closed under the
// pipeline.
func pipelineError(err error) error {
	if errors.Is(err, trellis.ErrClosed) {
		return fmt.Errorf("%w (%w)", errPipelineClosed, err)
	}
	return err
}
