package feature

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/registry"
)

// Sink receives the attributes an Extractor emits for one sentence.
type Sink interface {
	// Add records attribute key with a real value for token i. The key
	// bytes are only valid during the call: a Sink copies what it keeps,
	// which lets extractors build keys in a reused buffer and allocate
	// nothing per token.
	Add(i int, key []byte, value float64)
}

// Extractor emits the attributes of every token of a sentence. It must be
// deterministic: the same sentence always gives the same attributes in the
// same order, which is what makes models reproducible to the byte.
type Extractor interface {
	Extract(s *corpus.Sentence, sink Sink) error
}

// BatchExtractor is implemented by extractors that prefer to see many
// sentences per call (plugins, whose calls cross a process boundary).
// sinks[k] receives the attributes of sents[k].
type BatchExtractor interface {
	Extractor
	ExtractBatch(sents []*corpus.Sentence, sinks []Sink) error
}

// Prefetcher is a BatchExtractor whose work happens outside this process
// (a plugin): Prefetch hands it a batch ahead of the ExtractBatch call for
// the same slice, so that its work overlaps with the host's. ExtractBatch
// gives the same result whether or not the batch was prefetched. Forget
// drops the prefetched batches (after an error, when they will not be
// extracted and their slices may be reused for other sentences).
type Prefetcher interface {
	BatchExtractor
	Prefetch(sents []*corpus.Sentence)
	Forget()
}

// Fetcher is a Prefetcher that can hand a whole batch's attributes over
// for the encoder to add sentence by sentence (Fetched.Replay), so that
// tagging keeps one sentence's buffers in cache as it does when every
// extractor runs in process.
type Fetcher interface {
	Prefetcher
	Fetch(sents []*corpus.Sentence) (Fetched, error)
}

// Fetched holds a batch's attributes from a Fetcher.
type Fetched interface {
	// Replay adds the attributes of sentence k of the batch to sink, as
	// ExtractBatch would have.
	Replay(k int, sink Sink)
}

// DocumentExtractor is implemented by extractors that read the whole
// document a sentence belongs to (other occurrences of a word, the words
// around them), not only the sentence. Its lifecycle, per batch:
//
//  1. Documents: the encoder hands it every sentence of the batch, before
//     any of them is extracted. The batch holds whole documents (the
//     encoder's callers never cut a document between batches: Mapper.Fit
//     and EncodeAll end batches at document boundaries, Mapper.Encode
//     encodes a corpus at once, the tagger streams whole documents), and
//     the sentences of one document are those with the same File and
//     Document (corpus.GroupDocuments), adjacent or not. The extractor
//     builds what it needs here, once per batch, in time linear in the
//     batch's tokens, and keeps it until the next call;
//  2. Extract, for each sentence of that batch, in any order: it finds
//     the sentence's place in its document by a map, not a scan, and
//     allocates nothing per token.
//
// The sentences handed to Documents stay valid until the next Documents
// call; an extractor must not keep them longer. Extract on a sentence
// that was not in the last batch is an error. Documents(nil) releases the
// index: Mapper.Fit and Mapper.Encode call it when they are done, so a
// training corpus is not kept indexed while learners train.
type DocumentExtractor interface {
	Extractor
	Documents(sents []*corpus.Sentence) error
}

// ColumnReader is implemented by extractors that declare the columns they
// read. Every builtin extractor and the plugin host's extractor do (a
// plugin declares its columns when it is configured). It is how a tagger
// knows that a model needs only the word column and can tag plain text.
type ColumnReader interface {
	// ReadColumns returns the indices, into the Columns the extractor was
	// compiled against, of the columns Extract reads: empty when it reads
	// none (bias, boundary).
	ReadColumns() []int
}

// Closer is implemented by extractors that hold resources (plugin
// processes) which must be released at the end of a run.
type Closer interface {
	Close() error
}

// Template is one feature template of a spec, from its block to a running
// Extractor. The lifecycle, in order:
//
//  1. new: the Registry constructs a zero Template for the block's type;
//  2. decode config: Config returns a pointer to the struct that the block's
//     body is decoded into (gohcl tags) and that a model file stores (json
//     tags), so a loaded model re-creates exactly the same template;
//  3. validate: Validate checks the decoded values on their own;
//  4. compile: Compile binds the block label (the prefix of every attribute
//     the template emits, which keeps templates apart) and column names to the corpus format's indices and
//     returns the Extractor;
//  5. extract: the Extractor runs over every sentence (see Extractor).
type Template interface {
	Config() any
	Validate() hcl.Diagnostics
	Compile(name string, cols Columns) (Extractor, error)
}

// StructureTemplate is implemented by templates that change the model's
// structure rather than emit attributes (the transition template). Their
// Compile may return a nil Extractor.
type StructureTemplate interface {
	Template
	Transitions() bool
}

// OrderTemplate is a StructureTemplate that sets the model's Markov order:
// 1 (label bigrams) or 2 (label trigrams too, a second-order model). The
// transition template's order setting.
type OrderTemplate interface {
	StructureTemplate
	Order() int
}

// TemplateOrder returns the Markov order t sets: 2 for an OrderTemplate
// that says so, 1 for any other.
func TemplateOrder(t Template) int {
	if ot, ok := t.(OrderTemplate); ok && ot.Transitions() && ot.Order() == 2 {
		return 2
	}
	return 1
}

// FileTemplate is implemented by templates that read a file of their own
// when they are configured (a lexicon's word list, a cluster file):
// Prepare resolves the file's path against dir and reads it, so that the
// settings a model file records say what the model was trained with (the
// list itself, or the file's absolute path and SHA-256). The spec runs it
// with the spec's folder when it decodes the block; the Go API, with the
// working directory.
type FileTemplate interface {
	Template
	Prepare(dir string) error
}

// FileError is an error of a FileTemplate's Prepare about one of its
// settings, which a spec places at that setting: Attr names it ("path",
// "sha256"), Summary says in a few words what is wrong.
type FileError struct {
	Attr, Summary string
	Err           error
}

func (e *FileError) Error() string { return e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// Columns maps corpus column names to their index in corpus.Sentence.Tokens.
type Columns struct {
	Names []string
	Label int // index of the label column; extractors must not read it
}

// Index returns the index of the named column. Reading the label column is
// refused: a feature that sees the gold label would make training a lie.
// Errors are *ColumnError.
func (c Columns) Index(name string) (int, error) {
	for i, n := range c.Names {
		if n == name {
			if i == c.Label {
				return 0, &ColumnError{Column: name, Label: true}
			}
			return i, nil
		}
	}
	return 0, &ColumnError{Column: name, Have: c.Names}
}

// ColumnError is a template naming a column it cannot read: one the corpus
// does not have, or the label column. It is a type, not only a message, so
// that a spec can point at the attribute naming the column (errors.As)
// whatever the template wraps it in.
type ColumnError struct {
	Column string
	// Label is true when Column is the label column (which exists but is
	// off limits); otherwise the corpus has no such column.
	Label bool
	// Have are the corpus's columns, listed in the message.
	Have []string
}

func (e *ColumnError) Error() string {
	if e.Label {
		return fmt.Sprintf("column %q is the label column; templates cannot read it", e.Column)
	}
	return fmt.Sprintf("unknown column %q (the corpus has %s)", e.Column, quoteList(e.Have))
}

func quoteList(names []string) string {
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%q", n)
	}
	return s
}

// TemplateFactory makes a zero Template of one registered type.
type TemplateFactory func() Template

// Registry maps template type names to factories: the generic
// registry.Registry (Register, Lookup, Names, Suggest) plus what only
// templates need, making one and re-creating one from a model file. It is
// filled explicitly in one place (builtin.Registries) rather than through
// init side effects, so what a binary can run is visible in one file.
type Registry struct {
	*registry.Registry[TemplateFactory]
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{registry.New[TemplateFactory]("template type")}
}

// RegisterTemplate adds a template type. It panics on an empty or
// duplicate name (registry.MustRegister): names are fixed in code, by
// builtin.Registries and by plugin.Host.Register, so a clash is a
// programming error.
func (r *Registry) RegisterTemplate(name string, f TemplateFactory) {
	r.MustRegister(name, f)
}

// NewTemplate returns a fresh template of the named type.
func (r *Registry) NewTemplate(name string) (Template, bool) {
	f, ok := r.Lookup(name)
	if !ok {
		return nil, false
	}
	return f(), true
}

// TemplateSpec is how a model file records one template: enough to
// re-create and re-compile it at tagging time.
type TemplateSpec struct {
	Type   string          `json:"type"`
	Name   string          `json:"name"`
	Config json.RawMessage `json:"config"`
	// Labels is what the template's attributes are conjoined with: ""
	// (the label of their token, a state feature) or LabelsBigram (the
	// label bigram into their token, an input-conditioned transition).
	// Empty is left out of the JSON, so models without bigram templates
	// keep their bytes.
	Labels string `json:"labels,omitempty"`
}

// LabelsBigram is TemplateSpec.Labels for a template whose attributes
// fire on the label bigram (y[i-1], y[i]) of their token i (CRF++'s B
// templates with %x macros, Wapiti's b patterns) rather than on y[i]: an
// attribute of token i and the pair (p, c) make one weight, scored when
// the path goes from p at i-1 to c at i. Attributes of a sentence's first
// token have no bigram and score nothing.
const LabelsBigram = "bigram"

// ValidLabels reports whether v is a TemplateSpec.Labels value.
func ValidLabels(v string) bool { return v == "" || v == LabelsBigram }

// Instantiate re-creates the template that spec describes (from a model
// file). The config is decoded strictly: a key the template does not know
// is an error naming the key and the template, because silently dropping
// it would tag with a template other than the one the model was trained
// with (a model from a newer trellis, or an edited file).
func (r *Registry) Instantiate(spec TemplateSpec) (Template, error) {
	t, ok := r.NewTemplate(spec.Type)
	if !ok {
		return nil, fmt.Errorf("template %q: unknown type %q", spec.Name, spec.Type)
	}
	if len(spec.Config) > 0 {
		if err := strictUnmarshalJSON(spec.Config, t.Config()); err != nil {
			return nil, fmt.Errorf("template %q: config: %w", spec.Name, err)
		}
	}
	if diags := t.Validate(); diags.HasErrors() {
		return nil, fmt.Errorf("template %q: %s", spec.Name, diags.Error())
	}
	return t, nil
}

// strictUnmarshalJSON is json.Unmarshal that refuses keys v has no field
// for (as Caddy decodes its config) and, like json.Unmarshal, anything
// after the value.
func strictUnmarshalJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("invalid JSON: data after the config's value")
	}
	return nil
}
