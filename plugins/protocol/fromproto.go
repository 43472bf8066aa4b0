package protocol

import "github.com/trellis-nlp/trellis/plugins/protocol/internal/pb"

// The conversions from generated messages to plain ones, used where a
// message comes off the wire: responses on the host's side, requests on
// the plugin's. They read through the generated getters, so a nil message
// converts to the zero value, and share slices with the message, which
// nothing else holds once it is unmarshalled. No conversion checks
// anything: the host's checks (Index) and the plugin's (NewBatch) see
// exactly what the other side sent.

func fromprotoDescribeRequest(*pb.DescribeRequest) *DescribeRequest { return &DescribeRequest{} }

func fromprotoDescribeResponse(m *pb.DescribeResponse) *DescribeResponse {
	return &DescribeResponse{Name: m.GetName(), Version: m.GetVersion(), Description: m.GetDescription(), Fields: fromprotoFields(m.GetFields())}
}

func fromprotoFields(fs []*pb.FieldSchema) []Field {
	if len(fs) == 0 {
		return nil
	}
	out := make([]Field, len(fs))
	for i, f := range fs {
		out[i] = Field{Name: f.GetName(), Type: f.GetType(), Required: f.GetRequired(), Description: f.GetDescription()}
	}
	return out
}

func fromprotoConfigureRequest(m *pb.ConfigureRequest) *ConfigureRequest {
	return &ConfigureRequest{Config: m.GetConfigJson(), CorpusColumns: m.GetCorpusColumns()}
}

func fromprotoConfigureResponse(m *pb.ConfigureResponse) *ConfigureResponse {
	out := &ConfigureResponse{Instance: m.GetInstance(), Columns: m.GetColumns()}
	if es := m.GetErrors(); len(es) > 0 {
		out.Errors = make([]ConfigError, len(es))
		for i, e := range es {
			out.Errors[i] = ConfigError{Field: e.GetField(), Message: e.GetMessage()}
		}
	}
	return out
}

func fromprotoExtractRequest(m *pb.ExtractRequest) *ExtractRequest {
	return &ExtractRequest{Instance: m.GetInstance(), Seq: m.GetSeq(), Lengths: m.GetLengths(), Text: m.GetText(), ValueLengths: m.GetValueLengths()}
}

func fromprotoExtractResponse(m *pb.ExtractResponse) *ExtractResponse {
	return &ExtractResponse{Lengths: m.GetLengths(), Counts: m.GetCounts(), Tokens: m.GetTokens(), KeyLengths: m.GetKeyLengths(), Values: m.GetValues(), Keys: m.GetKeys()}
}
