package pb

// The generated files are committed, so building trellis needs no protoc;
// run `go generate` only after editing protocol.proto.
//go:generate protoc --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative protocol.proto
