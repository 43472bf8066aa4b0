package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/trellis-nlp/trellis/framework/annotate"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/pipeline"
	"github.com/trellis-nlp/trellis/framework/plural"
	"github.com/trellis-nlp/trellis/framework/tagger"
	"github.com/trellis-nlp/trellis/framework/tokenize"
)

// TagRequest is the body of POST /v1/models/{name}/tag.
type TagRequest struct {
	// Sentences are the sentences to tag, each a list of tokens (words).
	Sentences [][]string `json:"sentences"`
	// Text is raw text to tag instead: the service's tokenizer splits it
	// into sentences and tokens (a segmentation model reads characters),
	// and the answer's Sentences give their offsets and spans.
	Text *string `json:"text,omitempty"`
	// Columns holds the other columns the model reads, by name: for each,
	// one list of values per sentence, one value per token. A pipeline's
	// models read the labels of the earlier ones instead: a column one of
	// them labels cannot be given.
	Columns map[string][][]string `json:"columns,omitempty"`
	// Marginals asks for each predicted label's marginal probability
	// (of a pipeline, its last model's).
	Marginals bool `json:"marginals,omitempty"`
	// NBest asks for the k best label sequences (0 or 1: the best only),
	// of a pipeline's last model, the others' labels fixed.
	NBest int `json:"nbest,omitempty"`
}

// TagResponse is the answer to a tag request. Probabilities (of each
// sentence's best sequence) come with Marginals or NBest; a probability or
// score JSON cannot hold (not finite) is null. For a pipeline, Labels,
// Probabilities, Marginals and NBest are the last model's.
type TagResponse struct {
	Model         string         `json:"model"`
	Labels        [][]string     `json:"labels"`
	Probabilities []*float64     `json:"probabilities,omitempty"`
	Marginals     [][]float64    `json:"marginals,omitempty"`
	NBest         [][]ScoredPath `json:"nbest,omitempty"`
	// Tags are a pipeline's labels, every model's: for each sentence, the
	// labels by the name of the column each model labels (the latest
	// model's, when two label one column). Absent for one model.
	Tags []map[string][]string `json:"tags,omitempty"`
	// Sentences answer a text request: each sentence as `trellis tag
	// --input text --output json` prints it, offsets into the text.
	Sentences []annotate.Sentence `json:"sentences,omitempty"`
}

// ScoredPath is one of the n best label sequences of a sentence: the
// shape `trellis tag --output json` gives them too.
type ScoredPath = tagger.RankedPath

func (s *Server) handleTag(w *recorder, r *http.Request) {
	name := r.PathValue("name")
	sm, ok := s.models[name]
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no model %q (this service serves %s)", name, plural.Quoted(s.names)))
		return
	}
	w.model = name
	req, err := s.decodeTag(w, r)
	if err != nil {
		writeError(w, statusOf(err), err.Error())
		return
	}
	var sents []*corpus.Sentence
	var texts []tokenize.Sentence
	var tokens int
	if req.Text != nil {
		sents, texts, tokens, err = s.textSentences(sm, req)
	} else {
		sents, tokens, err = s.sentences(sm, req)
	}
	if err != nil {
		writeError(w, statusOf(err), err.Error())
		return
	}
	w.sentences, w.tokens = len(sents), tokens
	detailed := req.Marginals || req.NBest > 1
	out, err := sm.tag(r.Context(), sents, req.NBest, detailed, s.beforeTag)
	switch {
	case errors.Is(err, errClosed):
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		writeError(w, http.StatusServiceUnavailable, "the request was cancelled before a tagger was free")
		return
	case err != nil:
		sm.log.Error().Err(err).Msg("tagging failed")
		writeError(w, http.StatusInternalServerError, "tagging failed: "+err.Error())
		return
	}
	s.metrics.tokens.WithLabelValues(name).Add(float64(tokens))
	s.metrics.sentences.WithLabelValues(name).Add(float64(len(sents)))
	resp := response(name, out, req)
	resp.Tags = sm.tags(out, resp.Labels)
	if texts != nil {
		resp.Sentences = annotated(sm, sents, texts, out, resp)
	}
	writeJSON(w, http.StatusOK, resp)
}

// annotated returns the answer's sentences of a text request: the tokens
// of sents, labelled as resp says, with texts' offsets, and for a
// pipeline every model's label in each token's "tags".
func annotated(sm *servedModel, sents []*corpus.Sentence, texts []tokenize.Sentence, tg tagged, resp TagResponse) []annotate.Sentence {
	out := make([]annotate.Sentence, len(sents))
	for k, sent := range sents {
		words := make([]string, sent.Len())
		for i, row := range sent.Tokens {
			words[i] = row[sm.input.Word]
		}
		out[k] = annotate.New(words, resp.Labels[k], sm.kind, sm.scheme, &texts[k])
		if sm.pipeline() {
			out[k].AddTags(sm.columns, stageLabels(tg, resp.Labels, k))
		}
	}
	return out
}

// tags are the answer's "tags" of a pipeline (nil for one model): each
// sentence's labels by the column each model labels; last holds the last
// model's.
func (sm *servedModel) tags(tg tagged, last [][]string) []map[string][]string {
	if !sm.pipeline() {
		return nil
	}
	out := make([]map[string][]string, len(last))
	for s := range last {
		out[s] = make(map[string][]string, len(sm.columns))
		for k, labels := range stageLabels(tg, last, s) {
			out[s][sm.columns[k]] = labels // in order: the latest model wins
		}
	}
	return out
}

// stageLabels are sentence s's labels by each of a pipeline's models.
func stageLabels(tg tagged, last [][]string, s int) [][]string {
	return pipeline.Of(append(slices.Clip(tg.earlier), last), s)
}

// textSentences tokenizes a text request and builds its sentences;
// texts[k] is sentence k's tokenization. It returns them and their number
// of tokens.
func (s *Server) textSentences(sm *servedModel, req *TagRequest) ([]*corpus.Sentence, []tokenize.Sentence, int, error) {
	if req.Sentences != nil || req.Columns != nil {
		return nil, nil, 0, badRequest(`a request gives "text" or "sentences" (with "columns"), not both`)
	}
	if len(sm.input.Extra) > 0 {
		return nil, nil, 0, badRequest("model %q reads the columns %s besides the words, which raw text does not have: send \"sentences\" and \"columns\"",
			sm.name, plural.Quoted(sm.input.ExtraNames))
	}
	texts, err := s.tokenize(sm, *req.Text)
	if err != nil {
		return nil, nil, 0, err
	}
	tokens := 0
	for _, t := range texts {
		tokens += len(t.Tokens)
	}
	if err := s.checkSize(req, tokens); err != nil {
		return nil, nil, 0, err
	}
	sents := make([]*corpus.Sentence, len(texts))
	for k := range texts {
		sents[k] = sm.input.Sentence(texts[k].Words(), nil)
	}
	return sents, texts, tokens, nil
}

// tokenize splits text with the service's tokenizer, or into characters
// for a segmentation model.
func (s *Server) tokenize(sm *servedModel, text string) ([]tokenize.Sentence, error) {
	if sm.fixed != nil {
		return sm.fixed.Tokenize(text)
	}
	if s.opts.Tokenizer == nil {
		return nil, badRequest(`this service has no tokenizer for "text": send "sentences"`)
	}
	s.tokMu.Lock()
	defer s.tokMu.Unlock()
	texts, err := s.opts.Tokenizer.Tokenize(text)
	if err != nil {
		return nil, fmt.Errorf("tokenizing: %w", err)
	}
	return texts, nil
}

func response(name string, out tagged, req *TagRequest) TagResponse {
	resp := TagResponse{Model: name, Labels: out.labels}
	if out.detailed == nil {
		if resp.Labels == nil {
			resp.Labels = [][]string{}
		}
		return resp
	}
	resp.Labels = make([][]string, len(out.detailed))
	resp.Probabilities = make([]*float64, len(out.detailed))
	if req.Marginals {
		resp.Marginals = make([][]float64, len(out.detailed))
	}
	if req.NBest > 1 {
		resp.NBest = make([][]ScoredPath, len(out.detailed))
	}
	for k, d := range out.detailed {
		// The detailed decoder loosens a lattice without an allowed path
		// (lattice.Relaxation: unconstrained, then first order),
		// so every sentence has at least one path.
		resp.Labels[k], resp.Probabilities[k] = d.Paths[0], tagger.Finite(d.Probabilities[0])
		if req.Marginals {
			resp.Marginals[k] = d.Marginals
		}
		if req.NBest > 1 {
			resp.NBest[k] = d.Ranked(nil)
		}
	}
	return resp
}

// decodeTag reads a request body: one JSON object of the request's shape,
// nothing after it, no unknown field, at most MaxBody bytes.
func (s *Server) decodeTag(w http.ResponseWriter, r *http.Request) (*TagRequest, error) {
	tooLarge := &statusError{http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is over %d bytes (the service's --max-body)", s.opts.MaxBody)}
	if r.ContentLength > s.opts.MaxBody {
		return nil, tooLarge
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, s.opts.MaxBody))
	dec.DisallowUnknownFields()
	req := &TagRequest{}
	err := dec.Decode(req)
	if err == nil {
		if _, err = dec.Token(); err == io.EOF {
			return req, nil
		} else if err == nil {
			err = errors.New("data after the request's JSON object")
		}
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, tooLarge
	}
	return nil, badRequest("%s", describeJSONError(err))
}

// describeJSONError says what is wrong with a request body in terms of
// the request, not of Go types.
func describeJSONError(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case err == io.EOF:
		return "the request body is empty; want a JSON object with \"sentences\""
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "malformed JSON: the body ends inside a value"
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d: %s", se.Offset, se.Error())
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "the request"
		} else {
			field = fmt.Sprintf("%q", field)
		}
		return fmt.Sprintf("%s: a JSON %s where %s is expected", field, te.Value, describeType(te.Type))
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func describeType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int:
		return "an integer"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice:
		return "a list of " + pluralType(t.Elem())
	}
	return t.String()
}

// pluralType names values of type t in the plural: "lists of strings".
func pluralType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "strings"
	case reflect.Slice:
		return "lists of " + pluralType(t.Elem())
	}
	return "values of type " + t.String()
}

// checkSize checks a request's nbest and its tokens against the limits
// (setting an nbest of 0 to 1).
func (s *Server) checkSize(req *TagRequest, tokens int) error {
	if req.NBest == 0 {
		req.NBest = 1
	}
	if req.NBest < 1 || req.NBest > s.opts.MaxNBest {
		return badRequest(`"nbest" must be between 1 and %d, got %d (the service's --max-nbest)`, s.opts.MaxNBest, req.NBest)
	}
	if tokens > s.opts.MaxTokens {
		return &statusError{http.StatusRequestEntityTooLarge, fmt.Sprintf("%d tokens in one request; the limit is %d (the service's --max-tokens): send fewer sentences per request", tokens, s.opts.MaxTokens)}
	}
	if req.NBest > 1 && tokens*req.NBest > s.opts.MaxTokens {
		// The answer holds nbest labels per token: the limit bounds it too.
		return &statusError{http.StatusRequestEntityTooLarge, fmt.Sprintf("%d tokens × nbest %d is over the limit of %d labels in one answer (the service's --max-tokens): send fewer sentences per request", tokens, req.NBest, s.opts.MaxTokens)}
	}
	return nil
}

// sentences checks a request against the model and the limits and builds
// its sentences; it returns them and their number of tokens.
func (s *Server) sentences(sm *servedModel, req *TagRequest) ([]*corpus.Sentence, int, error) {
	if req.Sentences == nil {
		return nil, 0, badRequest(`"sentences" (a list of sentences, each a list of tokens) or "text" (raw text) is required`)
	}
	tokens := 0
	for k, sent := range req.Sentences {
		if len(sent) == 0 {
			return nil, 0, badRequest("sentence %d has no tokens", k)
		}
		// An empty token is no word: in a file it would end the sentence.
		if i := slices.Index(sent, ""); i >= 0 {
			return nil, 0, badRequest("sentence %d, token %d is empty", k, i)
		}
		tokens += len(sent)
	}
	if err := s.checkSize(req, tokens); err != nil {
		return nil, 0, err
	}
	extra, err := extraColumns(sm, req)
	if err != nil {
		return nil, 0, err
	}
	sents := make([]*corpus.Sentence, len(req.Sentences))
	vals := make([][]string, len(extra))
	for k, words := range req.Sentences {
		for j, col := range extra {
			vals[j] = col[k]
		}
		sents[k] = sm.input.Sentence(words, vals)
	}
	return sents, tokens, nil
}

// extraColumns checks the request's columns: known to the (first) model's
// format, neither the word nor the label column nor one a pipeline's
// model labels, shaped like "sentences", and every column the model reads
// present. It returns the columns the model reads, in sm.input.Extra
// order; the others are checked and not used.
func extraColumns(sm *servedModel, req *TagRequest) ([][][]string, error) {
	in := sm.input
	names := make([]string, 0, len(req.Columns))
	for name := range req.Columns {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		i := slices.Index(in.Columns, name)
		switch {
		case i < 0:
			return nil, badRequest("columns: model %q has no column %q (its columns: %s)", sm.name, name, plural.Quoted(in.Columns))
		case i == in.Word:
			return nil, badRequest("columns: %q is the word column, which \"sentences\" fills", name)
		case slices.Contains(sm.columns, name):
			return nil, badRequest("columns: %q is labelled by the pipeline's model %q", name, sm.labeller(name))
		case i == in.Label:
			return nil, badRequest("columns: %q is the label column, which the model predicts", name)
		}
		col := req.Columns[name]
		if len(col) != len(req.Sentences) {
			return nil, badRequest("columns: %q has %d sentences, \"sentences\" has %d", name, len(col), len(req.Sentences))
		}
		for k, vals := range col {
			if len(vals) != len(req.Sentences[k]) {
				return nil, badRequest("columns: %q of sentence %d has %d values for %d tokens", name, k, len(vals), len(req.Sentences[k]))
			}
		}
	}
	var missing []string
	out := make([][][]string, len(in.ExtraNames))
	for j, name := range in.ExtraNames {
		col, ok := req.Columns[name]
		if !ok {
			missing = append(missing, name)
		}
		out[j] = col
	}
	if len(missing) > 0 {
		return nil, badRequest("model %q reads %s besides the words: give them in \"columns\", one value per token", sm.name, columnsWord(missing))
	}
	return out, nil
}

func columnsWord(names []string) string {
	return plural.Noun(len(names), "column") + " " + plural.Quoted(names)
}

// labeller is the path of the latest of a pipeline's models that labels
// the column col.
func (sm *servedModel) labeller(col string) string {
	for k := len(sm.columns) - 1; k >= 0; k-- {
		if sm.columns[k] == col {
			return sm.files[k].path
		}
	}
	return ""
}
