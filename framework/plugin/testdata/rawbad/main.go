// Command rawbad is a test plugin written against the protocol package
// (not the SDK, which cannot get this wrong): it answers for one token
// more than each sentence has. The protocol package's plain messages map
// field for field onto the wire and its conversions check nothing, so the
// host receives exactly this bad answer.
package main

import (
	"context"

	goplugin "github.com/hashicorp/go-plugin"

	"github.com/trellis-nlp/trellis/plugins/protocol"
)

type server struct{}

var _ protocol.Server = server{}

func (server) Describe(context.Context, *protocol.DescribeRequest) (*protocol.DescribeResponse, error) {
	return &protocol.DescribeResponse{Name: "rawbad", Version: "1", Fields: []protocol.Field{{Name: "column", Type: "string", Required: true}}}, nil
}

func (server) Configure(_ context.Context, req *protocol.ConfigureRequest) (*protocol.ConfigureResponse, error) {
	return &protocol.ConfigureResponse{Instance: 1, Columns: req.CorpusColumns[:1]}, nil
}

func (server) Extract(_ context.Context, req *protocol.ExtractRequest) (*protocol.ExtractResponse, error) {
	b := protocol.NewResponseBuilder()
	for _, n := range req.Lengths {
		b.EndSentence(int(n) + 1)
	}
	return b.Response(), nil
}

func main() {
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig:  protocol.Handshake,
		VersionedPlugins: protocol.PluginSets(server{}),
		GRPCServer:       goplugin.DefaultGRPCServer,
	})
}
