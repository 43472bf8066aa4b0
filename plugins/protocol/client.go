package protocol

import (
	"context"

	"google.golang.org/grpc"

	"github.com/trellis-nlp/trellis/plugins/protocol/internal/pb"
)

// Client is the host's side of the Extractor service, in plain messages.
// It is safe for concurrent use: the host keeps several Extract calls of
// an instance in flight.
type Client struct {
	rpc pb.ExtractorClient
}

// NewClient returns a client calling the Extractor service over cc.
// go-plugin calls it through GRPCPlugin; tests may call it on any
// connection.
func NewClient(cc grpc.ClientConnInterface) *Client {
	return &Client{rpc: pb.NewExtractorClient(cc)}
}

// Describe asks the plugin for its name, version and config schema.
func (c *Client) Describe(ctx context.Context, req *DescribeRequest) (*DescribeResponse, error) {
	resp, err := c.rpc.Describe(ctx, toprotoDescribeRequest(req))
	if err != nil {
		return nil, err
	}
	return fromprotoDescribeResponse(resp), nil
}

// Configure asks the plugin for an instance. A refused config is a
// response with Errors, not an error.
func (c *Client) Configure(ctx context.Context, req *ConfigureRequest) (*ConfigureResponse, error) {
	resp, err := c.rpc.Configure(ctx, toprotoConfigureRequest(req))
	if err != nil {
		return nil, err
	}
	return fromprotoConfigureResponse(resp), nil
}

// Extract sends a batch and returns the plugin's answer, unchecked (see
// Index). req's slices must not change until Extract returns.
func (c *Client) Extract(ctx context.Context, req *ExtractRequest) (*ExtractResponse, error) {
	resp, err := c.rpc.Extract(ctx, toprotoExtractRequest(req))
	if err != nil {
		return nil, err
	}
	return fromprotoExtractResponse(resp), nil
}
