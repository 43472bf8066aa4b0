// Feature ablation: one learner rerun without (or with only) each template.

package run

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/fileio"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// AblationRow is one feature-template variant of an ablation.
type AblationRow struct {
	// Variant is "all", "without NAME" or "only NAME".
	Variant  string  `json:"variant"`
	Template string  `json:"template,omitempty"`
	Metric   float64 `json:"metric"`
	// Delta is Metric minus the full feature set's.
	Delta  float64 `json:"delta"`
	CILow  float64 `json:"ci95_low"`
	CIHigh float64 `json:"ci95_high"`
	// PValue tests the variant against the full set on the same test
	// sentences (approximate randomization).
	PValue float64 `json:"p_value"`
}

// Ablation reruns one learner with each feature template removed (and,
// with alone, with each template on its own), everything else equal, and
// reports how the main metric moves. The variants' run directories go
// under OutDir/ablation/.
func Ablation(ctx context.Context, o Options, learner string, alone bool) ([]AblationRow, error) {
	ss := newSession(&o)
	s := ss.spec
	if s.Learner(learner) == nil {
		return nil, &ArgumentError{fmt.Sprintf("--ablate %q: the spec has no such learner", learner)}
	}
	if len(s.Features.Templates) < 2 {
		return nil, &ArgumentError{"--ablate needs a spec with at least two feature templates"}
	}
	type variant struct {
		name, template string
		templates      []*spec.TemplateInstance
	}
	all := s.Features.Templates
	variants := []variant{{name: "all", templates: all}}
	for i, t := range all {
		without := append(append([]*spec.TemplateInstance(nil), all[:i]...), all[i+1:]...)
		variants = append(variants, variant{"without " + t.Name, t.Name, without})
	}
	if alone {
		for _, t := range all {
			only := []*spec.TemplateInstance{t}
			// A lone state template keeps the transitions, or the variant
			// would also measure the loss of the label bigrams.
			for _, u := range all {
				if u.Type == "transition" && u != t {
					only = append(only, u)
				}
			}
			variants = append(variants, variant{"only " + t.Name, t.Name, only})
		}
	}
	if err := ss.checkUpFront(); err != nil {
		return nil, err
	}
	var rows []AblationRow
	var base *LearnerMetrics
	var baseTest []eval.Sentence
	for k, v := range variants {
		vs := *s
		vs.Features.Templates = v.templates
		dir := filepath.Join(ss.outDir, "ablation", fmt.Sprintf("%02d-%s", k, safeName(v.name)))
		vss := ss.nested(&vs, dir, ss.log.With().Str("variant", v.name).Logger())
		vss.learners = []string{learner}
		vss.log.Info().Msg("ablation variant")
		res, err := vss.run(ctx)
		if err != nil {
			return nil, fmt.Errorf("ablation %q: %w", v.name, err)
		}
		lm := res.Metrics[learner]
		row := AblationRow{Variant: v.name, Template: v.template, Metric: lm.MainValue, CILow: lm.CILow, CIHigh: lm.CIHigh, PValue: 1}
		if base == nil {
			base, baseTest = lm, res.tests[learner]
		} else {
			row.Delta = lm.MainValue - base.MainValue
			if c, err := compareTests(res.tests[learner], baseTest, s.Labels.Scheme, s.Seed); err == nil {
				row.PValue = c.PValue
			}
		}
		rows = append(rows, row)
	}
	if err := fileio.WriteJSON(filepath.Join(ss.outDir, "ablation.json"), rows); err != nil {
		return nil, err
	}
	if ss.stdout != nil {
		WriteAblation(ss.stdout, rows, learner, base.MainMetric)
	}
	return rows, nil
}

// WriteAblation prints an ablation table.
func WriteAblation(w io.Writer, rows []AblationRow, learner, metric string) {
	fmt.Fprintf(w, "feature ablation, learner %s, metric %s (test set):\n", learner, metric)
	fmt.Fprintf(w, "%-28s %9s %16s %9s %10s\n", "variant", metric, "95% CI", "delta", "p (AR)")
	for _, r := range rows {
		delta, p := "", ""
		if r.Variant != "all" {
			delta, p = fmt.Sprintf("%+9.2f", 100*r.Delta), fmt.Sprintf("%10.4f", r.PValue)
		}
		fmt.Fprintf(w, "%-28s %9.2f %16s %9s %10s\n", r.Variant, 100*r.Metric,
			fmt.Sprintf("[%.2f, %.2f]", 100*r.CILow, 100*r.CIHigh), delta, p)
	}
}

func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '-'
		}
	}
	return string(b)
}
