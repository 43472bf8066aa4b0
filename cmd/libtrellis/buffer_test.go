package main

import (
	"encoding/binary"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/trellis-nlp/trellis/framework/trellis"
)

// encodeSentences writes a sentence buffer as the Python package does;
// labels and values are written when any sentence has them.
func encodeSentences(sents []trellis.AttributeSentence) []byte {
	var counts []uint32
	var tokAttrs []uint32
	var values []float64
	var names, labels []string
	hasValues, hasLabels := false, false
	for _, s := range sents {
		counts = append(counts, uint32(len(s.Tokens)))
		for _, t := range s.Tokens {
			tokAttrs = append(tokAttrs, uint32(len(t)))
			for _, a := range t {
				names = append(names, a.Name)
				values = append(values, a.Value)
				hasValues = hasValues || a.Value != 1
			}
		}
		if s.Labels != nil {
			hasLabels = true
			labels = append(labels, s.Labels...)
		}
	}
	var b []byte
	u32 := func(x uint32) { b = binary.LittleEndian.AppendUint32(b, x) }
	u32(uint32(len(sents)))
	for _, c := range counts {
		u32(c)
	}
	for _, c := range tokAttrs {
		u32(c)
	}
	flags := uint32(0)
	if hasValues {
		flags |= flagValues
	}
	if hasLabels {
		flags |= flagLabels
	}
	u32(flags)
	if hasValues {
		for _, v := range values {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	for _, n := range names {
		b = append(append(b, n...), 0)
	}
	if hasLabels {
		for _, l := range labels {
			b = append(append(b, l...), 0)
		}
	}
	return b
}

func attrs(names ...string) []trellis.Attribute {
	out := []trellis.Attribute{}
	for _, n := range names {
		out = append(out, trellis.Attribute{Name: n, Value: 1})
	}
	return out
}

// TestSentenceBuffer: sentences survive the buffer (values, labels,
// names with tabs and colons, tokens without attributes, empty
// sentences), and broken buffers are refused without a panic.
func TestSentenceBuffer(t *testing.T) {
	sents := []trellis.AttributeSentence{
		{Tokens: [][]trellis.Attribute{attrs("w=the", "a:b\tc"), {{Name: "len", Value: 0.25}, {Name: "", Value: -3}}}, Labels: []string{"B-NP", "I\tNP"}},
		{Tokens: [][]trellis.Attribute{attrs()}, Labels: []string{"O"}},
	}
	for _, tc := range []struct {
		name  string
		sents []trellis.AttributeSentence
	}{
		{"values and labels", sents},
		{"no values", []trellis.AttributeSentence{{Tokens: [][]trellis.Attribute{attrs("x", "y")}, Labels: []string{"A"}}}},
		{"no labels", []trellis.AttributeSentence{{Tokens: [][]trellis.Attribute{attrs("x"), attrs("é")}}, {Tokens: [][]trellis.Attribute{}}}},
		{"no sentences", []trellis.AttributeSentence{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf := encodeSentences(tc.sents)
			got, err := decodeSentences(buf, "train", false)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.sents) {
				t.Fatalf("decoded %+v, want %+v", got, tc.sents)
			}
			// Every strict prefix is refused.
			for n := 0; n < len(buf); n++ {
				if _, err := decodeSentences(buf[:n], "train", false); err == nil {
					t.Fatalf("a buffer cut to %d of %d bytes was accepted", n, len(buf))
				}
			}
			if _, err := decodeSentences(append(buf, 'x'), "train", false); err == nil || !strings.Contains(err.Error(), "after the end") {
				t.Fatalf("trailing byte: %v", err)
			}
		})
	}
	unlabelled := encodeSentences([]trellis.AttributeSentence{{Tokens: [][]trellis.Attribute{attrs("x")}}})
	if _, err := decodeSentences(unlabelled, "train", true); err == nil || !strings.Contains(err.Error(), "train sentences have no labels") {
		t.Fatalf("unlabelled training buffer: %v", err)
	}
	huge := binary.LittleEndian.AppendUint32(nil, math.MaxUint32)
	if _, err := decodeSentences(huge, "train", false); err == nil || !strings.Contains(err.Error(), "token counts") {
		t.Fatalf("a buffer claiming 4 billion sentences: %v", err)
	}
}

// FuzzDecodeSentences: any bytes decode or fail, without a panic, and
// what decodes encodes back to the same bytes when its values are not
// all 1 (the only case the encoding is ambiguous about).
func FuzzDecodeSentences(f *testing.F) {
	f.Add(encodeSentences([]trellis.AttributeSentence{{Tokens: [][]trellis.Attribute{attrs("w=a", "b"), {{Name: "v", Value: 2}}}, Labels: []string{"A", "B"}}}))
	f.Add(encodeSentences([]trellis.AttributeSentence{{Tokens: [][]trellis.Attribute{attrs("x")}}}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		sents, err := decodeSentences(data, "fuzz", false)
		if err != nil {
			return
		}
		for _, s := range sents {
			if s.Labels != nil && len(s.Labels) != len(s.Tokens) {
				t.Fatalf("%d labels for %d tokens", len(s.Labels), len(s.Tokens))
			}
		}
		again, err := decodeSentences(encodeSentences(sents), "fuzz", false)
		if err != nil {
			t.Fatalf("re-encoded sentences do not decode: %v", err)
		}
		if !reflect.DeepEqual(again, sents) && !hasNaN(sents) {
			t.Fatalf("round trip changed %+v to %+v", sents, again)
		}
	})
}

func hasNaN(sents []trellis.AttributeSentence) bool {
	for _, s := range sents {
		for _, tok := range s.Tokens {
			for _, a := range tok {
				if math.IsNaN(a.Value) {
					return true
				}
			}
		}
	}
	return false
}
