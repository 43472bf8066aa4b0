// This file holds the spec's checks of templates that read the decision
// history (feature.DecisionTemplate): only learners that search left to
// right (learn.DecisionLearner) can train on them.

package spec

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/learn"
)

// checkDecisionLearners refuses, at the template block, a template that
// reads the decision history when one of the spec's learners cannot use
// it, naming the learner types that can (from the registry); and a second
// such template (a model has one history layout).
func (s *Spec) checkDecisionLearners() hcl.Diagnostics {
	var diags hcl.Diagnostics
	var first *TemplateInstance
	for _, t := range s.Features.Templates {
		if _, ok := t.Template.(feature.DecisionTemplate); !ok {
			continue
		}
		if first != nil {
			diags = append(diags, errorAt(t.Range.Ptr(), "Second decisions template",
				fmt.Sprintf("Template %q reads the decision history, as template %q (at %s:%d) does; a spec has at most one such template. Merge their settings into one block.",
					t.Name, first.Name, first.Range.Filename, first.Range.Start.Line)))
			continue
		}
		first = t
		for _, l := range s.Learners {
			if learn.SearchBeam(l.Learner) > 0 {
				continue
			}
			diags = append(diags, errorAt(t.Range.Ptr(), "Decision-history template with a learner that cannot use it",
				fmt.Sprintf("Template %q (type %s) reads the labels already assigned, which only a learner that labels left to right can use; learner %q (type %s, at %s:%d) decodes on the lattice. Learner types that take it: %s. Remove the learner or the template.",
					t.Name, t.Type, l.Name, l.Type, l.Range.Filename, l.Range.Start.Line, andList(s.decisionLearnerTypes()))))
		}
	}
	return diags
}

// decisionLearnerTypes are the registered learner types that take a
// decisions template (learn.DecisionLearner).
func (s *Spec) decisionLearnerTypes() []string {
	var types []string
	if s.LearnerTypes == nil {
		return nil
	}
	for _, name := range s.LearnerTypes.Names() {
		if l, ok := s.LearnerTypes.New(name); ok && learn.SearchBeam(l) > 0 {
			types = append(types, name)
		}
	}
	return types
}
