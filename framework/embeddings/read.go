// read.go: Read and ReadFrom: hashing, buffering, decompression, magic
// numbers, and the line and word bookkeeping shared by the text and
// binary readers.

package embeddings

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"strings"
)

const (
	bufSize  = 1 << 20 // read buffer: also the longest binary word
	maxLine  = 1 << 22 // longest text line
	peekSize = 1 << 16 // bytes auto-detection looks at
	maxRows  = 4096    // rows preallocated when the input's size is unknown
)

// Read reads the word vectors in the file at path; see ReadFrom.
func Read(path string, o Options) (*Vectors, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	return read(f, path, size, o)
}

// ReadFrom reads word vectors from r, streaming, until EOF; name is the
// file's name in errors. A gzip-compressed input is decompressed (its
// SHA-256 is still that of the compressed bytes). Bad input gives a
// *FormatError; see the package documentation.
func ReadFrom(r io.Reader, name string, o Options) (*Vectors, error) {
	size := int64(-1)
	if l, ok := r.(interface{ Len() int }); ok {
		size = int64(l.Len())
	}
	return read(r, name, size, o)
}

// counter hashes and counts the bytes read.
type counter struct {
	h hash.Hash
	n int64
}

func (c *counter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.h.Write(p)
}

// reader is one file being read.
type reader struct {
	name  string
	o     Options
	size  int64 // bytes in the (uncompressed) input, or -1
	br    *bufio.Reader
	off   int64  // bytes consumed from br
	line  int    // lines consumed
	start int64  // offset of the current line
	long  []byte // a line longer than br's buffer
	gz    bool   // br decompresses
	v     *Vectors
}

// read reads r (size bytes, -1 if unknown) under o.
func read(r io.Reader, name string, size int64, o Options) (*Vectors, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	sum := &counter{h: sha256.New()}
	raw := bufio.NewReaderSize(io.TeeReader(r, sum), bufferSize(size))
	rd := &reader{name: name, o: o, size: size, br: raw, v: &Vectors{index: map[string]int{}}}
	magic, err := raw.Peek(6)
	if err != nil && err != io.EOF {
		return nil, rd.ioErr(err)
	}
	if msg := archive(magic); msg != "" {
		return nil, &FormatError{File: name, Msg: msg, Err: ErrFormat}
	}
	if bytes.HasPrefix(magic, []byte{0x1f, 0x8b}) {
		rd.gz = true
		gz, err := gzip.NewReader(raw)
		if err != nil {
			return nil, rd.ioErr(err)
		}
		rd.br, rd.size = bufio.NewReaderSize(gz, bufSize), -1
	}
	if err := rd.run(); err != nil {
		return nil, err
	}
	if _, err := io.Copy(io.Discard, raw); err != nil {
		return nil, rd.ioErr(err)
	}
	v := rd.v
	v.SHA256, v.Bytes = hex.EncodeToString(sum.h.Sum(nil)), sum.n
	if o.Lower {
		v.buildLower()
	}
	return v, nil
}

// bufferSize fits the read buffer to a small input.
func bufferSize(size int64) int {
	if size >= 0 && size < bufSize-16 {
		return max(int(size)+16, 4096)
	}
	return bufSize
}

// archive names a file type that is not word vectors, from its first
// bytes ("" for none of them).
func archive(magic []byte) string {
	switch {
	case bytes.HasPrefix(magic, []byte("PK\x03\x04")):
		return "a zip archive: extract the vectors file from it first"
	case bytes.HasPrefix(magic, []byte("\xfd7zXZ\x00")):
		return "xz-compressed: decompress it first (unxz)"
	case bytes.HasPrefix(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return "zstd-compressed: decompress it first (unzstd)"
	case bytes.HasPrefix(magic, []byte{0xba, 0x16, 0x4f, 0x2f}):
		return "a fastText model (.bin), not vectors: use the .vec file (or fasttext print-word-vectors)"
	}
	return ""
}

// run reads the body after any decompression.
func (rd *reader) run() error {
	if p, _ := rd.br.Peek(3); bytes.Equal(p, []byte("\xef\xbb\xbf")) {
		rd.br.Discard(3)
		rd.off = 3
	}
	f := rd.o.Format
	if f == Auto {
		p, err := rd.br.Peek(min(peekSize, rd.br.Size()))
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return rd.ioErr(err)
		}
		f = detect(p)
	}
	rd.v.Format = f
	if f == Word2VecBinary {
		return rd.readBinary()
	}
	return rd.readText(f != GloVe)
}

// next returns the next line without its "\n" or "\r\n", valid until the
// next read; io.EOF at the end.
func (rd *reader) next() ([]byte, error) {
	b, err := rd.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		rd.long = append(rd.long[:0], b...)
		for err == bufio.ErrBufferFull && len(rd.long) <= maxLine {
			b, err = rd.br.ReadSlice('\n')
			rd.long = append(rd.long, b...)
		}
		if len(rd.long) > maxLine {
			rd.line++
			rd.start = rd.off
			return nil, rd.lineErr(ErrTooLong, fmt.Sprintf("line is longer than %d bytes", maxLine), rd.long)
		}
		b = rd.long
	}
	if err != nil && err != io.EOF {
		return nil, rd.ioErr(err)
	}
	if len(b) == 0 {
		return nil, io.EOF
	}
	rd.line++
	rd.start = rd.off
	rd.off += int64(len(b))
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'}), nil
}

// nextRow returns the next line that is not blank (blank lines are
// skipped wherever they are).
func (rd *reader) nextRow() ([]byte, error) {
	for {
		b, err := rd.next()
		if err != nil {
			return nil, err
		}
		for _, c := range b {
			if c != ' ' && c != '\t' {
				return b, nil
			}
		}
	}
}

// add decides whether the record of word is kept, counting duplicates and
// skipped words, and indexes a kept word.
func (rd *reader) add(word []byte) bool {
	v := rd.v
	if _, dup := v.index[string(word)]; dup {
		v.Duplicates++
		return false
	}
	w := string(word)
	if vocab := rd.o.Vocab; vocab != nil && !vocab(w) {
		l := w
		if rd.o.Lower {
			l = strings.ToLower(w)
		}
		if l == w || !vocab(l) {
			v.Skipped++
			return false
		}
	}
	v.index[w] = len(v.Words)
	v.Words = append(v.Words, w)
	return true
}

// setDim sets the dimension, checking it against Options.Dim, and sizes
// the matrix for rows words (-1: unknown) of at least minRow bytes each.
func (rd *reader) setDim(dim int, rows int64, minRow int64) string {
	if rd.o.Dim != 0 && dim != rd.o.Dim {
		return fmt.Sprintf("the file's vectors have %d values, want %d (Options.Dim)", dim, rd.o.Dim)
	}
	rd.v.Dim = dim
	n := int64(maxRows)
	if rd.size >= 0 {
		n = rd.size/minRow + 1
	}
	if rows >= 0 {
		n = min(n, rows)
	}
	if rd.o.Vocab != nil {
		n = min(n, 1024)
	}
	rd.v.Words = make([]string, 0, n)
	rd.v.Data = make([]float32, 0, n*int64(dim))
	rd.v.index = make(map[string]int, n)
	return ""
}

// lineErr is an error about the current line.
func (rd *reader) lineErr(kind error, msg string, text []byte) *FormatError {
	return &FormatError{File: rd.name, Line: rd.line, Offset: rd.start, Msg: msg, Text: clip(text), Err: kind}
}

// ioErr wraps an error of the underlying reader (or of gzip).
func (rd *reader) ioErr(err error) *FormatError {
	if rd.gz && errors.Is(err, io.ErrUnexpectedEOF) {
		return &FormatError{File: rd.name, Line: rd.line, Offset: rd.off, Msg: "the gzip data is cut short", Err: ErrTruncated}
	}
	return &FormatError{File: rd.name, Line: rd.line, Offset: rd.off, Msg: "reading: " + err.Error(), Err: err}
}
