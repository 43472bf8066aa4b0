package tagger

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/plural"
	"github.com/trellis-nlp/trellis/framework/scheme"
)

// The reports of `trellis eval`, here so that every program that scores a
// model's predictions (trellis eval, trellis-beam --eval) prints the same
// bytes for the same result.

// evalJSON is what `trellis eval --json` prints: the result, with the
// in-vocabulary/out-of-vocabulary figures null when the model's file does
// not tell which words it knows (never a 0 that was not measured).
type evalJSON struct {
	*eval.Result
	IVAccuracy  *float64 `json:"iv_accuracy"`
	OOVAccuracy *float64 `json:"oov_accuracy"`
	IVTokens    *int     `json:"iv_tokens"`
	OOVTokens   *int     `json:"oov_tokens"`
	// Vocabulary says where the known words come from; null when the
	// model has no emission template of the word column at offset 0.
	Vocabulary *vocabJSON `json:"vocabulary"`
}

type vocabJSON struct {
	Template  string `json:"template"`
	Lowercase bool   `json:"lowercase"`
	Words     int    `json:"words"`
}

// WriteEvalJSON writes what `trellis eval --json` prints for res, scored
// with the model's vocabulary vocab (nil when it has none).
func WriteEvalJSON(w io.Writer, res *eval.Result, vocab *Vocabulary) error {
	out := evalJSON{Result: res}
	if vocab != nil {
		out.IVTokens, out.OOVTokens = &res.IVTokens, &res.OOVTokens
		out.Vocabulary = &vocabJSON{Template: vocab.Template, Lowercase: vocab.Lowercase, Words: vocab.Len()}
		if res.IVTokens > 0 {
			out.IVAccuracy = &res.IVAccuracy
		}
		if res.OOVTokens > 0 {
			out.OOVAccuracy = &res.OOVAccuracy
		}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// WriteEvalText writes what `trellis eval` prints: conlleval's report for
// span schemes (byte for byte), accuracy otherwise, word scores for
// segmentation; then IV/OOV accuracy when the model's vocabulary is known,
// and a per-label table (token level) for every scheme.
func WriteEvalText(w io.Writer, res *eval.Result, sch scheme.Scheme, vocab *Vocabulary) error {
	bw := bufio.NewWriter(w)
	if sch.HasSpans() {
		if err := res.WriteConlleval(bw); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(bw, "tokens: %d  sentences: %d\naccuracy: %.2f%%  sentence accuracy: %.2f%%\n",
			res.Tokens, res.Sentences, 100*res.Accuracy, 100*res.SentenceAccuracy)
		if res.Words != nil {
			fmt.Fprintf(bw, "words: precision %.2f%%  recall %.2f%%  F1 %.2f%%\n",
				100*res.Words.Precision, 100*res.Words.Recall, 100*res.Words.F1)
		}
	}
	if vocab != nil {
		fmt.Fprintf(bw, "\nin vocabulary: %s, accuracy %s; out of vocabulary: %s, accuracy %s\n(the model's vocabulary: %s of template %q%s)\n",
			plural.Count(res.IVTokens, "token"), pctOrDash(res.IVAccuracy, res.IVTokens),
			plural.Count(res.OOVTokens, "token"), pctOrDash(res.OOVAccuracy, res.OOVTokens),
			plural.Count(vocab.Len(), "word"), vocab.Template, map[bool]string{true: ", lowercased", false: ""}[vocab.Lowercase])
	}
	width := len("label")
	for _, l := range res.Labels {
		width = max(width, len(l))
	}
	fmt.Fprintf(bw, "\nper label (tokens):\n%-*s %9s %9s %9s %8s %8s\n", width, "label", "precision", "recall", "F1", "gold", "pred")
	for _, l := range res.Labels {
		p := res.PerLabel[l]
		if p == nil {
			continue
		}
		fmt.Fprintf(bw, "%-*s %9.2f %9.2f %9.2f %8d %8d\n", width, l, 100*p.Precision, 100*p.Recall, 100*p.F1, p.Gold, p.Pred)
	}
	return bw.Flush()
}

// pctOrDash renders an accuracy over n tokens, "-" when n is 0.
func pctOrDash(acc float64, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f%%", 100*acc)
}
