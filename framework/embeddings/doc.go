// Package embeddings reads and writes pretrained word vectors, for a
// neural encoder that initialises its word-embedding table from them and
// pins the file it used by SHA-256 in the model file.
//
// Licence note: this package ships no vectors and downloads none. The
// user supplies the file and must follow its own licence (published sets
// differ: GloVe's pre-trained vectors are under the ODC Public Domain
// Dedication and License, fastText's under CC BY-SA 3.0, for example);
// a model initialised from them may be bound by it too. The tests make
// their own tiny files.
//
// # Formats
//
//   - word2vec (Word2VecText): a header line "V D" (the number of words
//     and the dimension), then V lines "word v1 … vD".
//   - fasttext (FastText): fastText's .vec files, the same layout;
//     choosing it only makes Vectors.Format say so.
//   - glove (GloVe): no header; every line "word v1 … vD", D taken from
//     the first line.
//   - word2vec-binary (Word2VecBinary): the header line "V D\n", then per
//     word its bytes up to a space, D little-endian float32 values and an
//     optional '\n' (word2vec writes it, gensim does not).
//
// In the text layouts fields are separated by runs of spaces and tabs, a
// line may end in "\n" or "\r\n", leading and trailing spaces (word2vec
// writes one after the last value) are ignored, blank lines are skipped
// anywhere, and a UTF-8 byte order mark at the start is dropped. Values
// are decimal numbers as strconv.ParseFloat reads them, rounded to
// float32. A word is any non-empty valid UTF-8 without ASCII whitespace
// or NUL (so a non-breaking space may be part of one). A gzip-compressed
// file (.vec.gz) is decompressed on the fly, in every format; zip, xz and
// zstd archives and fastText .bin models are recognised and refused with
// a message saying what to do.
//
// # Detection
//
// Format Auto looks at the first 64 KiB of the (decompressed) file:
//
//   - If its first non-blank line is exactly two integers, it is a
//     word2vec header; otherwise the file is GloVe. (A GloVe file of
//     dimension 1 whose first word is an integer looks like a header:
//     read it with Format GloVe. The error such a misreading gives says
//     so.)
//   - After a header, the file is binary unless the 4·D bytes after the
//     first word's space, where a binary file keeps the first vector, are
//     text: UTF-8 without control characters other than tab, CR and LF.
//     Binary values pass that test by chance about 6% of the time for
//     D = 1, and some 17 times less often per further value (2·10⁻⁵ for
//     D = 4, below 10⁻⁹ from D = 8): nothing for real vectors, but name
//     Word2VecBinary explicitly for toy files of fewer than 8 dimensions.
//
// # Words kept
//
// Options.Vocab keeps only the words it accepts, so a 2M-word file costs
// the memory of the training vocabulary; every record is still checked,
// and the SHA-256 (Vectors.SHA256) always covers every byte of the file
// as stored, hashed while streaming. A word that occurs again after it
// was kept is dropped, keeping the first occurrence (files list frequent
// words first), and counted in Vectors.Duplicates; this is not an error,
// so that a large file with a stray repeat still loads. Options.Lower
// adds a case-folding fallback: see its documentation.
//
// # Errors
//
// Bad input never panics: it gives a *FormatError naming the file and,
// for text files, the 1-based line (for binary records, the record number
// and byte offset), quoting the offending line or word cut to 80 bytes,
// and wrapping one of the sentinel errors for errors.Is: ErrEmpty,
// ErrHeader, ErrDim, ErrValues, ErrNumber (including NaN, ±Inf and values
// beyond float32's range), ErrWord (including invalid UTF-8),
// ErrTruncated (fewer words than the header says, or a record cut
// short), ErrExtra (more words than the header says), ErrTooLong and
// ErrFormat. A failing reader's error is wrapped in a *FormatError too,
// with Err the reader's error. For example:
//
//	vectors.txt:7: row has 299 values, want 300: "rhône 0.0129 -0.0741 ..."
//	vectors.bin: record 12 (byte 14403): the file ends inside the vector (100 of its 1200 bytes): "paris"
//
// Reading streams through a buffer: memory is that of the kept vectors,
// and parsing allocates per kept word, not per value.
package embeddings
