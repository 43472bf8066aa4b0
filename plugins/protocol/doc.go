// Package protocol is the wire protocol between trellis and feature
// extractor plugins: the handshake, plain Go types for the messages of
// the gRPC service, the client the host calls and the adapter a plugin
// serves through, and the encoding and checking of a batch's values and
// attributes.
//
// The code protoc generates lives in internal/pb, which only this package
// may import: the host (framework/plugin) and plugins/sdk see plain
// structs and functions, so neither depends on protobuf's generated API,
// and the messages convert in one place (toproto.go, fromproto.go). The
// conversions only copy slice headers, so a batch's buffers go to the
// wire and come back without a copy or an allocation per token.
//
// Plugin authors use plugins/sdk instead.
package protocol
