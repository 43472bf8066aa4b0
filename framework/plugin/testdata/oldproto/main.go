// Command oldproto is a test plugin that speaks a protocol version trellis
// does not: the handshake must refuse it.
package main

import (
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/trellis-nlp/trellis/plugins/protocol"
)

func main() {
	hs := protocol.Handshake
	hs.ProtocolVersion = 99
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig:  hs,
		VersionedPlugins: map[int]goplugin.PluginSet{99: {protocol.PluginName: &protocol.GRPCPlugin{Impl: &protocol.UnimplementedExtractorServer{}}}},
		GRPCServer:       goplugin.DefaultGRPCServer,
	})
}
