package eval

import (
	"fmt"
	"io"

	"github.com/trellis-nlp/trellis/framework/scheme"
)

// WriteText writes the report `trellis eval` prints for a result scored
// with sch: conlleval's report (WriteConlleval) when sch has spans, else
// token and sentence accuracy, plus word scores for segmentation.
func (r *Result) WriteText(w io.Writer, sch scheme.Scheme) error {
	if sch.HasSpans() {
		return r.WriteConlleval(w)
	}
	if _, err := fmt.Fprintf(w, "tokens: %d  sentences: %d\naccuracy: %.2f%%  sentence accuracy: %.2f%%\n",
		r.Tokens, r.Sentences, 100*r.Accuracy, 100*r.SentenceAccuracy); err != nil {
		return err
	}
	if r.Words != nil {
		_, err := fmt.Fprintf(w, "words: precision %.2f%%  recall %.2f%%  F1 %.2f%%\n",
			100*r.Words.Precision, 100*r.Words.Recall, 100*r.Words.F1)
		return err
	}
	return nil
}
