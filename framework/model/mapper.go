package model

import "github.com/trellis-nlp/trellis/framework/feature"

// SetMapper records a fitted feature mapper in m: labels, templates,
// transitions and unknown-value attributes in the header, the attribute
// names after it. The fields and their order are the model file format's,
// unchanged from before the mapper was a type.
func (m *Model) SetMapper(mp *feature.Mapper) {
	r := mp.Record()
	m.Labels, m.Templates, m.Transitions, m.UnknownAttrs = r.Labels, r.Templates, r.Transitions, r.UnknownAttrs
	m.Attrs = r.Attrs
}

// Mapper rebuilds the feature mapper m was trained with, its templates
// re-created from reg (configs decoded strictly) and compiled against
// cols, the columns of m's corpus format.
func (m *Model) Mapper(reg *feature.Registry, cols feature.Columns) (*feature.Mapper, error) {
	return feature.LoadMapper(feature.MapperRecord{
		Labels: m.Labels, Templates: m.Templates, Transitions: m.Transitions,
		UnknownAttrs: m.UnknownAttrs, Attrs: m.Attrs,
	}, reg, cols)
}
