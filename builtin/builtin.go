// Package builtin registers everything trellis can run by name: the builtin
// feature templates and the learners. This file is the one place where a
// new template or learner type is wired in (corpus formats, which the
// corpus package itself must resolve, are registered in corpus.Formats).
package builtin

import (
	"github.com/trellis-nlp/trellis/builtin/affix"
	"github.com/trellis-nlp/trellis/builtin/attributes"
	"github.com/trellis-nlp/trellis/builtin/bias"
	"github.com/trellis-nlp/trellis/builtin/boundary"
	"github.com/trellis-nlp/trellis/builtin/clusters"
	"github.com/trellis-nlp/trellis/builtin/decisions"
	"github.com/trellis-nlp/trellis/builtin/digit"
	"github.com/trellis-nlp/trellis/builtin/document"
	"github.com/trellis-nlp/trellis/builtin/embedding"
	"github.com/trellis-nlp/trellis/builtin/emission"
	"github.com/trellis-nlp/trellis/builtin/history"
	"github.com/trellis-nlp/trellis/builtin/hyphen"
	"github.com/trellis-nlp/trellis/builtin/lexicon"
	"github.com/trellis-nlp/trellis/builtin/shape"
	"github.com/trellis-nlp/trellis/builtin/suffixtrie"
	"github.com/trellis-nlp/trellis/builtin/transition"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/learn/arow"
	"github.com/trellis-nlp/trellis/framework/learn/crf"
	"github.com/trellis-nlp/trellis/framework/learn/hmm"
	"github.com/trellis-nlp/trellis/framework/learn/maxent"
	"github.com/trellis-nlp/trellis/framework/learn/memm"
	"github.com/trellis-nlp/trellis/framework/learn/pa"
	"github.com/trellis-nlp/trellis/framework/learn/perceptron"
	"github.com/trellis-nlp/trellis/framework/learn/tnt"
	transitionlearner "github.com/trellis-nlp/trellis/framework/learn/transition"
)

// RegisterTemplates adds the builtin feature templates. It panics if r
// already holds one of their names (registry.Registry.MustRegister).
func RegisterTemplates(r *feature.Registry) {
	r.MustRegister("emission", emission.New)
	r.MustRegister("transition", transition.New)
	r.MustRegister("prefix", affix.NewPrefix)
	r.MustRegister("suffix", affix.NewSuffix)
	r.MustRegister("shape", shape.New)
	r.MustRegister("case", shape.NewCase)
	r.MustRegister("digit", digit.New)
	r.MustRegister("hyphen", hyphen.New)
	r.MustRegister("boundary", boundary.New)
	r.MustRegister("bias", bias.New)
	r.MustRegister("attributes", attributes.New)
	r.MustRegister("document", document.New)
	r.MustRegister("history", history.New)
	r.MustRegister("lexicon", lexicon.New)
	r.MustRegister("clusters", clusters.New)
	r.MustRegister("embedding", embedding.New)
	r.MustRegister("suffix_trie", suffixtrie.New)
	r.MustRegister("decisions", decisions.New)
}

// RegisterLearners adds the learners. It panics if r already holds one of
// their names.
func RegisterLearners(r *learn.Registry) {
	r.MustRegister("hmm", hmm.New)
	r.MustRegister("perceptron", perceptron.New)
	r.MustRegister("crf", crf.New)
	r.MustRegister("pa", pa.New)
	r.MustRegister("arow", arow.New)
	r.MustRegister("maxent", maxent.New)
	r.MustRegister("memm", memm.New)
	r.MustRegister("tnt", tnt.New)
	r.MustRegister("transition", transitionlearner.New)
}

// Registries returns registries filled with everything builtin.
func Registries() (*feature.Registry, *learn.Registry) {
	t, l := feature.NewRegistry(), learn.NewRegistry()
	RegisterTemplates(t)
	RegisterLearners(l)
	return t, l
}
