package protocol

import (
	"context"

	"google.golang.org/grpc"

	"github.com/trellis-nlp/trellis/plugins/protocol/internal/pb"
)

// Server is a plugin's side of the Extractor service, in plain messages.
// plugins/sdk implements it; so may a test plugin that must break the
// protocol in ways the SDK cannot. Calls arrive concurrently.
type Server interface {
	// Describe returns the plugin's name, version and config schema.
	Describe(context.Context, *DescribeRequest) (*DescribeResponse, error)
	// Configure creates an extractor instance from a decoded config.
	Configure(context.Context, *ConfigureRequest) (*ConfigureResponse, error)
	// Extract computes the attributes of a batch of sentences.
	Extract(context.Context, *ExtractRequest) (*ExtractResponse, error)
}

// RegisterServer registers impl as the Extractor service of s. go-plugin
// calls it through GRPCPlugin; tests may call it on any server.
func RegisterServer(s grpc.ServiceRegistrar, impl Server) {
	pb.RegisterExtractorServer(s, &grpcServer{impl: impl})
}

// grpcServer adapts a Server to the generated service interface. It embeds
// the generated Unimplemented type, as generated servers must, so that a
// method added to the .proto answers Unimplemented until Server has it.
type grpcServer struct {
	pb.UnimplementedExtractorServer
	impl Server
}

var _ pb.ExtractorServer = (*grpcServer)(nil)

func (s *grpcServer) Describe(ctx context.Context, req *pb.DescribeRequest) (*pb.DescribeResponse, error) {
	resp, err := s.impl.Describe(ctx, fromprotoDescribeRequest(req))
	if err != nil {
		return nil, err
	}
	return toprotoDescribeResponse(resp), nil
}

func (s *grpcServer) Configure(ctx context.Context, req *pb.ConfigureRequest) (*pb.ConfigureResponse, error) {
	resp, err := s.impl.Configure(ctx, fromprotoConfigureRequest(req))
	if err != nil {
		return nil, err
	}
	return toprotoConfigureResponse(resp), nil
}

func (s *grpcServer) Extract(ctx context.Context, req *pb.ExtractRequest) (*pb.ExtractResponse, error) {
	resp, err := s.impl.Extract(ctx, fromprotoExtractRequest(req))
	if err != nil {
		return nil, err
	}
	return toprotoExtractResponse(resp), nil
}
