package feature

import (
	"context"
	"fmt"

	"github.com/trellis-nlp/trellis/framework/corpus"
)

// Mapper is the fitted feature mapper: everything that turns sentences
// into the IDs a model was trained on, in one place, built once from a
// spec's templates (NewMapper, then Fit) or rebuilt from a model file
// (LoadMapper). It holds
//
//   - the templates, as the model file records them, and their compiled
//     extractors;
//   - the column layout the extractors were compiled against;
//   - the attribute and label dictionaries;
//   - the unknown-value handling: one reserved attribute per template,
//     "<unknown>/g", that stands for its values unseen in training, and
//     the template (group) of every attribute;
//   - whether the model has transitions (a transition template), and
//     which templates' attributes conjoin with the label bigram
//     (TemplateSpec.Labels, PairAttrs).
//
// A Mapper is not safe for concurrent use: extractors may keep buffers.
type Mapper struct {
	specs      []TemplateSpec
	extractors []Extractor
	// names[g] and types[g] are the template name and type of
	// extractors[g].
	names, types []string
	// bigram[g] is true for a template whose attributes conjoin with the
	// label bigram (TemplateSpec.Labels).
	bigram      []bool
	cols        Columns
	transitions bool
	// order is the Markov order the transition template sets (1 or 2).
	order int

	attrs, labels *Dictionary
	// attrGroup[a] is the index in extractors of the template that first
	// emitted attribute a (nil for a mapper loaded from a model file,
	// which does not record it: tagging never needs it).
	attrGroup []int32
	// unknown[g] is the attribute standing for template g's unseen values,
	// -1 to drop them; nil drops every unseen value (models that predate
	// the unknown attributes).
	unknown []int32
	fitted  bool
}

// MapperTemplate is one template handed to NewMapper: the decoded,
// validated template and the spec a model file keeps of it (whose Name is
// the template's block name).
type MapperTemplate struct {
	Spec     TemplateSpec
	Template Template
}

// TemplateError is a template that did not compile. Index is its place in
// the list given to NewMapper or LoadMapper, so that a caller can point at
// the block it came from.
type TemplateError struct {
	Index int
	Name  string
	Err   error
}

func (e *TemplateError) Error() string { return fmt.Sprintf("template %q: %v", e.Name, e.Err) }

func (e *TemplateError) Unwrap() error { return e.Err }

// UnknownAttrName is the name of the attribute that stands for template
// g's values unseen in training. The names live in the model's attribute
// list, so they are part of the model file format.
func UnknownAttrName(g int) string { return fmt.Sprintf("<unknown>/%d", g) }

// NewMapper compiles templates against cols into an unfitted Mapper. On
// error, the extractors compiled so far are closed (plugin processes).
func NewMapper(templates []MapperTemplate, cols Columns) (*Mapper, error) {
	m := &Mapper{cols: cols, order: 1}
	for i, t := range templates {
		x, err := t.Template.Compile(t.Spec.Name, cols)
		if err != nil {
			m.Close()
			return nil, &TemplateError{Index: i, Name: t.Spec.Name, Err: err}
		}
		if st, ok := t.Template.(StructureTemplate); ok && st.Transitions() {
			m.transitions = true
			m.order = TemplateOrder(st)
		}
		if !ValidLabels(t.Spec.Labels) {
			m.Close()
			return nil, &TemplateError{Index: i, Name: t.Spec.Name, Err: fmt.Errorf("labels must be empty or %q, got %q", LabelsBigram, t.Spec.Labels)}
		}
		if x == nil && t.Spec.Labels == LabelsBigram {
			m.Close()
			return nil, &TemplateError{Index: i, Name: t.Spec.Name, Err: fmt.Errorf("labels = %q needs a template that emits attributes", LabelsBigram)}
		}
		m.specs = append(m.specs, t.Spec)
		m.addExtractor(t.Spec.Name, t.Spec.Type, x, t.Spec.Labels == LabelsBigram)
	}
	return m, nil
}

// FitOptions adjust Fit.
type FitOptions struct {
	// MinCount drops attributes seen fewer times in training (1 or less:
	// keep all).
	MinCount int
	// BatchSize is the number of sentences per extraction batch (plugins
	// see one batch per call, the next one prefetched); 0 or less: all
	// sentences in one batch.
	BatchSize int
	// Done, if not nil, hears the size of each batch encoded.
	Done func(n int)
	// Base, when set, is the mapper of a model to continue training from
	// (its Record): its attributes and labels keep their IDs, none of
	// them is pruned, and the new data's attributes and labels are
	// appended after them. Its templates must be this mapper's (see
	// SameTemplates).
	Base *MapperRecord
}

// Fit builds the dictionaries from the training sentences and returns
// them encoded. Attributes are interned template by template within a
// batch, those seen fewer than MinCount times are dropped, and then each
// template gets its reserved unknown-value attribute, after every seen
// one: the IDs, and so the model file, depend only on the data and spec.
func (m *Mapper) Fit(ctx context.Context, sents []*corpus.Sentence, o FitOptions) (*Dataset, error) {
	e, err := m.startFit(o)
	if err != nil {
		return nil, err
	}
	batch := o.BatchSize
	if batch <= 0 {
		batch = max(len(sents), 1)
	}
	err = e.EncodeAll(ctx, sents, batch, o.Done)
	e.releaseDocuments()
	if err != nil {
		return nil, err
	}
	e.Prune(o.MinCount)
	m.finishFit(e)
	return e.Dataset(), nil
}

// startFit makes the encoder that fits m's dictionaries, seeded with
// o.Base's.
func (m *Mapper) startFit(o FitOptions) (*Encoder, error) {
	if m.fitted {
		return nil, fmt.Errorf("feature mapper fitted twice")
	}
	m.attrs, m.labels = NewDictionary(), NewDictionary()
	e := NewEncoder(m.attrs, m.labels, ModeTrain(), m.extractors, m.cols.Label)
	if o.Base != nil {
		if err := m.seed(e, o.Base); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// finishFit gives every template its unknown-value attribute, after the
// (pruned) attributes e interned, and marks m fitted.
func (m *Mapper) finishFit(e *Encoder) {
	m.attrGroup = e.AttrGroup
	for g := range m.extractors {
		// A base model's unknown-value attributes keep their IDs.
		id := m.attrs.InternString(UnknownAttrName(g))
		m.unknown = append(m.unknown, id)
		if int(id) == len(m.attrGroup) {
			m.attrGroup = append(m.attrGroup, int32(g))
		}
	}
	m.fitted = true
}

// Fitter fits a Mapper on a training corpus that comes batch by batch
// (read from disk as it is encoded, never whole in memory): Encode each
// batch in corpus order, then Finish. Attributes are interned template
// by template within a batch, so the IDs are Fit's when the batches are
// Fit's: BatchSize sentences, run on to the end of a document when an
// extractor reads documents (Encoder.EncodeAll, HasDocumentExtractor).
type Fitter struct {
	m        *Mapper
	e        *Encoder
	minCount int
}

// NewFitter starts fitting m with o's MinCount and Base (BatchSize and
// Done are the caller's: it makes the batches).
func (m *Mapper) NewFitter(o FitOptions) (*Fitter, error) {
	e, err := m.startFit(o)
	if err != nil {
		return nil, err
	}
	return &Fitter{m: m, e: e, minCount: o.MinCount}, nil
}

// Prefetch hands the batch after the one Encode gets next to the
// extractors that work in other processes (Encoder.Prefetch).
func (f *Fitter) Prefetch(sents []*corpus.Sentence) { f.e.Prefetch(sents) }

// WholeDocuments reports whether a batch must end at a document's end
// (an extractor reads documents).
func (f *Fitter) WholeDocuments() bool { return f.e.HasDocumentExtractor() }

// Encode interns and encodes the next batch. The Dataset returned holds
// that batch alone, its offsets from zero; it is the Fitter's, reused by
// the next call. With MinCount > 1 its IDs are those before pruning:
// Finish returns the remap they need.
func (f *Fitter) Encode(sents []*corpus.Sentence) (*Dataset, error) {
	f.e.Reset()
	if err := f.e.Encode(sents); err != nil {
		return nil, err
	}
	return f.e.Dataset(), nil
}

// Finish prunes the attributes seen fewer than MinCount times and
// completes the mapper. remap, when not nil, maps the IDs of every batch
// encoded to the final ones (Dataset.Remap: -1 for a dropped attribute).
func (f *Fitter) Finish() (remap []int32) {
	f.e.releaseDocuments()
	f.e.Reset()
	remap = f.e.PruneAttrs(f.minCount)
	f.m.finishFit(f.e)
	return remap
}

// Encode encodes sentences of any other corpus (dev, test) with the
// fitted dictionaries: a value unseen in training becomes its template's
// unknown-value attribute, and a gold label unseen in training becomes -1
// and is counted in unknownLabels, for the caller to report.
func (m *Mapper) Encode(sents []*corpus.Sentence) (d *Dataset, unknownLabels map[string]int, err error) {
	if !m.fitted {
		return nil, nil, fmt.Errorf("feature mapper used before Fit")
	}
	e := m.NewEncoder(m.cols.Label)
	err = e.Encode(sents)
	e.releaseDocuments()
	if err != nil {
		return nil, nil, err
	}
	return e.Dataset(), e.UnknownLabels, nil
}

// NewEncoder returns an encoder over the fitted dictionaries (after Fit or
// LoadMapper) that never grows them (unknown values and labels handled as
// in Encode: ModeUnknown), reading gold labels from column labelColumn
// (-1: none; tagging saves a lookup per token), for callers that encode
// batch after batch (the tagger: Reset, Prefetch, Forget).
func (m *Mapper) NewEncoder(labelColumn int) *Encoder {
	return NewEncoder(m.attrs, m.labels, ModeUnknown(m.unknown), m.extractors, labelColumn)
}

// addExtractor appends the extractor of template name of type typ, if it
// has one.
func (m *Mapper) addExtractor(name, typ string, x Extractor, bigram bool) {
	if x != nil {
		m.extractors = append(m.extractors, x)
		m.names = append(m.names, name)
		m.types = append(m.types, typ)
		m.bigram = append(m.bigram, bigram)
	}
}

// Bigrams reports whether a template's attributes conjoin with the label
// bigram (labels = "bigram").
func (m *Mapper) Bigrams() bool {
	for _, b := range m.bigram {
		if b {
			return true
		}
	}
	return false
}

// PairAttrs returns, for every attribute, whether its template conjoins
// it with the label bigram: such an attribute gets transition (pair)
// features in a model, never state features. It is nil when no template
// does, and for a mapper loaded from a model file (which has no attribute
// groups: the model's own structure says which attributes score pairs).
func (m *Mapper) PairAttrs() []bool {
	if !m.Bigrams() || m.attrGroup == nil {
		return nil
	}
	out := make([]bool, len(m.attrGroup))
	for a, g := range m.attrGroup {
		out[a] = m.bigram[g]
	}
	return out
}

// ReadColumns returns the names of the columns the extractors read, in
// the columns' order, and the names of the templates whose extractor does
// not declare what it reads (is not a ColumnReader), about which nothing
// can be said.
func (m *Mapper) ReadColumns() (columns, undeclared []string) {
	read := make([]bool, len(m.cols.Names))
	for g, x := range m.extractors {
		cr, ok := x.(ColumnReader)
		if !ok {
			undeclared = append(undeclared, m.names[g])
			continue
		}
		for _, c := range cr.ReadColumns() {
			if c >= 0 && c < len(read) {
				read[c] = true
			}
		}
	}
	for c, r := range read {
		if r {
			columns = append(columns, m.cols.Names[c])
		}
	}
	return columns, undeclared
}

// Close releases the extractors' resources (plugin processes).
func (m *Mapper) Close() error {
	var first error
	for _, x := range m.extractors {
		if c, ok := x.(Closer); ok {
			if err := c.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// Templates returns the templates as a model file records them, in spec
// order (transition templates included). The slice is shared.
func (m *Mapper) Templates() []TemplateSpec { return m.specs }

// Extractors returns the compiled extractors of the templates that emit
// attributes; a template group is an index into it. The slice is shared.
func (m *Mapper) Extractors() []Extractor { return m.extractors }

// Columns returns the column layout the extractors were compiled against.
func (m *Mapper) Columns() Columns { return m.cols }

// Transitions reports whether the model has label transitions.
func (m *Mapper) Transitions() bool { return m.transitions }

// Order returns the model's Markov order: 2 when the transition template
// sets order = 2 (a second-order model, linear.WithTrigrams), else 1.
func (m *Mapper) Order() int { return max(m.order, 1) }

// Attrs returns the attribute dictionary (nil before Fit).
func (m *Mapper) Attrs() *Dictionary { return m.attrs }

// Labels returns the label dictionary (nil before Fit).
func (m *Mapper) Labels() *Dictionary { return m.labels }

// NumGroups returns the number of templates that emit attributes.
func (m *Mapper) NumGroups() int { return len(m.extractors) }

// GroupTypes returns the template type of every group ("emission",
// "suffix_trie", …): a learner that reads particular templates (tnt) finds
// their groups by it. The slice is shared.
func (m *Mapper) GroupTypes() []string { return m.types }

// AttrGroups returns, for every attribute, the template group that emitted
// it; the HMM normalizes its emissions per group. It is nil for a mapper
// loaded from a model file. The slice is shared.
func (m *Mapper) AttrGroups() []int32 { return m.attrGroup }

// UnknownAttrs returns, per template group, the attribute that stands for
// the group's values unseen in training (-1: dropped). It never occurs in
// training data, so only a learner that estimates it explicitly (the HMM)
// gives it weights. The slice is shared.
func (m *Mapper) UnknownAttrs() []int32 { return m.unknown }
