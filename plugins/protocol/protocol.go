package protocol

import (
	"context"

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
// with Impl nil and dispenses a *Client; a plugin serves Impl.
type GRPCPlugin struct {
	goplugin.NetRPCUnsupportedPlugin
	Impl Server
}

var _ goplugin.GRPCPlugin = (*GRPCPlugin)(nil)

// GRPCServer registers the service.
func (p *GRPCPlugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	RegisterServer(s, p.Impl)
	return nil
}

// GRPCClient returns the service's client, a *Client.
func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *goplugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return NewClient(c), nil
}

// PluginSets is the versioned plugin set both sides pass to go-plugin.
func PluginSets(impl Server) map[int]goplugin.PluginSet {
	return map[int]goplugin.PluginSet{Version: {PluginName: &GRPCPlugin{Impl: impl}}}
}
