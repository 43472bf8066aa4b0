package eval

import (
	"bufio"
	"fmt"
	"io"
	"slices"
)

// WriteConlleval writes the report conlleval prints, byte for byte: the
// phrase counts, overall accuracy/precision/recall/FB1 as percentages, then
// one line per chunk type in sorted order. Without span scores the phrase
// figures are zero, as conlleval would print for data with no chunks.
func (r *Result) WriteConlleval(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "processed %d tokens with %d phrases; found: %d phrases; correct: %d.\n",
		r.Tokens, r.GoldSpans, r.PredSpans, r.CorrectSpans)
	if r.Tokens > 0 {
		fmt.Fprintf(bw, "accuracy: %6.2f%%; precision: %6.2f%%; recall: %6.2f%%; FB1: %6.2f\n",
			100*r.Accuracy, 100*deref(r.Precision), 100*deref(r.Recall), 100*deref(r.F1))
	}
	types := make([]string, 0, len(r.PerType))
	for t := range r.PerType {
		types = append(types, t)
	}
	slices.Sort(types)
	for _, t := range types {
		p := r.PerType[t]
		fmt.Fprintf(bw, "%17s: precision: %6.2f%%; recall: %6.2f%%; FB1: %6.2f  %d\n",
			t, 100*p.Precision, 100*p.Recall, 100*p.F1, p.Pred)
	}
	return bw.Flush()
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}
