// Package corpus reads sequence-labelling corpora as streams of sentences
// and writes predictions back in the same layout.
//
// A Format (made by New from a Config) knows one file layout. Its Reader
// returns one *Sentence at a time, so memory stays proportional to the
// largest sentence; its Writer reproduces each sentence's original lines
// with one predicted label per token appended. Five formats exist:
//
//   - "conll": one token per line, columns separated by any run of ASCII
//     whitespace (or exactly one tab / one space, see Config.Separator);
//     a blank or whitespace-only line ends a sentence. A line whose first
//     field is "-DOCSTART-" marks a document boundary: it is not a token,
//     it belongs to no sentence (so writers do not reproduce it), and the
//     next sentence has DocStart set.
//   - "conllu": CoNLL-U, 10 tab-separated columns (id form lemma upos xpos
//     feats head deprel deps misc). Comment lines, multiword-token ranges
//     ("3-4") and empty nodes ("5.1") are kept in Sentence.Lines for
//     pass-through but are not tokens; "# newdoc" sets DocStart. A block
//     holding no integer-ID line is not a sentence and is skipped.
//   - "slash": one sentence per line of whitespace-separated "word/TAG"
//     tokens, split at the last unescaped "/" ("1/2/CD" is word "1/2", tag
//     "CD"); "\/" in a word stands for "/".
//   - "chars": one sentence per line of whitespace-separated words (the
//     SIGHAN segmentation layout); every character (rune) is a token whose
//     label (B/M/E/S or B/I) encodes the word boundaries.
//   - "crfsuite": CRFsuite's attribute files, one token per line: the
//     label, then tab-separated attributes with an optional ":value"; the
//     builtin "attributes" template turns them into features as they are,
//     so existing CRFsuite feature files train unchanged.
//
// Document boundaries ("-DOCSTART-", "# newdoc") also number the
// documents of a file: Sentence.Document, with SameDocument and
// GroupDocuments for the templates that read a whole document. A file
// without boundaries is one document; the slash, chars and crfsuite
// formats have none.
//
// Every format strips a line's trailing "\r"s (CRLF files work unchanged) and a
// UTF-8 byte-order mark at the start of the file, and rejects invalid
// UTF-8. "Whitespace" always means ASCII space, tab, vertical tab, form
// feed and carriage return; other Unicode spaces (such as the ideographic
// space U+3000) are ordinary characters. Data errors are *Error values
// carrying the file name and 1-based line number; after an error a Reader
// keeps returning it.
//
// Readers slice every field of a sentence out of a single string, so a
// sentence costs a handful of allocations regardless of its length.
package corpus
