// Package protocol is the wire protocol between trellis and feature
// extractor plugins: the handshake, the gRPC service generated from
// protocol.proto, and the conversions between its messages and plain Go
// values. Plugin authors use plugins/sdk instead.
package protocol

//go:generate protoc --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative protocol.proto
