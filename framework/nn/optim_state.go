// optim_state.go makes the optimisers checkpointable: MarshalState and
// UnmarshalState of SGD and Adam save and restore everything later Steps
// depend on (Settings.Epoch, Adam's step count, the momentum or moment
// buffers), bit for bit, in a checked little-endian layout.

package nn

import (
	"bytes"
	"errors"
	"fmt"
	"math"
)

// stateMagic starts every optimiser state; the last two bytes are the
// version.
const stateMagic = "TRLSOS01"

// The kinds of optimiser a state records.
const (
	kindSGD  = 1
	kindAdam = 2
)

func kindName(kind int) string {
	switch kind {
	case kindSGD:
		return "SGD"
	case kindAdam:
		return "Adam"
	}
	return fmt.Sprintf("kind %d", kind)
}

// stateHeader is the fixed part of an optimiser state.
type stateHeader struct {
	kind    int    // kindSGD or kindAdam
	buffers int    // buffer sets stored: 0, or 1 (SGD) or 2 (Adam)
	epoch   int64  // Settings.Epoch
	steps   uint64 // Adam's t; 0 for SGD
}

// MarshalState returns the optimiser's state for the parameters ps, the
// Params of its Steps: Settings.Epoch and the momentum buffers (none
// before the first Step with Momentum ≠ 0), in the layout documented on
// Adam.MarshalState. The other fields (rate, decay, clipping, Momentum,
// Lazy, Schedule) are configuration, not state: the resuming program sets
// them as before. Marshalling for a Params other than the one the
// optimiser is bound to is an error.
func (o *SGD[T]) MarshalState(ps *Params[T]) ([]byte, error) {
	return marshalState(ps, stateHeader{kind: kindSGD, epoch: int64(o.Epoch)}, &o.vel)
}

// UnmarshalState restores a state made by SGD.MarshalState (of a
// SGD[T], float32 and float64 not mixing) for ps, which must have
// parameters of the same names and shapes in the same order; afterwards
// the optimiser is bound to ps (or, for a state from before the first
// Step, unbound, to allocate its buffers on the next Step) and its Epoch
// is the saved one. Any mismatch, a truncated state or trailing bytes is
// an error wrapping ErrFormat, and then the optimiser is left unchanged.
func (o *SGD[T]) UnmarshalState(ps *Params[T], data []byte) error {
	h, bufs, err := unmarshalState(ps, data, kindSGD, 1)
	if err != nil {
		return err
	}
	o.Epoch = int(h.epoch)
	o.vel = bound(ps, bufs, 0)
	return nil
}

// MarshalState returns the optimiser's state for the parameters ps, the
// Params of its Steps: Settings.Epoch, the step count t and the moments m
// and v of every parameter (with Lazy too, t is one count for all rows).
// The other fields (rate, decay, clipping, β₁, β₂, ε, Lazy, Schedule) are
// configuration, not state: the resuming program sets them as before.
// Marshalling for a Params other than the one the optimiser is bound to
// is an error. The layout, shared with SGD, is
//
//	"TRLSOS01"                      8 bytes
//	kind                            uint32: 1 SGD, 2 Adam
//	width                           uint32: 4 for float32 buffers, 8 for float64
//	buffers                         uint32: 0 before the first Step, else 1 (SGD: velocity) or 2 (Adam: m, v)
//	epoch                           int64: Settings.Epoch
//	steps                           uint64: Adam's t (0 exactly when buffers is 0); 0 for SGD
//	count                           uint32: the number of parameters
//	per parameter, in the order of List:
//	  len(name), name               uint32, bytes
//	  len(shape), shape...          uint32, uint32 each
//	  each buffer                   len(W) elements of width bytes, row-major
//
// all little-endian, the elements being the IEEE-754 bits of T, so the
// state is restored exactly. The same state always gives the same bytes.
func (o *Adam[T]) MarshalState(ps *Params[T]) ([]byte, error) {
	h := stateHeader{kind: kindAdam, epoch: int64(o.Epoch), steps: uint64(o.t)}
	return marshalState(ps, h, &o.m, &o.v)
}

// UnmarshalState restores a state made by Adam.MarshalState (of an
// Adam[T], float32 and float64 not mixing) for ps, which must have
// parameters of the same names and shapes in the same order; afterwards
// the optimiser is bound to ps (or, for a state from before the first
// Step, unbound with t = 0) and its Epoch is the saved one. Any mismatch,
// a truncated state or trailing bytes is an error wrapping ErrFormat, and
// then the optimiser is left unchanged.
func (o *Adam[T]) UnmarshalState(ps *Params[T], data []byte) error {
	h, bufs, err := unmarshalState(ps, data, kindAdam, 2)
	if err != nil {
		return err
	}
	o.Epoch, o.t = int(h.epoch), int(h.steps)
	o.m, o.v = bound(ps, bufs, 0), bound(ps, bufs, 1)
	return nil
}

// bound returns the state holding buffer set i of bufs, bound to ps, or
// an unbound one when bufs has no set i.
func bound[T Float](ps *Params[T], bufs [][][]T, i int) state[T] {
	if i >= len(bufs) {
		return state[T]{}
	}
	return state[T]{ps: ps, buf: bufs[i]}
}

// errBound is returned by MarshalState for a Params the optimiser is not
// bound to.
var errBound = errors.New("nn: MarshalState: the optimiser is bound to another Params, or parameters were added after its first Step")

// marshalState encodes h and the buffer sets for ps; the sets are stored
// when bound (all of them are bound together) and left out before the
// first Step.
func marshalState[T Float](ps *Params[T], h stateHeader, sets ...*state[T]) ([]byte, error) {
	var bufs [][][]T
	if sets[0].ps != nil {
		for _, s := range sets {
			if s.ps != ps || len(s.buf) != len(ps.list) {
				return nil, errBound
			}
			bufs = append(bufs, s.buf)
		}
	}
	var b bytes.Buffer
	cw := &countWriter{w: &b}
	width := widthOf[T]()
	cw.bytes([]byte(stateMagic))
	cw.u32(h.kind)
	cw.u32(width)
	cw.u32(len(bufs))
	cw.u64(uint64(h.epoch))
	cw.u64(h.steps)
	writeParams(cw, ps, width, bufs)
	if cw.err != nil {
		return nil, cw.err
	}
	return b.Bytes(), nil
}

// stateError returns an ErrFormat error about an optimiser state.
func stateError(format string, args ...any) error {
	return fmt.Errorf("%w: optimiser state: %s", ErrFormat, fmt.Sprintf(format, args...))
}

// unmarshalState decodes data, a state of the given kind whose optimiser
// keeps nbuf buffer sets, checking all of it against ps, and returns its
// header and buffer sets (none before the first Step). It changes nothing:
// the caller commits the result.
func unmarshalState[T Float](ps *Params[T], data []byte, kind, nbuf int) (stateHeader, [][][]T, error) {
	r := bytes.NewReader(data)
	cr := &countReader{r: r}
	var h stateHeader
	if string(cr.bytes(len(stateMagic))) != stateMagic && cr.err == nil {
		return h, nil, stateError("bad header (not a %s block)", stateMagic)
	}
	h.kind = cr.u32()
	width := cr.u32()
	h.buffers = cr.u32()
	h.epoch = int64(cr.u64())
	h.steps = cr.u64()
	if cr.err != nil {
		return h, nil, cr.err
	}
	if err := h.check(kind, nbuf, width, widthOf[T]()); err != nil {
		return h, nil, err
	}
	bufs, err := readParams(cr, ps, width, h.buffers)
	if err != nil {
		return h, nil, err
	}
	if r.Len() != 0 {
		return h, nil, stateError("%d bytes after the end", r.Len())
	}
	return h, bufs, nil
}

// check returns an error wrapping ErrFormat unless h, whose elements are
// stored bytes wide, is a consistent header for an optimiser of the given
// kind that keeps nbuf buffer sets of width-byte floats.
func (h *stateHeader) check(kind, nbuf, stored, width int) error {
	switch {
	case h.kind != kind:
		return stateError("saved from %s, loaded into %s", kindName(h.kind), kindName(kind))
	case stored != width:
		return stateError("holds %d-byte floats, the optimiser %d-byte ones", stored, width)
	case h.buffers != 0 && h.buffers != nbuf:
		return stateError("%d buffers per parameter, %s keeps %d", h.buffers, kindName(kind), nbuf)
	case int64(int(h.epoch)) != h.epoch:
		return stateError("epoch %d out of range", h.epoch)
	case h.steps > math.MaxInt:
		return stateError("step count %d out of range", h.steps)
	case kind == kindSGD && h.steps != 0:
		return stateError("SGD state with step count %d", h.steps)
	case kind == kindAdam && (h.steps == 0) != (h.buffers == 0):
		return stateError("step count %d with %d buffers per parameter", h.steps, h.buffers)
	}
	return nil
}
