// binary.go: word2vec's binary layout: a text header, then records of a
// word, a space and D little-endian float32 values.

package embeddings

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
)

// readBinary reads a word2vec binary file.
func (rd *reader) readBinary() error {
	line, err := rd.nextRow()
	if err == io.EOF {
		return &FormatError{File: rd.name, Msg: "the file is empty", Err: ErrEmpty}
	}
	if err != nil {
		return err
	}
	words, dim, msg := parseHeader(line)
	if msg != "" {
		return rd.lineErr(ErrHeader, msg, line)
	}
	if msg := rd.setDim(int(dim), words, 4*dim+2); msg != "" {
		return rd.lineErr(ErrDim, msg, line)
	}
	rd.line = 0 // from here on errors name records, not lines
	buf := make([]byte, 4*dim)
	var word []byte
	for rec := 1; int64(rec) <= words; rec++ {
		if word, err = rd.record(rec, words, buf, word); err != nil {
			return err
		}
	}
	return rd.trailer(words)
}

// record reads binary record rec (of total) using buf for the values and
// word (returned for reuse) for a copy of the word.
func (rd *reader) record(rec int, total int64, buf, word []byte) ([]byte, error) {
	for { // the optional '\n' that ends the previous record
		c, err := rd.br.ReadByte()
		if err == io.EOF {
			msg := fmt.Sprintf("the file ends after %d of the %s its header promises", rec-1, plural(total, "record"))
			return word, rd.recErr(rec, rd.off, ErrTruncated, msg, nil)
		}
		if err != nil {
			return word, rd.ioErr(err)
		}
		if c != '\n' {
			rd.br.UnreadByte()
			break
		}
		rd.off++
	}
	start := rd.off
	w, err := rd.br.ReadSlice(' ')
	switch {
	case err == bufio.ErrBufferFull:
		return word, rd.recErr(rec, start, ErrTooLong, fmt.Sprintf("no space ends the word within %d bytes", len(w)), w)
	case err == io.EOF:
		return word, rd.recErr(rec, start, ErrTruncated, "the file ends inside the word", w)
	case err != nil:
		return word, rd.ioErr(err)
	}
	rd.off += int64(len(w))
	word = append(word[:0], w[:len(w)-1]...)
	if msg := checkWord(word); msg != "" {
		return word, rd.recErr(rec, start, ErrWord, msg, word)
	}
	keep := rd.add(word)
	if n, err := io.ReadFull(rd.br, buf); err == io.EOF || err == io.ErrUnexpectedEOF {
		msg := fmt.Sprintf("the file ends inside the vector (%d of its %d bytes)", n, len(buf))
		return word, rd.recErr(rec, rd.off+int64(n), ErrTruncated, msg, word)
	} else if err != nil {
		return word, rd.ioErr(err)
	}
	dim := rd.v.Dim
	base := len(rd.v.Data)
	rd.v.Data = slices.Grow(rd.v.Data, dim)[:base+dim]
	row := rd.v.Data[base:]
	for j := range row {
		x := math.Float32frombits(binary.LittleEndian.Uint32(buf[4*j:]))
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			rd.v.Data = rd.v.Data[:base]
			msg := fmt.Sprintf("value %d is %v", j+1, x)
			return word, rd.recErr(rec, rd.off+int64(4*j), ErrNumber, msg, word)
		}
		row[j] = x
	}
	if !keep {
		rd.v.Data = rd.v.Data[:base]
	}
	rd.off += int64(len(buf))
	return word, nil
}

// trailer checks that only whitespace follows the last record.
func (rd *reader) trailer(total int64) error {
	for {
		c, err := rd.br.ReadByte()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return rd.ioErr(err)
		}
		switch c {
		case '\n', '\r', ' ', '\t':
			rd.off++
			continue
		}
		rd.br.UnreadByte()
		rest, _ := rd.br.Peek(min(maxText+1, rd.br.Size()))
		msg := fmt.Sprintf("data after the %s the header promises", plural(total, "record"))
		return rd.recErr(int(min(total+1, math.MaxInt)), rd.off, ErrExtra, msg, rest)
	}
}

// recErr is an error about binary record rec at byte off.
func (rd *reader) recErr(rec int, off int64, kind error, msg string, text []byte) error {
	return &FormatError{File: rd.name, Record: rec, Offset: off, Msg: msg, Text: clip(text), Err: kind}
}
