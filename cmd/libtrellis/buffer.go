package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/trellis-nlp/trellis/framework/trellis"
)

// A sentence buffer carries sentences of attribute tokens (and their
// labels) from the caller in one block, little-endian:
//
//	u32 S                      number of sentences
//	u32 tokens[S]              tokens of each sentence (T in all)
//	u32 attrs[T]               attributes of each token (A in all)
//	u32 flags                  bit 0: values present; bit 1: labels present
//	f64 values[A]              (values present) every attribute's value;
//	                           absent, every value is 1
//	A names, each ending in NUL (UTF-8)
//	T labels, each ending in NUL (labels present)
//
// It is what trellis_train and trellis_tag_attributes take rather than
// JSON, because attribute data is large (docs/results.md, "Measurements
// behind design choices in the code") and this layout is cheap at both
// ends: Python builds it with str.join and
// array.tobytes, and Go slices every name out of one string with no
// per-attribute allocation. A name or label cannot contain NUL.
const (
	flagValues = 1 << iota
	flagLabels
)

type bufferReader struct {
	data []byte
	err  error
}

func (r *bufferReader) u32s(n int, what string) []uint32 {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.data)/4 {
		r.err = fmt.Errorf("bad sentence buffer: %s: %d numbers, %d bytes left", what, n, len(r.data))
		return nil
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(r.data[4*i:])
	}
	r.data = r.data[4*n:]
	return out
}

// strings slices n NUL-terminated strings out of the buffer, all sharing
// one string's memory.
func (r *bufferReader) strings(n int, what string) []string {
	if r.err != nil {
		return nil
	}
	if n > len(r.data) {
		r.err = fmt.Errorf("bad sentence buffer: %s: %d strings, %d bytes left", what, n, len(r.data))
		return nil
	}
	end := 0
	for k := 0; k < n; k++ {
		j := bytes.IndexByte(r.data[end:], 0)
		if j < 0 {
			r.err = fmt.Errorf("bad sentence buffer: %s: %d strings, found %d", what, n, k)
			return nil
		}
		end += j + 1
	}
	all := string(r.data[:end])
	r.data = r.data[end:]
	out := make([]string, n)
	start := 0
	for k := range out {
		j := start
		for all[j] != 0 {
			j++
		}
		out[k] = all[start:j]
		start = j + 1
	}
	return out
}

func sum(xs []uint32) (int, bool) {
	total := 0
	for _, x := range xs {
		total += int(x)
		if total > math.MaxInt32 {
			return 0, false
		}
	}
	return total, true
}

// decodeSentences reads a sentence buffer. name ("train", "dev",
// "input") locates errors; labels are required when wantLabels.
func decodeSentences(data []byte, name string, wantLabels bool) ([]trellis.AttributeSentence, error) {
	r := &bufferReader{data: data}
	head := r.u32s(1, "sentence count")
	if r.err != nil {
		return nil, r.err
	}
	tokens := r.u32s(int(head[0]), "token counts")
	nTok, ok := sum(tokens)
	if !ok {
		return nil, fmt.Errorf("bad sentence buffer: too many tokens")
	}
	attrs := r.u32s(nTok, "attribute counts")
	nAttr, ok := sum(attrs)
	if !ok {
		return nil, fmt.Errorf("bad sentence buffer: too many attributes")
	}
	flags := r.u32s(1, "flags")
	if r.err != nil {
		return nil, r.err
	}
	var values []float64
	if flags[0]&flagValues != 0 {
		bits := r.u32s(2*nAttr, "values")
		if r.err != nil {
			return nil, r.err
		}
		values = make([]float64, nAttr)
		for i := range values {
			values[i] = math.Float64frombits(uint64(bits[2*i]) | uint64(bits[2*i+1])<<32)
		}
	}
	names := r.strings(nAttr, "attribute names")
	var labels []string
	if flags[0]&flagLabels != 0 {
		labels = r.strings(nTok, "labels")
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.data) != 0 {
		return nil, fmt.Errorf("bad sentence buffer: %d bytes after the end", len(r.data))
	}
	if wantLabels && labels == nil {
		return nil, fmt.Errorf("%s sentences have no labels", name)
	}
	return buildSentences(tokens, attrs, names, values, labels), nil
}

// buildSentences assembles sentences from the decoded arrays, all
// attributes in one backing slice.
func buildSentences(tokens, attrs []uint32, names []string, values []float64, labels []string) []trellis.AttributeSentence {
	flat := make([]trellis.Attribute, len(names))
	for i, n := range names {
		flat[i] = trellis.Attribute{Name: n, Value: 1}
		if values != nil {
			flat[i].Value = values[i]
		}
	}
	out := make([]trellis.AttributeSentence, len(tokens))
	tok, at := 0, 0
	for k, nt := range tokens {
		s := trellis.AttributeSentence{Tokens: make([][]trellis.Attribute, nt)}
		for i := range s.Tokens {
			na := int(attrs[tok+i])
			s.Tokens[i] = flat[at : at+na : at+na]
			at += na
		}
		if labels != nil {
			s.Labels = labels[tok : tok+int(nt) : tok+int(nt)]
		}
		tok += int(nt)
		out[k] = s
	}
	return out
}
