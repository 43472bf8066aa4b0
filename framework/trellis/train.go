package trellis

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/builtin"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/registry"
	"github.com/trellis-nlp/trellis/framework/run"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// SpecOptions adjust training from a spec.
type SpecOptions struct {
	// Vars set the spec's variables, as --var name=value does.
	Vars map[string]string
	// Learner names the spec's learner block to train; "" trains the
	// first.
	Learner string
	// Threads is the number of training threads (0: one per CPU). The
	// model is the same, to the bit, for any number.
	Threads int
	// Log receives training progress; nil logs nothing.
	Log *zerolog.Logger
}

// TrainSpecFile trains one learner of the spec at path on its training
// corpus (and dev corpus, if declared), as `trellis run` trains it. The
// test corpus is not read. A spec with errors returns a *SpecError.
func TrainSpecFile(ctx context.Context, path string, o SpecOptions) (*Model, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return TrainSpec(ctx, path, src, o)
}

// TrainSpec is TrainSpecFile on spec source held in memory; filename
// names it in diagnostics, and relative corpus paths are resolved against
// its folder.
func TrainSpec(ctx context.Context, filename string, src []byte, o SpecOptions) (*Model, error) {
	templates, learners := builtin.Registries()
	s, diags := spec.Decode(filename, src, o.Vars, spec.Registries{Templates: templates, Learners: learners})
	if diags.HasErrors() {
		return nil, &SpecError{Diagnostics: diags, sources: map[string][]byte{filename: src}}
	}
	ro := run.Options{Spec: s, Templates: templates, Threads: o.Threads, Log: logger(o.Log)}
	m, err := run.Train(ctx, ro, o.Learner)
	if err != nil {
		return nil, specError(s, err)
	}
	return newModel(m)
}

// Sentence is a training sentence: its tokens and their gold labels.
type Sentence struct {
	Tokens []string
	Labels []string
}

// Template is a feature template: a builtin type ("emission", "suffix",
// "prefix", "shape", "case", "digit", "hyphen", "boundary", "bias",
// "attributes", "transition"), a name unique among the templates (the
// type when empty), and its settings, the attributes of its block in a
// spec, decoded strictly (an unknown key is an error). The sentences'
// tokens are the column "word".
type Template struct {
	Type   string
	Name   string
	Config map[string]any
}

// Learner is a learner type ("hmm", "perceptron" or "crf") and its
// settings, the attributes of its block in a spec (Config nil: the
// defaults).
type Learner struct {
	Type   string
	Config map[string]any
}

// Options configure training from sentences in memory.
type Options struct {
	// Templates are the feature templates; nil: DefaultTemplates.
	Templates []Template
	// Learner defaults to a CRF with its default settings.
	Learner Learner
	// Scheme is the label scheme ("none", "iob1", "iob2", "bioes",
	// "bmes", "bi"); "" is "none". IOB2, BIOES and BMES decode
	// constrained to well-formed label sequences, as in a spec.
	Scheme string
	// Seed seeds every random choice of training.
	Seed uint64
	// Dev, when set, are development sentences for the learners that use
	// them (model selection, early stopping).
	Dev []Sentence
	// Threads and Log are as in SpecOptions.
	Threads int
	Log     *zerolog.Logger
}

// DefaultTemplates are the quickstart spec's features on the word:
// the lowercased word, its suffixes of 1 to 3 characters, its case,
// digits and hyphens, and label transitions.
func DefaultTemplates() []Template {
	return []Template{
		{Type: "emission", Name: "w", Config: map[string]any{"column": "word", "lowercase": true}},
		{Type: "suffix", Name: "suf", Config: map[string]any{"column": "word", "lengths": []int{1, 2, 3}}},
		{Type: "case", Name: "case", Config: map[string]any{"column": "word"}},
		{Type: "digit", Name: "dig", Config: map[string]any{"column": "word"}},
		{Type: "hyphen", Name: "hyph", Config: map[string]any{"column": "word"}},
		{Type: "transition", Name: "trans"},
	}
}

// Train trains a model on sentences in memory, through the same feature
// mapper and learners as `trellis run`. Its columns are "word" and
// "label", so Model.Tag takes the tokens alone. Settings that do not
// decode or validate return a *SpecError.
func Train(ctx context.Context, sents []Sentence, o Options) (*Model, error) {
	return trainMemory(ctx, o, memoryFormat, sents, o.Dev, corpusSentences)
}

// trainMemory is Train and TrainAttributes: the spec o stands for (its
// corpora in format; o.Dev is not read), the train and dev sentences
// turned into corpus sentences by convert (named "train" and "dev" in its
// errors), the training as `trellis run` does it, and the model wrapped.
func trainMemory[T any](ctx context.Context, o Options, format corpus.Config, train, dev []T,
	convert func(name string, sents []T) ([]*corpus.Sentence, error)) (*Model, error) {
	s, err := memorySpec(o, format, len(dev) > 0)
	if err != nil {
		return nil, err
	}
	trainSents, err := convert("train", train)
	if err != nil {
		return nil, err
	}
	var devSents []*corpus.Sentence
	if len(dev) > 0 {
		if devSents, err = convert("dev", dev); err != nil {
			return nil, err
		}
	}
	templates, _ := builtin.Registries()
	ro := run.Options{Spec: s, Templates: templates, Threads: o.Threads, Log: logger(o.Log)}
	m, err := run.TrainSentences(ctx, ro, "", trainSents, devSents)
	if err != nil {
		return nil, specError(s, err)
	}
	return newModel(m)
}

// memoryFormat is the layout of sentences given to Train.
var memoryFormat = corpus.Config{Name: corpus.NameCoNLL, Columns: []string{"word", "label"}, Label: "label"}

// memorySpec is the spec that Options stand for: a train corpus (and a dev
// corpus, when hasDev) of the given format, the templates and the learner
// decoded by the registries as a spec's blocks are. o.Dev is not read.
func memorySpec(o Options, format corpus.Config, hasDev bool) (*spec.Spec, error) {
	// The provenance's spec hash is over the settings (the sentences are
	// the data, not the spec).
	raw, err := json.Marshal(struct {
		Templates []Template
		Learner   Learner
		Scheme    string
		Seed      uint64
	}{o.Templates, o.Learner, o.Scheme, o.Seed})
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(raw)
	s := &spec.Spec{File: "<options>", Source: raw, Hash: hex.EncodeToString(sum[:]), Name: "trellis.Train", Seed: o.Seed,
		Variables: map[string]string{}, Evaluation: spec.Evaluation{Train: "train"}}
	f, err := corpus.New(format)
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"train", "dev"} {
		s.Corpora = append(s.Corpora, &spec.Corpus{Name: name, Path: "<" + name + ">", Format: format, Columns: f.Columns()})
	}
	if hasDev {
		s.Evaluation.Dev = "dev"
	}
	var diags hcl.Diagnostics
	s.Labels.Column = "label"
	if o.Scheme != "" {
		if s.Labels.Scheme, err = scheme.Parse(o.Scheme); err != nil {
			diags = append(diags, optionError("Unknown label scheme", registry.DidYouMean(o.Scheme, []string{"none", "iob1", "iob2", "bio", "bioes", "bmes", "bi"}, "scheme")))
		}
	}
	sc := s.Labels.Scheme
	s.Labels.Constrained = sc == scheme.IOB2 || sc == scheme.BIOES || sc == scheme.BMES
	templates, learners := builtin.Registries()
	tmpls := o.Templates
	if tmpls == nil {
		tmpls = DefaultTemplates()
	}
	seen := map[string]bool{}
	for _, t := range tmpls {
		name := t.Name
		if name == "" {
			name = t.Type
		}
		if seen[name] {
			diags = append(diags, optionError("Duplicate template", fmt.Sprintf("Two templates are named %q.", name)))
			continue
		}
		seen[name] = true
		ti, d := newTemplate(templates, t.Type, name, t.Config)
		diags = append(diags, d...)
		if ti != nil {
			s.Features.Templates = append(s.Features.Templates, ti)
		}
	}
	li, d := newLearner(learners, o.Learner)
	diags = append(diags, d...)
	if diags.HasErrors() {
		return nil, &SpecError{Diagnostics: diags}
	}
	s.Learners = []*spec.LearnerInstance{li}
	s.LearnerTypes = learners
	return s, nil
}

// newTemplate instantiates a template from its type and settings, strictly.
func newTemplate(reg *feature.Registry, typ, name string, config map[string]any) (*spec.TemplateInstance, hcl.Diagnostics) {
	tmpl, ok := reg.NewTemplate(typ)
	if !ok {
		return nil, hcl.Diagnostics{optionError("Unknown template type", fmt.Sprintf("Template %q: %s", name, registry.DidYouMean(typ, reg.Names(), "template type")))}
	}
	if err := decodeConfig(config, tmpl.Config()); err != nil {
		return nil, hcl.Diagnostics{optionError("Invalid template settings", fmt.Sprintf("Template %q (%s): %v.", name, typ, err))}
	}
	var diags hcl.Diagnostics
	for _, d := range tmpl.Validate() {
		d.Detail = fmt.Sprintf("Template %q (%s): %s", name, typ, d.Detail)
		diags = append(diags, d)
	}
	// Then, as spec.DecodeTemplate does, a template's own file (a word
	// list, a cluster file) is read, a relative path from the working
	// directory, so that the model records what it was trained with.
	if ft, ok := tmpl.(feature.FileTemplate); ok && !diags.HasErrors() {
		if err := ft.Prepare("."); err != nil {
			return nil, hcl.Diagnostics{optionError("Cannot read the template's file", fmt.Sprintf("Template %q (%s): %v.", name, typ, err))}
		}
	}
	return &spec.TemplateInstance{Type: typ, Name: name, Template: tmpl}, diags
}

// newLearner instantiates a learner from its type and settings, strictly.
func newLearner(reg *learn.Registry, l Learner) (*spec.LearnerInstance, hcl.Diagnostics) {
	typ := l.Type
	if typ == "" {
		typ = "crf"
	}
	lr, ok := reg.New(typ)
	if !ok {
		return nil, hcl.Diagnostics{optionError("Unknown learner type", registry.DidYouMean(typ, reg.Names(), "learner type"))}
	}
	if err := decodeConfig(l.Config, lr.Config()); err != nil {
		return nil, hcl.Diagnostics{optionError("Invalid learner settings", fmt.Sprintf("Learner %s: %v.", typ, err))}
	}
	var diags hcl.Diagnostics
	for _, d := range lr.Validate() {
		d.Detail = fmt.Sprintf("Learner %s: %s", typ, d.Detail)
		diags = append(diags, d)
	}
	return &spec.LearnerInstance{Name: typ, Type: typ, Learner: lr, Config: lr.Config()}, diags
}

// decodeConfig decodes settings into a template's or learner's config
// through their JSON form, the one a model file records, refusing keys
// the config has no field for.
func decodeConfig(config map[string]any, dst any) error {
	if len(config) == 0 {
		return nil
	}
	raw, err := json.Marshal(config)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(dst)
}

// corpusSentences turns sentences in memory into the corpus form, located
// as "<name>" line k+1 for sentence k in messages.
func corpusSentences(name string, sents []Sentence) ([]*corpus.Sentence, error) {
	out := make([]*corpus.Sentence, len(sents))
	for k, s := range sents {
		if len(s.Tokens) != len(s.Labels) {
			return nil, fmt.Errorf("%s sentence %d: %d tokens, %d labels", name, k+1, len(s.Tokens), len(s.Labels))
		}
		if len(s.Tokens) == 0 {
			return nil, fmt.Errorf("%s sentence %d: no tokens", name, k+1)
		}
		cs := &corpus.Sentence{File: "<" + name + ">", Line: k + 1, Tokens: make([][]string, len(s.Tokens))}
		for i, tok := range s.Tokens {
			if s.Labels[i] == "" {
				return nil, fmt.Errorf("%s sentence %d token %d (%q): empty label", name, k+1, i+1, tok)
			}
			cs.Tokens[i] = []string{tok, s.Labels[i]}
		}
		out[k] = cs
	}
	return out, nil
}

// SpecError is a spec, or training options, that did not decode: its
// Diagnostics, with file:line:col where there is a source. Error renders
// them as `trellis validate` prints them, source lines included.
type SpecError struct {
	Diagnostics hcl.Diagnostics
	sources     map[string][]byte
}

func (e *SpecError) Error() string {
	var b strings.Builder
	spec.WriteDiagnostics(&b, e.Diagnostics, e.sources)
	return strings.TrimRight(b.String(), "\n")
}

// optionError is a diagnostic on Options, which have no source to point
// into.
func optionError(summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail}
}

// specError makes what run reports as diagnostics on the spec (training
// labels that contradict the declared scheme) a *SpecError.
func specError(s *spec.Spec, err error) error {
	var de *run.DiagnosticsError
	if errors.As(err, &de) {
		diags := slices.Clone(de.Diags)
		for k, d := range diags {
			if d.Subject != nil && d.Subject.Filename == "" {
				// Options have no source to point into.
				c := *d
				c.Subject = nil
				diags[k] = &c
			}
		}
		return &SpecError{Diagnostics: diags, sources: map[string][]byte{s.File: s.Source}}
	}
	return err
}

func logger(l *zerolog.Logger) zerolog.Logger {
	if l == nil {
		return zerolog.Nop()
	}
	return *l
}
