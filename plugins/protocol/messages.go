package protocol

// The plain Go forms of the messages of internal/pb/protocol.proto, field
// for field. They carry no protobuf machinery, so the host and the SDK
// can build, copy and compare them like any struct; toproto.go and
// fromproto.go convert them at the gRPC edge.

// DescribeRequest asks a plugin what it is. It is empty, and kept as a
// type so that Server's signature need not change if it gains fields.
type DescribeRequest struct{}

// DescribeResponse is a plugin's name, version and config schema.
type DescribeResponse struct {
	Name        string
	Version     string
	Description string
	Fields      []Field
}

// Field describes one config attribute a plugin accepts.
type Field struct {
	Name string
	// Type is one of FieldTypes. Paths are resolved against the spec's
	// folder by the host before the plugin sees them.
	Type        string
	Required    bool
	Description string
}

// FieldTypes are the config types a plugin may declare.
var FieldTypes = []string{"string", "number", "bool", "path", "list(string)", "list(number)", "list(path)", "map(string)", "map(number)", "map(path)"}

// ConfigureRequest asks a plugin for an extractor instance.
type ConfigureRequest struct {
	// Config is the config as a JSON object, already checked against the
	// schema.
	Config []byte
	// CorpusColumns are the corpus's column names (the label column
	// excluded).
	CorpusColumns []string
}

// ConfigureResponse is a configured instance, or why there is none.
type ConfigureResponse struct {
	Instance uint32
	// Columns are the columns the instance reads, in the order they are
	// sent.
	Columns []string
	// Errors, when not empty, refuse the config: Instance is then unset.
	Errors []ConfigError
}

// ConfigError is a plugin's objection to its config.
type ConfigError struct {
	Field   string // the config field at fault, or empty
	Message string
}

// ExtractRequest is a batch of sentences for an instance. The host fills
// it with a RequestBuilder; a plugin reads it through NewBatch.
type ExtractRequest struct {
	Instance uint32
	// Seq numbers an instance's requests from 0: the host may have several
	// in flight; the plugin handles them one at a time, in this order.
	Seq uint64
	// Lengths[k] is the number of tokens of sentence k.
	Lengths []uint32
	// Text holds, sentence after sentence and token after token, the
	// value of every requested column, concatenated; ValueLengths[j] is
	// the length in bytes of value j. (One blob rather than repeated
	// strings: no allocation and no UTF-8 check per value.)
	Text         []byte
	ValueLengths []uint32
}

// ExtractResponse is the attributes of a batch. A plugin fills it with a
// ResponseBuilder; the host checks it with Index or Visit.
type ExtractResponse struct {
	// Lengths echoes the token counts the plugin saw, for checking.
	Lengths []uint32
	// Counts[k] is the number of attributes of sentence k.
	Counts []uint32
	// For each attribute, in order: its token, the length of its key and
	// its value (Values empty means every value is 1). The keys
	// themselves are concatenated in Keys (checked for valid UTF-8 by the
	// host). Sending keys whole costs bytes but spares the plugin a hash
	// lookup per attribute; the host interns them once, as it does a
	// builtin's.
	Tokens     []uint32
	KeyLengths []uint32
	Values     []float64
	Keys       []byte
}
