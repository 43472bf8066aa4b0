// Package builtin registers everything trellis can run by name: the builtin
// feature templates and the learners. This file is the one place where a
// new template or learner type is wired in.
package builtin

import (
	"github.com/trellis-nlp/trellis/builtin/affix"
	"github.com/trellis-nlp/trellis/builtin/attributes"
	"github.com/trellis-nlp/trellis/builtin/bias"
	"github.com/trellis-nlp/trellis/builtin/boundary"
	"github.com/trellis-nlp/trellis/builtin/digit"
	"github.com/trellis-nlp/trellis/builtin/emission"
	"github.com/trellis-nlp/trellis/builtin/hyphen"
	"github.com/trellis-nlp/trellis/builtin/shape"
	"github.com/trellis-nlp/trellis/builtin/transition"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/crf"
	"github.com/trellis-nlp/trellis/framework/learn/hmm"
	"github.com/trellis-nlp/trellis/framework/learn/perceptron"
)

// RegisterTemplates adds the builtin feature templates.
func RegisterTemplates(r *feature.Registry) {
	r.RegisterTemplate("emission", emission.New)
	r.RegisterTemplate("transition", transition.New)
	r.RegisterTemplate("prefix", affix.NewPrefix)
	r.RegisterTemplate("suffix", affix.NewSuffix)
	r.RegisterTemplate("shape", shape.New)
	r.RegisterTemplate("case", shape.NewCase)
	r.RegisterTemplate("digit", digit.New)
	r.RegisterTemplate("hyphen", hyphen.New)
	r.RegisterTemplate("boundary", boundary.New)
	r.RegisterTemplate("bias", bias.New)
	r.RegisterTemplate("attributes", attributes.New)
}

// RegisterLearners adds the learners.
func RegisterLearners(r *learn.Registry) {
	r.Register("hmm", hmm.New)
	r.Register("perceptron", perceptron.New)
	r.Register("crf", crf.New)
}

// Registries returns registries filled with everything builtin.
func Registries() (*feature.Registry, *learn.Registry) {
	t, l := feature.NewRegistry(), learn.NewRegistry()
	RegisterTemplates(t)
	RegisterLearners(l)
	return t, l
}
