// Package crfpp reads CRF++ feature template files and writes the trellis
// spec that trains the same model.
//
// A CRF++ template file has one template per line: lines starting with
// "U" are unigram (state) templates, lines starting with "B" bigram
// (transition) templates, "#" starts a comment and empty lines are
// skipped; anything else is an error, as in CRF++'s crf_learn. A line is
// literal text with %x[row,col] macros: the value of column col at the
// token row positions away, or, outside the sentence, CRF++'s placeholders
// "_B-1", "_B-2", … before it and "_B+1", … after it (rows from -8 to 8,
// CRF++'s limit). Parse returns every mistake with file:line:col.
//
// WriteSpec turns each U line into an emission template with a format
// ("U05:%x[-1,0]/%x[0,0]" becomes emission "U05" { format =
// "{word[-1]}/{word[0]}", pad = true }), a plain B line into the
// transition template, a B line with macros into an emission template
// with labels = "bigram" (its attributes score the label bigram into their
// token: input-conditioned transitions), and crf_learn's settings into a
// crf learner:
//
//   - CRF++ minimises C·Σ −log p(y|x) + ½‖w‖² (-a CRF, the default), the
//     same minimiser as Σ −log p(y|x) + ‖w‖²/(2C); trellis's crf minimises
//     Σ −log p(y|x) + c2·‖w‖² (CRFsuite's convention), so c2 = 1/(2C). With
//     -a CRF-L1 CRF++ adds ‖w‖₁/C, so c1 = 1/C and c2 = 0.
//   - CRF++ weights every (attribute, label) pair: features = "all".
//   - -f (freq) is the features block's min_count.
//   - CRF++ stops after three evaluations in a row whose relative change of
//     the objective is below -e (eta, 0.0001); the nearest trellis rule is
//     period = 3 with delta = eta (the improvement over the last three
//     iterations below eta), which never stops earlier than CRF++'s
//     per-evaluation test would on the same sequence of iterations.
//
// What differs: a B line with macros gets weights only for the (attribute,
// label bigram) pairs seen in training, where CRF++ gives every attribute
// all L² bigrams; trellis's transitions also weigh the first and the last label (start and
// stop weights) where CRF++ has none; CRF++ merges the features of two
// templates whose expanded strings coincide, while each emission block
// keys its attributes by its own name (only templates with the same ID can
// coincide, and WriteSpec warns about them).
package crfpp
