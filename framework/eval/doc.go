// Package eval scores predicted label sequences against gold ones and
// compares two systems on the same test set.
//
// Evaluate reports token accuracy (overall, per sentence, and split by
// in-vocabulary/out-of-vocabulary tokens), per-label scores and a
// confusion matrix for every scheme. For span schemes it adds phrase
// precision, recall and F1 that match the CoNLL conlleval script exactly
// (WriteConlleval prints its report layout), and for the character
// segmentation schemes BMES and BI it adds word-level scores.
//
// Compare runs a paired bootstrap (confidence interval of the difference)
// and approximate randomization (p-value) over per-sentence sufficient
// statistics, so each resample costs O(sentences) rather than O(tokens).
// McNemar tests token-level disagreement.
package eval
