package protocol_test

import (
	"context"
	"errors"
	"net"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/trellis-nlp/trellis/plugins/protocol"
)

// echo is a Server that answers each sentence with one attribute per
// token, or with what its fields say.
type echo struct {
	refuse    bool  // Configure refuses the config
	fail      error // Extract fails
	overshoot bool  // Extract answers for one token too many
}

var _ protocol.Server = (*echo)(nil)

func (e *echo) Describe(context.Context, *protocol.DescribeRequest) (*protocol.DescribeResponse, error) {
	return &protocol.DescribeResponse{Name: "echo", Version: "1", Fields: []protocol.Field{{Name: "column", Type: "string", Required: true}}}, nil
}

func (e *echo) Configure(_ context.Context, req *protocol.ConfigureRequest) (*protocol.ConfigureResponse, error) {
	if e.refuse {
		return &protocol.ConfigureResponse{Errors: []protocol.ConfigError{{Field: "column", Message: string(req.Config)}}}, nil
	}
	return &protocol.ConfigureResponse{Instance: 3, Columns: req.CorpusColumns[:1]}, nil
}

func (e *echo) Extract(_ context.Context, req *protocol.ExtractRequest) (*protocol.ExtractResponse, error) {
	if e.fail != nil {
		return nil, e.fail
	}
	b, err := protocol.NewBatch(req, 1)
	if err != nil {
		return nil, err
	}
	rb := protocol.NewResponseBuilder()
	for k, n := range b.Lengths {
		for i, v := range b.Sentence(k) {
			rb.Add(i, []byte("w="+v), 1)
		}
		if e.overshoot {
			n++
		}
		rb.EndSentence(int(n))
	}
	return rb.Response(), nil
}

// dial serves impl in process and returns a client of it.
func dial(t *testing.T, impl protocol.Server) *protocol.Client {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer(protocol.ServerOptions()...)
	protocol.RegisterServer(srv, impl)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	opts := append(protocol.DialOptions(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }))
	cc, err := grpc.NewClient("passthrough:///bufconn", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return protocol.NewClient(cc)
}

// TestClientServer runs the three calls through gRPC in plain messages.
func TestClientServer(t *testing.T) {
	ctx := context.Background()
	c := dial(t, &echo{})
	desc, err := c.Describe(ctx, &protocol.DescribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := &protocol.DescribeResponse{Name: "echo", Version: "1", Fields: []protocol.Field{{Name: "column", Type: "string", Required: true}}}
	if !reflect.DeepEqual(desc, want) {
		t.Errorf("Describe: %+v, want %+v", desc, want)
	}
	conf, err := c.Configure(ctx, &protocol.ConfigureRequest{Config: []byte("{}"), CorpusColumns: []string{"word", "pos"}})
	if err != nil || conf.Instance != 3 || !reflect.DeepEqual(conf.Columns, []string{"word"}) || conf.Errors != nil {
		t.Fatalf("Configure: %+v, %v", conf, err)
	}
	var rb protocol.RequestBuilder
	rb.Reset(conf.Instance, 0)
	for _, s := range [][]string{{"NASA", "flies"}, {}, {"UK"}} {
		rb.Sentence(len(s))
		for _, v := range s {
			rb.Value(v)
		}
	}
	resp, err := c.Extract(ctx, rb.Request())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = protocol.Visit(resp, rb.Request().Lengths, &protocol.HostKeys{Prefix: []byte("x")}, func(k, i int, key []byte, v float64) {
		got = append(got, string(rune('0'+k))+string(rune('0'+i))+string(key))
	})
	if want := []string{"00xw=NASA", "01xw=flies", "20xw=UK"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Extract: %v, %v; want %v", got, err, want)
	}
}

// TestClientServerPassesThrough: the adapters neither check nor repair
// what crosses them — a refused config, a failed call and a malformed
// answer reach the host as the plugin gave them, for the host to judge.
func TestClientServerPassesThrough(t *testing.T) {
	ctx := context.Background()
	conf, err := dial(t, &echo{refuse: true}).Configure(ctx, &protocol.ConfigureRequest{Config: []byte("nope")})
	if err != nil || len(conf.Errors) != 1 || conf.Errors[0] != (protocol.ConfigError{Field: "column", Message: "nope"}) {
		t.Errorf("refused config: %+v, %v", conf, err)
	}
	var rb protocol.RequestBuilder
	rb.Reset(3, 0)
	rb.Sentence(1)
	rb.Value("a")
	if _, err := dial(t, &echo{fail: errors.New("boom")}).Extract(ctx, rb.Request()); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("failed call: %v", err)
	}
	resp, err := dial(t, &echo{overshoot: true}).Extract(ctx, rb.Request())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := protocol.Index(resp, rb.Request().Lengths, nil); err == nil || !strings.Contains(err.Error(), "wrong number of tokens") {
		t.Errorf("malformed answer: %v", err)
	}
}
