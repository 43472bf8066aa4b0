package protocol

import "github.com/trellis-nlp/trellis/plugins/protocol/internal/pb"

// The conversions from plain messages to generated ones, used where a
// message goes onto the wire: requests on the host's side, responses on
// the plugin's. Slices are shared, not copied (the message is marshalled
// before the call returns), so a batch costs one small struct, whatever
// its size. A nil message converts to an empty one.

func toprotoDescribeRequest(*DescribeRequest) *pb.DescribeRequest { return &pb.DescribeRequest{} }

func toprotoDescribeResponse(r *DescribeResponse) *pb.DescribeResponse {
	if r == nil {
		return &pb.DescribeResponse{}
	}
	return &pb.DescribeResponse{Name: r.Name, Version: r.Version, Description: r.Description, Fields: toprotoFields(r.Fields)}
}

func toprotoFields(fs []Field) []*pb.FieldSchema {
	if len(fs) == 0 {
		return nil
	}
	out := make([]*pb.FieldSchema, len(fs))
	for i, f := range fs {
		out[i] = &pb.FieldSchema{Name: f.Name, Type: f.Type, Required: f.Required, Description: f.Description}
	}
	return out
}

func toprotoConfigureRequest(r *ConfigureRequest) *pb.ConfigureRequest {
	if r == nil {
		return &pb.ConfigureRequest{}
	}
	return &pb.ConfigureRequest{ConfigJson: r.Config, CorpusColumns: r.CorpusColumns}
}

func toprotoConfigureResponse(r *ConfigureResponse) *pb.ConfigureResponse {
	if r == nil {
		return &pb.ConfigureResponse{}
	}
	out := &pb.ConfigureResponse{Instance: r.Instance, Columns: r.Columns}
	if len(r.Errors) > 0 {
		out.Errors = make([]*pb.ConfigError, len(r.Errors))
		for i, e := range r.Errors {
			out.Errors[i] = &pb.ConfigError{Field: e.Field, Message: e.Message}
		}
	}
	return out
}

func toprotoExtractRequest(r *ExtractRequest) *pb.ExtractRequest {
	if r == nil {
		return &pb.ExtractRequest{}
	}
	return &pb.ExtractRequest{Instance: r.Instance, Seq: r.Seq, Lengths: r.Lengths, Text: r.Text, ValueLengths: r.ValueLengths}
}

func toprotoExtractResponse(r *ExtractResponse) *pb.ExtractResponse {
	if r == nil {
		return &pb.ExtractResponse{}
	}
	return &pb.ExtractResponse{Lengths: r.Lengths, Counts: r.Counts, Tokens: r.Tokens, KeyLengths: r.KeyLengths, Values: r.Values, Keys: r.Keys}
}
