// Package pb is the code protoc generates from protocol.proto: the wire
// messages and the gRPC service of the plugin protocol.
//
// It is internal so that only plugins/protocol can import it. Generated
// types change shape with every protoc-gen-go release and carry protobuf
// machinery (state, size caches, getters) that neither the host nor a
// plugin author should depend on; plugins/protocol converts them to plain
// Go types at the edge (toproto.go, fromproto.go), the way
// terraform-plugin-go keeps its tfplugin6 package behind tfprotov6.
package pb
