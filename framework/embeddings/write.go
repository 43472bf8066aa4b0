// write.go: Write, the inverse of Read for every format.

package embeddings

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Write writes v to w in format f: Word2VecText and FastText as a header
// "V D" and lines "word v1 … vD", GloVe as the lines alone, and
// Word2VecBinary as word2vec does (header, then per word its bytes, a
// space, D little-endian float32 values and '\n'). Text values are the
// shortest decimals that read back as the same float32 bits, so Read
// returns v's words and bits again. v must pass New's checks (at least
// one word, none bad or repeated, finite values); Auto is an error.
//
// A GloVe file whose first line is two integers (a numeric word with one
// value) reads back only with Options.Format set to GloVe, as Auto takes
// that line for a header.
func Write(w io.Writer, v *Vectors, f Format) error {
	switch f {
	case Word2VecText, FastText, GloVe, Word2VecBinary:
	default:
		return fmt.Errorf("embeddings: %w: cannot write format %v", ErrFormat, f)
	}
	if err := v.check(); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if f != GloVe {
		fmt.Fprintf(bw, "%d %d\n", len(v.Words), v.Dim)
	}
	var line []byte
	for i, word := range v.Words {
		row := v.Row(i)
		line = append(line[:0], word...)
		if f == Word2VecBinary {
			line = append(line, ' ')
			for _, x := range row {
				line = binary.LittleEndian.AppendUint32(line, math.Float32bits(x))
			}
		} else {
			for _, x := range row {
				line = append(line, ' ')
				line = strconv.AppendFloat(line, float64(x), 'g', -1, 32)
			}
		}
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}
