// format.go: the Format type, its names, and the auto-detection rules.

package embeddings

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Format is a layout of a word-vector file.
type Format int

// The formats. The zero value, Auto, detects the layout when reading; it
// is never the Format of a Vectors that Read returns.
const (
	// Auto detects the format (see the package documentation).
	Auto Format = iota
	// Word2VecText is word2vec's text layout: a header line "V D", then
	// one line "word v1 … vD" per word.
	Word2VecText
	// Word2VecBinary is word2vec's binary layout: a header line "V D\n",
	// then per word its bytes, a space, D little-endian float32 values and
	// an optional '\n'.
	Word2VecBinary
	// GloVe is GloVe's text layout: no header, one line "word v1 … vD" per
	// word, D taken from the first line.
	GloVe
	// FastText is fastText's .vec layout, which is Word2VecText; reading
	// with it only makes Vectors.Format say FastText.
	FastText
)

var formatNames = [...]string{
	Auto:           "auto",
	Word2VecText:   "word2vec",
	Word2VecBinary: "word2vec-binary",
	GloVe:          "glove",
	FastText:       "fasttext",
}

// String returns the format's name as ParseFormat accepts it: "auto",
// "word2vec", "word2vec-binary", "glove" or "fasttext".
func (f Format) String() string {
	if f >= 0 && int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ParseFormat returns the format named s: one of the names String
// returns, in any case, or "word2vec-text" (Word2VecText). The empty
// string is Auto.
func ParseFormat(s string) (Format, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "":
		return Auto, nil
	case "word2vec-text":
		return Word2VecText, nil
	}
	for f, name := range formatNames {
		if t == name {
			return Format(f), nil
		}
	}
	return Auto, fmt.Errorf("unknown word-vector format %q (want auto, word2vec, word2vec-binary, glove or fasttext)", s)
}

// valid reports whether f is one of the declared formats.
func (f Format) valid() bool { return f >= 0 && int(f) < len(formatNames) }

// detect picks the format of a file whose (decompressed, BOM-less) bytes
// start with p: a first non-blank line of exactly two integers is a
// header, and then the file is binary unless the bytes after the first
// word are text; without a header it is GloVe.
func detect(p []byte) Format {
	line, rest := firstLine(p)
	if !isHeader(line) {
		return GloVe
	}
	_, d, err := parseHeader(line)
	if err != "" {
		return Word2VecText // the text reader reports the bad header
	}
	if looksBinary(rest, int(d)) {
		return Word2VecBinary
	}
	return Word2VecText
}

// firstLine returns p's first line that is not blank, without its line
// end, and the bytes after it.
func firstLine(p []byte) (line, rest []byte) {
	for len(p) > 0 {
		line, rest = p, nil
		if i := bytes.IndexByte(p, '\n'); i >= 0 {
			line, rest = p[:i], p[i+1:]
		}
		if len(bytes.Trim(line, " \t\r")) > 0 {
			return bytes.TrimSuffix(line, []byte{'\r'}), rest
		}
		p = rest
	}
	return nil, nil
}

// looksBinary tells a binary body from a text one by the 4·d bytes after
// the first word and its space (where a binary file keeps the first
// vector): text if they are UTF-8 without control characters other than
// tab, CR and LF. A multi-byte character cut by the window's end counts
// as text.
func looksBinary(body []byte, d int) bool {
	seg := body
	if i := bytes.IndexByte(body, ' '); i >= 0 {
		seg = body[i+1:]
	}
	if len(seg) > 4*d {
		seg = seg[:4*d]
	}
	return !isText(seg)
}

// isText reports whether b is UTF-8 (possibly cut inside its last
// character) without control characters other than tab, CR and LF.
func isText(b []byte) bool {
	for len(b) > 0 {
		c := b[0]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f {
				return false
			}
			b = b[1:]
			continue
		}
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			return !utf8.FullRune(b)
		}
		b = b[size:]
	}
	return true
}
