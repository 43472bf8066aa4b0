package learn

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// ValidateFeatures checks a features = "observed" | "all" setting, which
// every discriminative learner offers.
func ValidateFeatures(v string) hcl.Diagnostics {
	switch v {
	case "", "observed", "all":
		return nil
	}
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid features setting",
		Detail: fmt.Sprintf(`features must be "observed" (attribute-label pairs seen in training) or "all", got %q`, v)}}
}

// NewModel allocates the model structure a features setting asks for,
// with zero weights (Problem.Init aside: see StartModel).
// Attributes marked in p.Pairs get pair features for the label bigrams
// they were seen with in training, whatever the setting (see
// linear.WithPairs).
//
// With p.Order 2 the model is second order, with a weight for each label
// trigram of the training data (linear.WithTrigrams).
func NewModel(features string, p *Problem) *linear.Model {
	var m *linear.Model
	if features == "all" {
		m = linear.NewDense(p.NumAttrs, p.NumLabels, p.Transitions)
	} else {
		m = linear.NewObserved(p.Train, p.NumAttrs, p.NumLabels, p.Transitions)
	}
	m = linear.WithPairs(m, p.Train, p.Pairs)
	if p.Order == 2 && p.Transitions {
		m2, err := linear.WithTrigrams(m, p.Train)
		if err != nil {
			// WithTrigrams fails only without transitions, excluded above.
			panic(err)
		}
		m = m2
	}
	return m
}

// StartModel is the model a learner starts training from: NewModel's with
// zero weights or, when the Problem continues a model (Init), with its
// weights on the union of its structure and NewModel's (new weights
// zero).
func StartModel(features string, p *Problem) (*linear.Model, error) {
	m := NewModel(features, p)
	if p.Init == nil {
		return m, nil
	}
	if p.Init.States() > 1 {
		return nil, fmt.Errorf("init_model is a latent CRF (%d hidden states per label): its weights are over states, not labels, and cannot be continued", p.Init.HiddenStates)
	}
	return linear.Continue(p.Init, m)
}

// Complete reports whether every token of sentence s has a gold label the
// model knows; learners skip the others rather than guess.
func Complete(d *feature.Dataset, s int) bool {
	lo, hi := d.Sentence(s)
	for t := lo; t < hi; t++ {
		if d.Labels[t] < 0 {
			return false
		}
	}
	return hi > lo
}

// CompleteSentences returns the training sentences a learner can use (see
// Complete), in corpus order, warning about the skipped ones. It is an
// error, naming the learner, when none is left: training on nothing would
// give a model of zeros that looks like a result.
func CompleteSentences(p *Problem, learner string) ([]int, error) {
	d := p.Train
	var sents []int
	for s := 0; s < d.NumSentences(); s++ {
		if Complete(d, s) {
			sents = append(sents, s)
		}
	}
	if skipped := d.NumSentences() - len(sents); skipped > 0 {
		p.Log.Warn().Int("sentences", skipped).Msg("skipping training sentences without a complete gold labelling")
	}
	if len(sents) == 0 {
		return nil, fmt.Errorf("%s: no training sentence has a complete labelling", learner)
	}
	return sents, nil
}
