// Checking gold labels against the declared scheme.

package run

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/plural"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// DiagnosticsError is a run stopped by the spec: the data contradicts
// what it declares (exit code 2, like a spec that does not decode).
type DiagnosticsError struct{ Diags hcl.Diagnostics }

func (e *DiagnosticsError) Error() string { return e.Diags.Error() }

// schemeCheck tallies one corpus's gold label sequences against the
// declared scheme, remembering where the first contradiction is.
type schemeCheck struct {
	corpus   *spec.Corpus
	declared scheme.Scheme
	labelCol int
	fit      scheme.Fit
	// first is "file:line: reason" of the first contradicting token.
	first string
	// forbidden counts the sentences a constrained decoder could not
	// produce (scheme.Forbidden), firstForbidden the first such token.
	forbidden      int
	firstForbidden string
	labels         []string
}

func newSchemeCheck(s *spec.Spec, c *spec.Corpus, labelCol int) *schemeCheck {
	return &schemeCheck{corpus: c, declared: s.Labels.Scheme, labelCol: labelCol}
}

// add tallies one sentence.
func (c *schemeCheck) add(st *corpus.Sentence) {
	if c.declared == scheme.None || c.labelCol < 0 {
		return
	}
	c.labels = c.labels[:0]
	for _, tok := range st.Tokens {
		c.labels = append(c.labels, tok[c.labelCol])
	}
	before := c.fit.Contradicting(c.declared)
	c.fit.Add(c.labels)
	if c.fit.Contradicting(c.declared) == before {
		return
	}
	if c.first == "" {
		contra, _ := scheme.Check(c.labels, c.declared)
		c.first = place(st, contra)
	}
	if contra, bad := scheme.Forbidden(c.labels, c.declared); bad {
		c.forbidden++
		if c.firstForbidden == "" {
			c.firstForbidden = place(st, contra)
		}
	}
}

// place is "file:line: reason" of a contradiction in sentence st.
func place(st *corpus.Sentence, contra scheme.Contradiction) string {
	line := st.Line
	if contra.Index < len(st.TokenLineNo) {
		line = st.TokenLineNo[contra.Index]
	}
	return fmt.Sprintf("%s:%d: %s", st.File, line, contra.Reason)
}

// diagnostic returns what the tally says about the declaration, or nil.
// Labels that contradict the scheme are an error in the training corpus
// when decoding is constrained and the decoder would forbid some gold
// sequences (scheme.Forbidden), and a warning otherwise — labels merely
// without the scheme's prefixes, which Allowed leaves unconstrained,
// included.
func (c *schemeCheck) diagnostic(s *spec.Spec, training bool) *hcl.Diagnostic {
	if c.declared == scheme.None || c.fit.Sentences() == 0 {
		return nil
	}
	suggestion, ok := c.fit.Suggest(c.declared)
	bad := c.fit.Contradicting(c.declared)
	rng := s.Labels.SchemeRange
	if bad == 0 {
		if !ok {
			return nil
		}
		// Declared IOB1, reads as IOB2: nothing breaks, but constrained
		// decoding is off that could be on.
		return &hcl.Diagnostic{Severity: hcl.DiagWarning, Subject: &rng,
			Summary: "Labels look like another scheme",
			Detail: fmt.Sprintf("Every chunk in corpus %q (%s) begins with B-, as in %s; %s data writes I-X after O. Did you mean scheme = %q? (It also turns constrained decoding on.)",
				c.corpus.Name, c.corpus.Path, suggestion, c.declared, suggestion.String())}
	}
	d := &hcl.Diagnostic{Severity: hcl.DiagWarning, Subject: &rng, Summary: "Labels contradict the scheme"}
	first := c.first
	if training && forbids(s) && c.forbidden > 0 {
		first = c.firstForbidden
	}
	detail := fmt.Sprintf("%s, which %s does not allow; %d of %s of corpus %q %s %s",
		first, c.declared, bad, plural.Count(c.fit.Sentences(), "sentence"), c.corpus.Name, plural.Pick(bad, "contradicts", "contradict"), c.declared)
	if training && forbids(s) && c.forbidden > 0 {
		d.Severity = hcl.DiagError
		detail += fmt.Sprintf(", and constrained decoding would forbid the gold labels of %d (set constrained = false to train on them anyway)", c.forbidden)
	}
	if ok {
		detail += fmt.Sprintf(". The labels fit %s: did you mean scheme = %q?", suggestion, suggestion.String())
	} else {
		detail += `. No scheme fits these labels: check the label column, or declare scheme = "none".`
	}
	d.Detail = detail
	return d
}

// forbids reports whether constrained decoding would be turned against
// gold labels that contradict the scheme: with an encoding the learners
// see the gold chunks re-encoded, always well-formed, so it never is.
func forbids(s *spec.Spec) bool {
	return s.Labels.Constrained && s.Labels.Encode == scheme.None
}

// checkUpFront checks the train, dev and test corpora of a cross-validation
// or an ablation once, before its many runs, whose sessions (nested) skip
// the check.
func (ss *session) checkUpFront() error {
	s := ss.spec
	var names []string
	for _, n := range []string{s.Evaluation.Train, s.Evaluation.Dev, s.Evaluation.Test} {
		if n != "" {
			names = append(names, n)
		}
	}
	_, diags, err := CheckData(s, names)
	switch {
	case err != nil:
		return err
	case diags.HasErrors():
		return &DiagnosticsError{diags}
	case len(diags) > 0 && ss.opts.Warn != nil:
		ss.opts.Warn(diags)
	}
	return nil
}
