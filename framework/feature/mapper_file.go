package feature

import (
	"bytes"
	"fmt"
	"math"
	"strings"
)

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
		if !ValidLabels(ts.Labels) {
			m.Close()
			return nil, &TemplateError{Index: i, Name: ts.Name, Err: fmt.Errorf("unknown labels %q (this trellis knows %q)", ts.Labels, LabelsBigram)}
		}
		m.addExtractor(ts.Name, ts.Type, x, ts.Labels == LabelsBigram)
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

// SameTemplates reports how the templates of a model (r) differ from
// those of this mapper, "" when they are the same: a model can be trained
// further only on the attributes its templates emit.
func (m *Mapper) SameTemplates(r MapperRecord) string {
	return TemplatesDiff(r.Templates, m.specs)
}

// TemplatesDiff says how the templates want differ from have (name,
// type, config or order), "" when they are the same.
func TemplatesDiff(have, want []TemplateSpec) string {
	byName := map[string]TemplateSpec{}
	for _, t := range have {
		byName[t.Name] = t
	}
	for _, t := range want {
		h, ok := byName[t.Name]
		switch {
		case !ok:
			return fmt.Sprintf("template %q is not in the model", t.Name)
		case h.Type != t.Type:
			return fmt.Sprintf("template %q is of type %s in the model, %s here", t.Name, h.Type, t.Type)
		case !bytes.Equal(h.Config, t.Config):
			return fmt.Sprintf("template %q has config %s in the model, %s here", t.Name, h.Config, t.Config)
		}
	}
	wantNames := map[string]bool{}
	for _, t := range want {
		wantNames[t.Name] = true
	}
	for _, t := range have {
		if !wantNames[t.Name] {
			return fmt.Sprintf("the model has template %q, which is missing here", t.Name)
		}
	}
	for i := range want {
		if want[i].Name != have[i].Name {
			return fmt.Sprintf("the templates are in another order (the model's: %s)", templateNames(have))
		}
	}
	return ""
}

func templateNames(ts []TemplateSpec) string {
	var names []string
	for _, t := range ts {
		names = append(names, t.Name)
	}
	return strings.Join(names, ", ")
}

// seed fills the empty dictionaries of a Fit with a base model's
// attributes and labels, in their order, so that they keep their IDs.
// Their counts start at the largest count, so that pruning keeps them
// all; their template group is not recorded in a model file and is -1
// (only the HMM reads groups, and it does not continue training).
func (m *Mapper) seed(e *Encoder, base *MapperRecord) error {
	if d := m.SameTemplates(*base); d != "" {
		return fmt.Errorf("the model to continue has other templates: %s", d)
	}
	if base.Transitions != m.transitions {
		return fmt.Errorf("the model to continue has transitions %v, the templates %v", base.Transitions, m.transitions)
	}
	if err := checkUnknownAttrs(base.UnknownAttrs, len(m.extractors), len(base.Attrs)); err != nil {
		return err
	}
	for _, a := range base.Attrs {
		if id := m.attrs.InternString(a); int(id) != len(e.AttrGroup) {
			return fmt.Errorf("corrupted model: attribute %q listed twice", a)
		}
		m.attrs.counts[len(m.attrs.counts)-1] = math.MaxInt64 / 2
		e.AttrGroup = append(e.AttrGroup, -1)
	}
	for i, l := range base.Labels {
		if id := m.labels.InternString(l); int(id) != i {
			return fmt.Errorf("corrupted model: label %q listed twice", l)
		}
	}
	return nil
}
