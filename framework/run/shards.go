// The shards check: a learner's shards setting larger than the training
// sentences it would deal out is a spec error, found once the training
// corpus is read and reported at the setting before any learner trains.

package run

import (
	"errors"
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/plural"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// checkShards returns a *DiagnosticsError placed at the shards setting
// of every learner of learners that asks for more shards than train has
// usable sentences, nil when none does.
func checkShards(learners []*spec.LearnerInstance, train *feature.Dataset) error {
	var diags hcl.Diagnostics
	for _, li := range learners {
		var se *learn.ShardsError
		if !errors.As(learn.CheckShards(li.Config, train), &se) {
			continue
		}
		rng := li.SettingRange("shards")
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Subject: &rng, Summary: "More shards than training sentences",
			Detail: fmt.Sprintf("Learner %q asks for %d shards, but the training corpus has %s with a complete labelling to deal out into them: use at most %d.",
				li.Name, se.Shards, plural.Count(se.Sentences, "sentence"), se.Sentences)})
	}
	if diags.HasErrors() {
		return &DiagnosticsError{diags}
	}
	return nil
}
