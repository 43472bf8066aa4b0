// serial.go writes and reads all of a Params' weights in a fixed binary
// layout, checking names and shapes on the way in: WriteTo/ReadFrom store
// float32, WriteExact/ReadExact store the weights at their own precision
// (for checkpoints). It also holds the little-endian helpers the optimiser
// state (optim_state.go) shares.

package nn

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
)

// magic starts every WriteTo block and exactMagic every WriteExact block;
// the last two bytes are the version.
const (
	magic      = "TRLSNN01"
	exactMagic = "TRLSNX01"
)

// maxName bounds a stored name's length, so a corrupt file cannot make
// ReadFrom allocate much.
const maxName = 1 << 12

// WriteTo writes every parameter's W, in the order of List, as
//
//	"TRLSNN01"                      8 bytes
//	count                           uint32
//	per parameter:
//	  len(name), name               uint32, bytes
//	  len(shape), shape...          uint32, uint32 each
//	  W                             float32 each, row-major
//
// all little-endian. float64 weights are rounded to float32 (WriteExact
// keeps them). The same weights always give the same bytes. It implements
// io.WriterTo.
func (ps *Params[T]) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	cw.bytes([]byte(magic))
	writeParams(cw, ps, 4, [][][]T{ps.weights()})
	return cw.n, cw.err
}

// WriteExact writes every parameter's W bit for bit, for a checkpoint
// that must resume exactly:
//
//	"TRLSNX01"                      8 bytes
//	width                           uint32: 4 for float32 weights, 8 for float64
//	then as WriteTo from count on, each W element stored as width bytes
//	(IEEE-754 binary32 or binary64 bits)
//
// all little-endian. For float32 weights it holds the same numbers as
// WriteTo; for float64 weights nothing is rounded. Read it back with
// ReadExact.
func (ps *Params[T]) WriteExact(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	cw.bytes([]byte(exactMagic))
	width := widthOf[T]()
	cw.u32(width)
	writeParams(cw, ps, width, [][][]T{ps.weights()})
	return cw.n, cw.err
}

// weights returns every parameter's W, in order.
func (ps *Params[T]) weights() [][]T {
	ws := make([][]T, len(ps.list))
	for i, p := range ps.list {
		ws[i] = p.W
	}
	return ws
}

// widthOf is the size of T in bytes: 4 or 8.
func widthOf[T Float]() int { return int(reflect.TypeFor[T]().Size()) }

// writeParams writes len(ps.list) as a uint32 and then per parameter its
// name and shape followed by bufs[0][i], bufs[1][i], …, the buffers of
// parameter i (each the size of its W), every element width bytes.
func writeParams[T Float](cw *countWriter, ps *Params[T], width int, bufs [][][]T) {
	cw.u32(len(ps.list))
	buf := make([]byte, 4096)
	per := len(buf) / width
	for i, p := range ps.list {
		cw.u32(len(p.Name))
		cw.bytes([]byte(p.Name))
		cw.u32(len(p.Shape))
		for _, d := range p.Shape {
			cw.u32(d)
		}
		for _, b := range bufs {
			for lo := 0; lo < len(b[i]); lo += per {
				cw.bytes(putFloats(buf[:0], b[i][lo:min(len(b[i]), lo+per)], width))
			}
		}
	}
}

// putFloats appends src to dst as little-endian float32 bits (width 4) or
// float64 bits (width 8).
func putFloats[T Float](dst []byte, src []T, width int) []byte {
	for _, v := range src {
		if width == 4 {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(v)))
		} else {
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(float64(v)))
		}
	}
	return dst
}

// getFloats fills dst from src, stored as putFloats does.
func getFloats[T Float](dst []T, src []byte, width int) {
	for j := range dst {
		if width == 4 {
			dst[j] = T(math.Float32frombits(binary.LittleEndian.Uint32(src[4*j:])))
		} else {
			dst[j] = T(math.Float64frombits(binary.LittleEndian.Uint64(src[8*j:])))
		}
	}
}

// countWriter counts bytes and keeps the first error, after which it
// writes nothing.
type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) bytes(b []byte) {
	if c.err != nil {
		return
	}
	n, err := c.w.Write(b)
	c.n += int64(n)
	c.err = err
}

func (c *countWriter) u32(v int) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(v))
	c.bytes(b[:])
}

func (c *countWriter) u64(v uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	c.bytes(b[:])
}

// ErrFormat is wrapped by every ReadFrom, ReadExact and UnmarshalState
// error about the content of the data (as opposed to an error of the
// reader itself).
var ErrFormat = errors.New("nn: parameter file does not match the model")

// ReadFrom reads a block written by WriteTo into the W of ps, whose
// parameters must have the same names and shapes in the same order. Any
// difference, a bad header or a short stream is an error wrapping
// ErrFormat (or the reader's own error), and then no weight is changed. It
// reads exactly the block and no further, leaving r just after it, so it
// does not read to EOF as io.ReaderFrom suggests.
func (ps *Params[T]) ReadFrom(r io.Reader) (int64, error) {
	cr := &countReader{r: r}
	if string(cr.bytes(len(magic))) != magic && cr.err == nil {
		return cr.n, fmt.Errorf("%w: bad header (not a %s block)", ErrFormat, magic)
	}
	return cr.n, ps.readWeights(cr, 4)
}

// ReadExact reads a block written by WriteExact into the W of ps, as
// ReadFrom does (same checks, nothing changed on error, r left just after
// the block). The block must hold floats of T's width: a float32 block
// does not load into float64 weights, nor the other way round.
func (ps *Params[T]) ReadExact(r io.Reader) (int64, error) {
	cr := &countReader{r: r}
	if string(cr.bytes(len(exactMagic))) != exactMagic && cr.err == nil {
		return cr.n, fmt.Errorf("%w: bad header (not a %s block)", ErrFormat, exactMagic)
	}
	width := widthOf[T]()
	if got := cr.u32(); cr.err == nil && got != width {
		return cr.n, fmt.Errorf("%w: the block holds %d-byte floats, the model %d-byte ones", ErrFormat, got, width)
	}
	return cr.n, ps.readWeights(cr, width)
}

// readWeights reads what writeParams wrote for the weights and, when all
// of it is there and matches, copies it into W.
func (ps *Params[T]) readWeights(cr *countReader, width int) error {
	staged, err := readParams(cr, ps, width, 1)
	if err != nil {
		return err
	}
	for i, p := range ps.list {
		copy(p.W, staged[0][i])
	}
	return nil
}

// readParams reads what writeParams wrote with nbuf buffers per parameter,
// checking the count, names and shapes against ps, and returns the
// buffers, out[b][i] being buffer b of parameter i. It changes nothing in
// ps.
func readParams[T Float](cr *countReader, ps *Params[T], width, nbuf int) ([][][]T, error) {
	if n := cr.u32(); cr.err == nil && n != len(ps.list) {
		return nil, fmt.Errorf("%w: %d parameters in the stream, %d in the model", ErrFormat, n, len(ps.list))
	}
	out := make([][][]T, nbuf)
	for b := range out {
		out[b] = make([][]T, len(ps.list))
	}
	for i, p := range ps.list {
		if err := readHeader(cr, p); err != nil {
			return nil, err
		}
		for b := range out {
			raw := cr.bytes(width * len(p.W))
			if cr.err != nil {
				return nil, cr.err
			}
			out[b][i] = make([]T, len(p.W))
			getFloats(out[b][i], raw, width)
		}
	}
	if cr.err != nil {
		return nil, cr.err
	}
	return out, nil
}

// countReader counts bytes and keeps the first error, after which it
// returns zeros.
type countReader struct {
	r   io.Reader
	n   int64
	err error
	buf []byte
}

func (c *countReader) bytes(n int) []byte {
	c.buf = grow(c.buf, n)
	clear(c.buf)
	if c.err != nil {
		return c.buf
	}
	m, err := io.ReadFull(c.r, c.buf)
	c.n += int64(m)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = fmt.Errorf("%w: stream ends early: %w", ErrFormat, io.ErrUnexpectedEOF)
	}
	c.err = err
	return c.buf
}

func (c *countReader) u32() int {
	return int(binary.LittleEndian.Uint32(c.bytes(4)))
}

func (c *countReader) u64() uint64 {
	return binary.LittleEndian.Uint64(c.bytes(8))
}

// readHeader reads a parameter's name and shape and checks them against p.
func readHeader[T Float](c *countReader, p *Param[T]) error {
	n := c.u32()
	if c.err != nil {
		return c.err
	}
	if n > maxName {
		return fmt.Errorf("%w: parameter %q: stored name is %d bytes long", ErrFormat, p.Name, n)
	}
	if got := string(c.bytes(n)); c.err == nil && got != p.Name {
		return fmt.Errorf("%w: parameter %q: stream has %q", ErrFormat, p.Name, got)
	}
	dims := c.u32()
	if c.err == nil && dims != len(p.Shape) {
		return fmt.Errorf("%w: parameter %q: stream has %d dimensions, model %v", ErrFormat, p.Name, dims, p.Shape)
	}
	for i := 0; i < dims && c.err == nil; i++ {
		if d := c.u32(); c.err == nil && d != p.Shape[i] {
			return fmt.Errorf("%w: parameter %q: stream dimension %d is %d, model shape %v", ErrFormat, p.Name, i, d, p.Shape)
		}
	}
	return c.err
}
