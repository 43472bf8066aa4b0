// Package scheme knows the label encodings used for chunking, named-entity
// recognition and word segmentation, and turns label sequences into spans.
//
// Span schemes (IOB1, IOB2, BIOES) use typed labels such as "B-NP", "I-NP"
// and "O"; Split separates the prefix from the type at the first '-'.
// Chunks decodes a label sequence into typed spans exactly the way the
// CoNLL conlleval script counts phrases, so scores computed from its output
// agree with conlleval to the last digit. Convert re-encodes spans from one
// span scheme into another, and Allowed lists which label bigrams are
// well-formed in a scheme so decoders can forbid the rest. Check finds
// where a gold sequence breaks those rules (so constrained decoding could
// never produce it), and Fit tallies a corpus against every scheme to
// answer a wrong declaration with the scheme the data fits.
//
// BMES and BI are segmentation schemes over characters with untyped labels
// ("B", "M", "E", "S" / "B", "I"); they have no typed spans (HasSpans is
// false) but Allowed still constrains them.
package scheme
