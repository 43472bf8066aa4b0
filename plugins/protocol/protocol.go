package protocol

import (
	"context"
	"fmt"
	"math"
	"unicode/utf8"

	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
)

// Version is the plugin protocol version. A plugin built against another
// version is refused at the handshake with a message naming both.
const Version = 1

// Handshake is what host and plugin check before anything else. The magic
// cookie keeps a plugin binary from being run by hand by mistake (it then
// says so and exits).
var Handshake = goplugin.HandshakeConfig{
	ProtocolVersion:  Version,
	MagicCookieKey:   "TRELLIS_PLUGIN",
	MagicCookieValue: "feature-extractor",
}

// PluginName is the name of the one service a trellis plugin offers.
const PluginName = "extractor"

// MaxMessageBytes is the gRPC message size limit both sides accept. The
// host also splits batches so that requests stay below RequestBudget; the
// higher limit is for responses, whose size the host cannot bound.
const MaxMessageBytes = 1 << 30

// Window and buffer sizes for the connection: a batch's answer (100s of
// KB) then flows without waiting for HTTP/2 window updates, which would
// cost a round trip between the processes each time.
const (
	windowBytes = 16 << 20
	bufferBytes = 1 << 20
)

// ServerOptions are the gRPC server options of a plugin.
func ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.MaxRecvMsgSize(MaxMessageBytes), grpc.MaxSendMsgSize(MaxMessageBytes),
		grpc.InitialWindowSize(windowBytes), grpc.InitialConnWindowSize(windowBytes),
		grpc.WriteBufferSize(bufferBytes), grpc.ReadBufferSize(bufferBytes),
	}
}

// DialOptions are the gRPC client options of the host.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageBytes), grpc.MaxCallSendMsgSize(MaxMessageBytes)),
		grpc.WithInitialWindowSize(windowBytes), grpc.WithInitialConnWindowSize(windowBytes),
		grpc.WithWriteBufferSize(bufferBytes), grpc.WithReadBufferSize(bufferBytes),
	}
}

// RequestBudget bounds the column values carried by one Extract request.
const RequestBudget = 4 << 20

// LogLevelEnv is the environment variable through which the host tells a
// plugin the lowest log level worth sending (trace, debug, info, warn, error).
const LogLevelEnv = "TRELLIS_PLUGIN_LOG_LEVEL"

// GRPCPlugin adapts the Extractor service to go-plugin. The host uses it
// with Impl nil; a plugin serves Impl.
type GRPCPlugin struct {
	goplugin.NetRPCUnsupportedPlugin
	Impl ExtractorServer
}

// GRPCServer registers the service.
func (p *GRPCPlugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	RegisterExtractorServer(s, p.Impl)
	return nil
}

// GRPCClient returns the service's client.
func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *goplugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return NewExtractorClient(c), nil
}

// PluginSets is the versioned plugin set both sides pass to go-plugin.
func PluginSets(impl ExtractorServer) map[int]goplugin.PluginSet {
	return map[int]goplugin.PluginSet{Version: {PluginName: &GRPCPlugin{Impl: impl}}}
}

// Field describes one config attribute a plugin accepts.
type Field struct {
	Name        string
	Type        string
	Required    bool
	Description string
}

// FieldTypes are the config types a plugin may declare.
var FieldTypes = []string{"string", "number", "bool", "path", "list(string)", "list(number)", "list(path)", "map(string)", "map(number)", "map(path)"}

// FieldsToWire converts a schema to its message form.
func FieldsToWire(fs []Field) []*FieldSchema {
	out := make([]*FieldSchema, len(fs))
	for i, f := range fs {
		out[i] = &FieldSchema{Name: f.Name, Type: f.Type, Required: f.Required, Description: f.Description}
	}
	return out
}

// FieldsFromWire converts a schema from its message form.
func FieldsFromWire(fs []*FieldSchema) []Field {
	out := make([]Field, len(fs))
	for i, f := range fs {
		out[i] = Field{Name: f.GetName(), Type: f.GetType(), Required: f.GetRequired(), Description: f.GetDescription()}
	}
	return out
}

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

// BatchFromWire checks a request against the instance's column count.
func BatchFromWire(req *ExtractRequest, width int) (*Batch, error) {
	b := &Batch{Lengths: req.GetLengths(), Width: width, offsets: make([]int, len(req.GetLengths())+1)}
	total := 0
	for k, n := range b.Lengths {
		b.offsets[k] = total
		total += int(n) * width
	}
	b.offsets[len(b.Lengths)] = total
	vl := req.GetValueLengths()
	if total != len(vl) {
		return nil, fmt.Errorf("request carries %d values for %d tokens of %d columns", len(vl), total/max(width, 1), width)
	}
	text := string(req.GetText()) // one copy; values are substrings of it
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
	if got := len(resp.GetLengths()); got != len(lengths) || len(resp.GetCounts()) != len(lengths) {
		return nil, fmt.Errorf("answered for %d sentences, %d were sent", got, len(lengths))
	}
	for k, n := range lengths {
		if resp.Lengths[k] != n {
			return nil, fmt.Errorf("wrong number of tokens: sentence %d of the batch has %d tokens, the plugin answered for %d", k, n, resp.Lengths[k])
		}
	}
	tokens, klens, values, text := resp.GetTokens(), resp.GetKeyLengths(), resp.GetValues(), resp.GetKeys()
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
				return nil, fmt.Errorf("wrong token index: attribute for token %d of sentence %d, which has %d tokens", i, k, lengths[k])
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
	tokens, klens, values, text := resp.GetTokens(), resp.GetKeyLengths(), resp.GetValues(), resp.GetKeys()
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
