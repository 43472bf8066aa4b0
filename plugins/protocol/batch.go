package protocol

import (
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/trellis-nlp/trellis/framework/plural"
)

// RequestBuilder fills an ExtractRequest, reusing its buffers.
type RequestBuilder struct{ req ExtractRequest }

// Reset starts request seq of instance.
func (b *RequestBuilder) Reset(instance uint32, seq uint64) {
	b.req.Instance = instance
	b.req.Seq = seq
	b.req.Lengths = b.req.Lengths[:0]
	b.req.Text = b.req.Text[:0]
	b.req.ValueLengths = b.req.ValueLengths[:0]
}

// Sentence starts a sentence of n tokens.
func (b *RequestBuilder) Sentence(n int) { b.req.Lengths = append(b.req.Lengths, uint32(n)) }

// Value adds the next value (token after token, column after column).
func (b *RequestBuilder) Value(v string) {
	b.req.Text = append(b.req.Text, v...)
	b.req.ValueLengths = append(b.req.ValueLengths, uint32(len(v)))
}

// Request returns the message.
func (b *RequestBuilder) Request() *ExtractRequest { return &b.req }

// Batch is one Extract request's sentences seen from the plugin.
type Batch struct {
	Lengths []uint32
	Width   int
	values  []string
	offsets []int
}

// NewBatch checks a request against the instance's column count (width)
// and cuts its text into values.
func NewBatch(req *ExtractRequest, width int) (*Batch, error) {
	b := &Batch{Lengths: req.Lengths, Width: width, offsets: make([]int, len(req.Lengths)+1)}
	total := 0
	for k, n := range b.Lengths {
		b.offsets[k] = total
		total += int(n) * width
	}
	b.offsets[len(b.Lengths)] = total
	vl := req.ValueLengths
	if total != len(vl) {
		return nil, fmt.Errorf("request carries %d values for %d tokens of %d columns", len(vl), total/max(width, 1), width)
	}
	text := string(req.Text) // one copy; values are substrings of it
	b.values = make([]string, len(vl))
	pos := 0
	for j, l := range vl {
		end := pos + int(l)
		if end > len(text) {
			return nil, fmt.Errorf("request values overrun its text (%d bytes)", len(text))
		}
		b.values[j] = text[pos:end]
		pos = end
	}
	if pos != len(text) {
		return nil, fmt.Errorf("request text has %d bytes beyond its values", len(text)-pos)
	}
	return b, nil
}

// Sentence returns sentence k's values, token after token.
func (b *Batch) Sentence(k int) []string { return b.values[b.offsets[k]:b.offsets[k+1]] }

// ResponseBuilder accumulates a batch's attributes compactly: values of 1
// are not sent at all.
type ResponseBuilder struct {
	resp    ExtractResponse
	allOnes bool
	count   uint32
}

// NewResponseBuilder returns an empty builder.
func NewResponseBuilder() *ResponseBuilder { return &ResponseBuilder{allOnes: true} }

// NewResponseBuilderSized returns an empty builder with room for attrs
// attributes whose keys take keyBytes bytes in all (a hint: it grows).
func NewResponseBuilderSized(attrs, keyBytes int) *ResponseBuilder {
	r := &ResponseBuilder{allOnes: true}
	r.resp.Tokens = make([]uint32, 0, attrs)
	r.resp.KeyLengths = make([]uint32, 0, attrs)
	r.resp.Keys = make([]byte, 0, keyBytes)
	return r
}

// Add records attribute key with value v for token i of the current sentence.
func (r *ResponseBuilder) Add(i int, key []byte, v float64) {
	r.resp.Keys = append(r.resp.Keys, key...)
	r.resp.KeyLengths = append(r.resp.KeyLengths, uint32(len(key)))
	r.resp.Tokens = append(r.resp.Tokens, uint32(i))
	if v != 1 && r.allOnes {
		r.allOnes = false
		r.resp.Values = make([]float64, len(r.resp.Tokens)-1, cap(r.resp.Tokens))
		for j := range r.resp.Values {
			r.resp.Values[j] = 1
		}
	}
	if !r.allOnes {
		r.resp.Values = append(r.resp.Values, v)
	}
	r.count++
}

// EndSentence closes the current sentence, which had n tokens.
func (r *ResponseBuilder) EndSentence(n int) {
	r.resp.Lengths = append(r.resp.Lengths, uint32(n))
	r.resp.Counts = append(r.resp.Counts, r.count)
	r.count = 0
}

// Response returns the message.
func (r *ResponseBuilder) Response() *ExtractResponse { return &r.resp }

// Concat joins the responses for consecutive parts of a batch.
func Concat(parts []*ExtractResponse) *ExtractResponse {
	if len(parts) == 1 {
		return parts[0]
	}
	out := &ExtractResponse{}
	n, nk, ones := 0, 0, true
	for _, p := range parts {
		n += len(p.Tokens)
		nk += len(p.Keys)
		ones = ones && len(p.Values) == 0
	}
	out.Tokens = make([]uint32, 0, n)
	out.KeyLengths = make([]uint32, 0, n)
	out.Keys = make([]byte, 0, nk)
	if !ones {
		out.Values = make([]float64, 0, n)
	}
	for _, p := range parts {
		out.Lengths = append(out.Lengths, p.Lengths...)
		out.Counts = append(out.Counts, p.Counts...)
		out.Tokens = append(out.Tokens, p.Tokens...)
		out.KeyLengths = append(out.KeyLengths, p.KeyLengths...)
		out.Keys = append(out.Keys, p.Keys...)
		if !ones {
			if len(p.Values) == 0 {
				for range p.Tokens {
					out.Values = append(out.Values, 1)
				}
			} else {
				out.Values = append(out.Values, p.Values...)
			}
		}
	}
	return out
}

// HostKeys puts a template's prefix in front of a plugin's keys.
type HostKeys struct {
	Prefix []byte
	buf    []byte
}

// Visit checks a response against the lengths of the sentences sent and
// calls fn for every attribute: sentence k, token i, key with keys.Prefix
// in front (valid only during the call) and value.
func Visit(resp *ExtractResponse, lengths []uint32, keys *HostKeys, fn func(k, i int, key []byte, v float64)) error {
	idx, err := Index(resp, lengths, nil)
	if err != nil {
		return err
	}
	for k := range lengths {
		VisitSentence(resp, idx, k, keys, func(i int, key []byte, v float64) { fn(k, i, key, v) })
	}
	return nil
}

// Offset locates a sentence's attributes in a response: the index of its
// first attribute and of its first key byte.
type Offset struct{ Attr, Key int }

// Index checks a response against the lengths of the sentences sent — the
// token counts, the array lengths, every token index, UTF-8 keys — and
// returns, appended to dst, where each sentence's attributes start (one
// Offset per sentence, plus one for the end).
func Index(resp *ExtractResponse, lengths []uint32, dst []Offset) ([]Offset, error) {
	if resp == nil {
		resp = &ExtractResponse{} // as the wire would have it: no sentences
	}
	if got := len(resp.Lengths); got != len(lengths) || len(resp.Counts) != len(lengths) {
		return nil, fmt.Errorf("answered for %s, %d %s sent", plural.Count(got, "sentence"), len(lengths), plural.Pick(len(lengths), "was", "were"))
	}
	for k, n := range lengths {
		if resp.Lengths[k] != n {
			return nil, fmt.Errorf("wrong number of tokens: sentence %d of the batch has %s, the plugin answered for %d", k, plural.Count(int(n), "token"), resp.Lengths[k])
		}
	}
	tokens, klens, values, text := resp.Tokens, resp.KeyLengths, resp.Values, resp.Keys
	if len(klens) != len(tokens) || (len(values) != 0 && len(values) != len(tokens)) {
		return nil, fmt.Errorf("malformed response: %d tokens, %d keys, %d values", len(tokens), len(klens), len(values))
	}
	if !utf8.Valid(text) {
		pos := 0
		for _, l := range klens {
			if end := pos + int(l); end <= len(text) && !utf8.Valid(text[pos:end]) {
				return nil, fmt.Errorf("attribute key %q is not valid UTF-8", text[pos:end])
			}
			pos += int(l)
		}
		return nil, fmt.Errorf("attribute keys are not valid UTF-8")
	}
	j, pos := 0, 0
	for k, c := range resp.Counts {
		dst = append(dst, Offset{j, pos})
		end := j + int(c)
		if end > len(tokens) {
			return nil, fmt.Errorf("malformed response: sentence %d claims %d attributes, %d remain", k, c, len(tokens)-j)
		}
		for ; j < end; j++ {
			if i := tokens[j]; i >= lengths[k] {
				return nil, fmt.Errorf("wrong token index: attribute for token %d of sentence %d, which has %s", i, k, plural.Count(int(lengths[k]), "token"))
			}
			pos += int(klens[j])
			if pos > len(text) {
				return nil, fmt.Errorf("malformed response: keys overrun their bytes")
			}
			if len(values) != 0 {
				if v := values[j]; math.IsNaN(v) || math.IsInf(v, 0) {
					// A non-finite value would make every score of the
					// token NaN or infinite, and so the weights.
					key := text[pos-int(klens[j]) : pos]
					return nil, fmt.Errorf("attribute %q of token %d of sentence %d has the value %v; values must be finite", key, tokens[j], k, v)
				}
			}
		}
	}
	if j != len(tokens) || pos != len(text) {
		return nil, fmt.Errorf("malformed response: %d attributes or %d key bytes beyond the last sentence", len(tokens)-j, len(text)-pos)
	}
	return append(dst, Offset{j, pos}), nil
}

// VisitSentence calls fn for every attribute of sentence k of a response
// that Index has checked and indexed: token i, key with keys.Prefix in
// front (valid only during the call) and value.
func VisitSentence(resp *ExtractResponse, idx []Offset, k int, keys *HostKeys, fn func(i int, key []byte, v float64)) {
	tokens, klens, values, text := resp.Tokens, resp.KeyLengths, resp.Values, resp.Keys
	keys.buf = append(keys.buf[:0], keys.Prefix...)
	np := len(keys.Prefix)
	pos := idx[k].Key
	for j := idx[k].Attr; j < idx[k+1].Attr; j++ {
		kend := pos + int(klens[j])
		keys.buf = append(keys.buf[:np], text[pos:kend]...)
		pos = kend
		v := 1.0
		if len(values) != 0 {
			v = values[j]
		}
		fn(int(tokens[j]), keys.buf, v)
	}
}
