package protocol

import (
	"encoding/hex"
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/trellis-nlp/trellis/plugins/protocol/internal/pb"
)

// wireCase is one message, fully populated in its plain form, and its
// bytes on the wire.
type wireCase struct {
	name  string
	plain any
	// toproto and fromproto convert plain to its message and back.
	toproto   func() proto.Message
	fromproto func(proto.Message) any
	// golden is the message's deterministic encoding as the generated code
	// produced it in package plugins/protocol, before it moved to
	// internal/pb: plugin binaries built then speak exactly these bytes.
	golden string
}

func wireCases() []wireCase {
	describe := &DescribeResponse{Name: "gazetteer", Version: "1.2.3", Description: "lists", Fields: []Field{
		{Name: "column", Type: "string", Required: true, Description: "read"}, {Name: "lists", Type: "map(path)"}}}
	confReq := &ConfigureRequest{Config: []byte(`{"column":"word"}`), CorpusColumns: []string{"word", "pos"}}
	confResp := &ConfigureResponse{Instance: 7, Columns: []string{"word"}, Errors: []ConfigError{{Field: "lists", Message: "no such file"}, {Message: "bad"}}}
	extReq := &ExtractRequest{Instance: 7, Seq: 300, Lengths: []uint32{2, 1}, Text: []byte("NASAfliesUK"), ValueLengths: []uint32{4, 5, 2}}
	extResp := &ExtractResponse{Lengths: []uint32{2, 1}, Counts: []uint32{2, 1}, Tokens: []uint32{0, 1, 0}, KeyLengths: []uint32{1, 2, 3}, Values: []float64{1, 0.5, -2}, Keys: []byte("abcdef")}
	return []wireCase{
		{"DescribeRequest", &DescribeRequest{},
			func() proto.Message { return toprotoDescribeRequest(&DescribeRequest{}) },
			func(m proto.Message) any { return fromprotoDescribeRequest(m.(*pb.DescribeRequest)) },
			""},
		{"DescribeResponse", describe,
			func() proto.Message { return toprotoDescribeResponse(describe) },
			func(m proto.Message) any { return fromprotoDescribeResponse(m.(*pb.DescribeResponse)) },
			"0a0967617a6574746565721205312e322e331a180a06636f6c756d6e1206737472696e6718012204726561641a120a056c6973747312096d617028706174682922056c69737473"},
		{"ConfigureRequest", confReq,
			func() proto.Message { return toprotoConfigureRequest(confReq) },
			func(m proto.Message) any { return fromprotoConfigureRequest(m.(*pb.ConfigureRequest)) },
			"0a117b22636f6c756d6e223a22776f7264227d1204776f72641203706f73"},
		{"ConfigureResponse", confResp,
			func() proto.Message { return toprotoConfigureResponse(confResp) },
			func(m proto.Message) any { return fromprotoConfigureResponse(m.(*pb.ConfigureResponse)) },
			"08071204776f72641a150a056c69737473120c6e6f20737563682066696c651a051203626164"},
		{"ExtractRequest", extReq,
			func() proto.Message { return toprotoExtractRequest(extReq) },
			func(m proto.Message) any { return fromprotoExtractRequest(m.(*pb.ExtractRequest)) },
			"0807120202011a0b4e415341666c696573554b220304050228ac02"},
		{"ExtractResponse", extResp,
			func() proto.Message { return toprotoExtractResponse(extResp) },
			func(m proto.Message) any { return fromprotoExtractResponse(m.(*pb.ExtractResponse)) },
			"0a020201120202011a0300010022030102032a18000000000000f03f000000000000e03f00000000000000c03206616263646566"},
	}
}

// TestWireCompatible pins the bytes: the plain messages encode exactly as
// the generated ones did before they moved, so plugins built before and
// after the move interoperate.
func TestWireCompatible(t *testing.T) {
	for _, tc := range wireCases() {
		m := tc.toproto()
		got, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if hex.EncodeToString(got) != tc.golden {
			t.Errorf("%s encodes as\n%x, want\n%s", tc.name, got, tc.golden)
		}
		golden, _ := hex.DecodeString(tc.golden)
		back := m.ProtoReflect().New().Interface()
		if err := proto.Unmarshal(golden, back); err != nil {
			t.Fatal(err)
		}
		if got := tc.fromproto(back); !reflect.DeepEqual(got, tc.plain) {
			t.Errorf("%s decodes as %+v, want %+v", tc.name, got, tc.plain)
		}
	}
}

// TestConversionsCoverEveryField fails when protocol.proto gains a field
// that toproto.go does not fill (and so, likely, fromproto.go does not
// read): every field of every converted message, nested ones included,
// must be set from a fully populated plain message.
func TestConversionsCoverEveryField(t *testing.T) {
	for _, tc := range wireCases() {
		checkSet(t, tc.name, tc.toproto().ProtoReflect())
	}
}

func checkSet(t *testing.T, path string, m protoreflect.Message) {
	t.Helper()
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		name := path + "." + string(fd.Name())
		if !m.Has(fd) {
			t.Errorf("%s is not set by the conversion", name)
			continue
		}
		// The first element of a repeated message is fully populated in
		// the test cases; later ones may leave fields empty.
		if fd.Message() != nil && fd.IsList() {
			checkSet(t, name+"[0]", m.Get(fd).List().Get(0).Message())
		}
	}
}

// sink keeps the conversions' results on the heap, as in a real call.
var sink any

// TestConversionAllocations keeps the hot path light: a batch's request
// and response convert with one small allocation each way, whatever
// their size (slices are shared, never copied).
func TestConversionAllocations(t *testing.T) {
	var rb RequestBuilder
	rb.Reset(1, 0)
	resp := NewResponseBuilder()
	for k := 0; k < 256; k++ {
		rb.Sentence(20)
		for i := 0; i < 20; i++ {
			rb.Value("token")
			resp.Add(i, []byte("pre=tok"), 1)
		}
		resp.EndSentence(20)
	}
	req, pbReq := rb.Request(), toprotoExtractRequest(rb.Request())
	pbResp := toprotoExtractResponse(resp.Response())
	for name, f := range map[string]func(){
		"request to proto":    func() { sink = toprotoExtractRequest(req) },
		"request from proto":  func() { sink = fromprotoExtractRequest(pbReq) },
		"response to proto":   func() { sink = toprotoExtractResponse(resp.Response()) },
		"response from proto": func() { sink = fromprotoExtractResponse(pbResp) },
	} {
		if got := testing.AllocsPerRun(100, f); got > 1 {
			t.Errorf("%s: %v allocations, want at most 1", name, got)
		}
	}
}

// TestNilMessages: a nil plain message goes on the wire as an empty one,
// and an empty message comes off it as a zero value, as the generated
// getters read them.
func TestNilMessages(t *testing.T) {
	if m := toprotoExtractResponse(nil); m == nil || len(m.Lengths) != 0 {
		t.Errorf("nil response: %v", m)
	}
	if r := fromprotoExtractResponse(nil); r == nil || len(r.Lengths) != 0 {
		t.Errorf("nil message: %v", r)
	}
	if r := fromprotoConfigureResponse(nil); r == nil || r.Instance != 0 || r.Errors != nil {
		t.Errorf("nil configure message: %v", r)
	}
	if _, err := Index(nil, []uint32{3}, nil); err == nil {
		t.Error("Index accepts no response for one sentence")
	}
}
