package feature

import "fmt"

// MapperRecord is what a model file keeps of a Mapper: the labels,
// templates, transitions and unknown_attrs fields of its JSON header and
// the attribute list that follows the header (see package model, which
// places them). The attribute groups are not kept: tagging never needs
// them, and leaving them out keeps the model file format as it was.
type MapperRecord struct {
	Labels       []string
	Templates    []TemplateSpec
	Transitions  bool
	UnknownAttrs []int32
	Attrs        []string
}

// Record returns what a model file keeps of a fitted mapper. Its slices
// are the mapper's own.
func (m *Mapper) Record() MapperRecord {
	return MapperRecord{
		Labels: m.labels.Names(), Templates: m.specs, Transitions: m.transitions,
		UnknownAttrs: m.unknown, Attrs: m.attrs.Names(),
	}
}

// LoadMapper rebuilds the mapper a model file records: every template is
// re-created from reg with its config decoded strictly (an unknown key is
// an error, see Registry.Instantiate) and compiled against cols, the
// columns of the model's corpus format. The dictionaries are read-only
// (DictionaryOf), indexed for lookups. On error, the extractors compiled
// so far are closed.
func LoadMapper(r MapperRecord, reg *Registry, cols Columns) (*Mapper, error) {
	m := &Mapper{specs: r.Templates, cols: cols, transitions: r.Transitions, fitted: true}
	for i, ts := range r.Templates {
		t, err := reg.Instantiate(ts)
		if err != nil {
			m.Close()
			return nil, err
		}
		x, err := t.Compile(ts.Name, cols)
		if err != nil {
			m.Close()
			return nil, &TemplateError{Index: i, Name: ts.Name, Err: err}
		}
		m.addExtractor(ts.Name, x)
	}
	if err := checkUnknownAttrs(r.UnknownAttrs, len(m.extractors), len(r.Attrs)); err != nil {
		m.Close()
		return nil, err
	}
	m.attrs, m.labels = DictionaryOf(r.Attrs), DictionaryOf(r.Labels)
	// A model without unknown-value attributes drops unseen values.
	if len(r.UnknownAttrs) > 0 {
		m.unknown = r.UnknownAttrs
	}
	return m, nil
}

// checkUnknownAttrs checks a model's unknown-value attributes against its
// templates and attribute list: an empty list (drop unseen values) or one
// attribute, or -1, per template that emits attributes.
func checkUnknownAttrs(unknown []int32, groups, attrs int) error {
	if len(unknown) == 0 {
		return nil
	}
	if len(unknown) != groups {
		return fmt.Errorf("model records %d unknown-value attributes for %d templates", len(unknown), groups)
	}
	for g, a := range unknown {
		if a < -1 || int(a) >= attrs {
			return fmt.Errorf("corrupted model: unknown-value attribute %d of template %d out of range", a, g)
		}
	}
	return nil
}
