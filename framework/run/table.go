// The comparison table, confidence intervals and pairwise significance.

package run

import (
	"fmt"
	"io"
	"sort"

	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/scheme"
)

// BootstrapSamples is the number of resamples behind every confidence
// interval and p-value a run reports.
const BootstrapSamples = 1000

// compareLearners adds each learner's confidence interval and every pair's
// significance tests, all seeded from the spec so reruns agree.
func compareLearners(res *Result, sch scheme.Scheme, seed uint64) error {
	o := eval.Options{Scheme: sch}
	for _, name := range res.Order {
		lm := res.Metrics[name]
		lm.MainMetric = eval.MetricName(sch)
		lm.MainValue = MainMetric(lm.Result, sch)
		lo, hi, err := eval.Interval(res.tests[name], o, BootstrapSamples, seed)
		if err != nil {
			return err
		}
		lm.CILow, lm.CIHigh = lo, hi
	}
	for i, a := range res.Order {
		for _, b := range res.Order[i+1:] {
			ta, tb := res.tests[a], res.tests[b]
			c, err := compareTests(ta, tb, sch, seed)
			if err != nil {
				return fmt.Errorf("comparing %s and %s: %w", a, b, err)
			}
			b01, b10, p := eval.McNemar(ta, tb)
			res.Comparisons = append(res.Comparisons, Comparison{A: a, B: b, Comparison: c,
				McNemarAWrongBRight: b01, McNemarARightBWrong: b10, McNemarP: p})
		}
	}
	return nil
}

// MainMetric is span F1 for span schemes, word F1 for segmentation, token
// accuracy otherwise.
func MainMetric(r *eval.Result, sch scheme.Scheme) float64 {
	switch {
	case sch.HasSpans() && r.F1 != nil:
		return *r.F1
	case r.Words != nil:
		return r.Words.F1
	}
	return r.Accuracy
}

// WriteTable prints the learner comparison.
func WriteTable(w io.Writer, res *Result, sch scheme.Scheme) {
	names := append([]string(nil), res.Order...)
	if len(names) == 0 {
		for n := range res.Metrics {
			names = append(names, n)
		}
		sort.Strings(names)
	}
	seg := sch.IsSegmentation()
	width := 14
	for _, n := range names {
		width = max(width, len(n))
	}
	fmt.Fprintf(w, "%-*s %9s", width, "learner", "accuracy")
	if sch.HasSpans() || seg {
		fmt.Fprintf(w, " %9s %9s %9s", "precision", "recall", "F1")
	}
	fmt.Fprintf(w, " %15s %9s %9s %10s %12s %10s\n", "95% CI", "IV acc", "OOV acc", "train s", "tokens/s", "model MB")
	for _, n := range names {
		m := res.Metrics[n]
		fmt.Fprintf(w, "%-*s %9.2f", width, n, 100*m.Accuracy)
		switch {
		case sch.HasSpans() && m.F1 != nil:
			fmt.Fprintf(w, " %9.2f %9.2f %9.2f", 100**m.Precision, 100**m.Recall, 100**m.F1)
		case seg && m.Words != nil:
			fmt.Fprintf(w, " %9.2f %9.2f %9.2f", 100*m.Words.Precision, 100*m.Words.Recall, 100*m.Words.F1)
		case sch.HasSpans() || seg:
			fmt.Fprintf(w, " %9s %9s %9s", "-", "-", "-")
		}
		fmt.Fprintf(w, " %15s %9s %9s %10.2f %12.0f %10.2f\n", fmt.Sprintf("[%.2f, %.2f]", 100*m.CILow, 100*m.CIHigh),
			pctOf(m.IVAccuracy, m.IVTokens), pctOf(m.OOVAccuracy, m.OOVTokens), m.TrainSeconds, m.TagTokensPerSecond, float64(m.ModelBytes)/(1<<20))
	}
	if len(res.Comparisons) == 0 {
		return
	}
	fmt.Fprintf(w, "\npairwise significance on %s (%d bootstrap / randomization samples over test sentences):\n",
		res.Comparisons[0].Metric, BootstrapSamples)
	pairWidth := 2*width + 4
	fmt.Fprintf(w, "%-*s %8s %17s %10s %12s\n", pairWidth, "A vs B", "A - B", "95% CI of A - B", "p (AR)", "McNemar p")
	for _, c := range res.Comparisons {
		fmt.Fprintf(w, "%-*s %+8.2f %17s %10.4f %12.4g\n", pairWidth, c.A+" vs "+c.B, 100*c.Diff,
			fmt.Sprintf("[%+.2f, %+.2f]", 100*c.CILow, 100*c.CIHigh), c.PValue, c.McNemarP)
	}
}

func compareTests(a, b []eval.Sentence, sch scheme.Scheme, seed uint64) (*eval.Comparison, error) {
	return eval.Compare(a, b, eval.Options{Scheme: sch}, BootstrapSamples, seed)
}

// pctOf renders an accuracy over n tokens as a percentage, "-" when there
// were none (a test set without unseen words has no OOV accuracy, not 0).
func pctOf(acc float64, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", 100*acc)
}
