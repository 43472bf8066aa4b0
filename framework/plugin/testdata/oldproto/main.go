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
		HandshakeConfig: hs,
		// No Impl: the host refuses the version before calling anything,
		// and a call would be a bug worth a crash.
		VersionedPlugins: map[int]goplugin.PluginSet{99: {protocol.PluginName: &protocol.GRPCPlugin{}}},
		GRPCServer:       goplugin.DefaultGRPCServer,
	})
}
