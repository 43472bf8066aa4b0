package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/fileio"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/linear"
	"github.com/trellis-nlp/trellis/framework/neural"
	"github.com/trellis-nlp/trellis/framework/plural"
	"github.com/trellis-nlp/trellis/framework/rerank"
)

// Version is the newest model file format this build writes and reads.
// Version 2 is version 1 with what a plain model does not need: a
// training encoding (Header.OutputScheme), local normalization
// (Header.Normalization, an MEMM), pair features, hidden states
// (Header.HiddenStates, a latent CRF) or first stages (Header.Stages). Only models that use one of them are written as 2, so an
// older trellis refuses them instead of printing labels in the encoding,
// decoding an MEMM as a CRF or reading states as labels, and every other
// model keeps version 1 and its exact bytes.
const Version = 2

// SecondOrderVersion is the format of a second-order model
// (Header.Trigrams): version 2 with the model's label trigrams after the
// pair features. It is the newest format this build reads; only
// second-order models are written in it, so an older trellis refuses them
// as too new instead of misreading their weights.
const SecondOrderVersion = 3

// NeuralVersion is the format of a model with a neural encoder
// (Header.Encoder): version 3 with the network's weights after the
// stage models. Only such models are written in it.
const NeuralVersion = 4

// TransitionVersion is the format of a model that decodes by transition
// search (Header.Search): version 4 whose header says so. The weights are
// laid out as any model's, but the lattice would decode them wrongly
// (without their history features), so an older trellis must refuse the
// model as too new. Only such models are written in it.
const TransitionVersion = 5

// RerankVersion is the format of a model that carries a reranker
// (Header.Rerank): version 5 with the reranker's bytes after the network.
// An older trellis would tag with the first pass alone, so it must refuse
// the model as too new. Only such models are written in it.
const RerankVersion = 6

// NewestVersion is the newest format this build reads.
const NewestVersion = RerankVersion

// PlainVersion is the format of models without an encoding or local
// normalization.
const PlainVersion = 1

// NormalizationLocal is the header's normalization for a locally
// normalized model (linear.Model.Local).
const NormalizationLocal = "local"

// maxHiddenStates bounds a model file's hidden states per label, so that
// a corrupted header cannot ask for a huge lattice.
const maxHiddenStates = 1 << 10

// maxBeam bounds a transition model's search width likewise.
const maxBeam = 1 << 10

var magic = [8]byte{'T', 'R', 'E', 'L', 'L', 'I', 'S', 'M'}

// Model is a trained model with everything needed to tag.
type Model struct {
	Header
	Attrs  []string
	Linear *linear.Model
	// StageModels are the first-stage models whose predictions the
	// model reads as columns, one per Header.Stages entry (stage.go); the
	// file carries them after the weights.
	StageModels []*Model
	// Network is the neural encoder whose label scores join the linear
	// model's state scores (Header.Encoder), nil for most models; the
	// file carries its weights after the stage models.
	Network *neural.Network
	// Reranker rescores the model's k-best lists (Header.Rerank), nil for
	// most models; the file carries its bytes last.
	Reranker *rerank.Model
}

// Header is the JSON part of a model file.
type Header struct {
	Version int      `json:"version"`
	Labels  []string `json:"labels"`
	// Scheme is the scheme of Labels, the one the model decodes in
	// (constraints included).
	Scheme string `json:"scheme"`
	// OutputScheme, when set, is the corpus's scheme: the model was
	// trained in the encoding Scheme (say BIOES for an IOB1 corpus) and
	// the tagger converts its predictions back to OutputScheme.
	OutputScheme string                 `json:"output_scheme,omitempty"`
	Constrained  bool                   `json:"constrained"`
	Format       corpus.Config          `json:"format"`
	LabelColumn  string                 `json:"label_column"`
	WordColumn   string                 `json:"word_column,omitempty"`
	Templates    []feature.TemplateSpec `json:"templates"`
	Transitions  bool                   `json:"transitions"`
	// Normalization is "local" for a locally normalized model (an MEMM,
	// format version 2), empty otherwise.
	Normalization string `json:"normalization,omitempty"`
	// PairFeatures is the number of pair features (input-conditioned
	// transitions of templates with labels = "bigram", format version 2):
	// their offsets and bigrams follow the state features' in the file.
	// Zero, and absent, for every other model.
	PairFeatures int `json:"pair_features,omitempty"`
	// HiddenStates is the number of hidden states per label of a latent
	// model (format version 2; linear.Model.HiddenStates): the model's
	// weights are over len(Labels)·HiddenStates states, state s belonging
	// to label s / HiddenStates. 0 for every other model.
	HiddenStates int `json:"hidden_states,omitempty"`
	// Stages describe the first-stage models the file carries (format
	// version 2; stage.go): the tagger runs each and adds its labels as
	// the column the templates read. Absent for every other model.
	Stages []Stage `json:"stages,omitempty"`
	// Trigrams is the number of label trigrams of a second-order model
	// (format version 3; linear.Model.Trigrams): the trigrams, as three
	// int32s each (lattice.Boundary, -1, for ⟨s⟩ and ⟨/s⟩), follow the
	// pair features in the file, their weights the stop weights in W.
	// 0 for every other model.
	Trigrams int `json:"trigrams,omitempty"`
	// UnknownAttrs[g] is the attribute standing for template g's values
	// unseen in training (see feature.Mapper.UnknownAttrs).
	UnknownAttrs []int32 `json:"unknown_attrs"`
	// Encoder is the network's header (configuration, vocabulary,
	// columns; format version 4), nil without a network.
	Encoder *neural.Header `json:"encoder,omitempty"`
	// Search, when set, says the model decodes by transition search
	// (format version 5; framework/transition) instead of on the lattice.
	// Nil for every other model.
	Search *Search `json:"search,omitempty"`
	// Rerank, when set, says the model is the first pass of a reranker
	// (format version 6; rerank.go), which the file carries last. Nil for
	// every other model.
	Rerank     *Rerank    `json:"rerank,omitempty"`
	Learner    Learner    `json:"learner"`
	Provenance Provenance `json:"provenance"`
}

// Search is how a transition model decodes: left to right, keeping Beam
// partial sequences (1 is greedy), its history features laid out from its
// decisions template (transition.Layout) and named in its attributes.
type Search struct {
	Method string `json:"method"` // SearchTransition
	Beam   int    `json:"beam"`
}

// SearchTransition is Search.Method of a transition model.
const SearchTransition = "transition"

// Learner records which learner made the model and how.
type Learner struct {
	Name   string          `json:"name"`
	Type   string          `json:"type"`
	Config json.RawMessage `json:"config"`
}

// Provenance records where a model came from. It holds no timestamps so
// that the same spec, data and seed give the same bytes.
type Provenance struct {
	Experiment string            `json:"experiment"`
	SpecHash   string            `json:"spec_sha256"`
	DataHashes map[string]string `json:"data_sha256"`
	Seed       uint64            `json:"seed"`
	Trellis    string            `json:"trellis_version"`
	// Pruned is set on a model that framework/prune rewrote after
	// training: what cannot change a score removed, the rest as trained.
	Pruned bool `json:"pruned,omitempty"`
}

// Save writes m to path atomically: a temporary file in the same folder,
// synced, then renamed, so a crash never leaves half a model.
func Save(path string, m *Model) error {
	b, err := m.encode()
	if err != nil {
		return err
	}
	return fileio.WriteFile(path, b)
}

// Encode writes the model file format to w.
func (m *Model) Encode(w io.Writer) error {
	b, err := m.encode()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// encode returns the model file's bytes, built in one buffer of the
// file's exact size (a model's weights can be tens of megabytes: growing
// and copying them costs more than the rest of a save).
func (m *Model) encode() ([]byte, error) {
	if err := m.Linear.Validate(); err != nil {
		return nil, err
	}
	if m.Linear.NumOutputLabels() != len(m.Labels) {
		return nil, fmt.Errorf("model: %d label names for %d labels", len(m.Labels), m.Linear.NumOutputLabels())
	}
	if m.Linear.NumAttrs() != len(m.Attrs) {
		return nil, fmt.Errorf("model: %d attribute names for %d attributes", len(m.Attrs), m.Linear.NumAttrs())
	}
	for i, v := range m.Linear.W {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("model: weight %d is %v; refusing to write a broken model", i, v)
		}
	}
	h := m.Header
	h.Normalization = ""
	if m.Linear.Local {
		h.Normalization = NormalizationLocal
	}
	h.PairFeatures = m.Linear.NumPairs()
	h.HiddenStates = m.Linear.HiddenStates
	h.Trigrams = m.Linear.NumTrigrams()
	h.Transitions = m.Linear.Transitions
	stages, err := m.encodeStages(&h)
	if err != nil {
		return nil, err
	}
	net, err := m.encodeNetwork(&h)
	if err != nil {
		return nil, err
	}
	rr, err := m.encodeRerank(&h)
	if err != nil {
		return nil, err
	}
	h.Version = h.FormatVersion()
	meta, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	size := len(magic) + 4 + 8 + len(meta) + 8
	for _, a := range m.Attrs {
		size += uvarintLen(uint64(len(a))) + len(a)
	}
	size += 8 + 4*len(m.Linear.FeatOff) + 8 + 4*len(m.Linear.FeatLabel) + 8 + 8*len(m.Linear.W) + sha256.Size
	if h.PairFeatures != 0 {
		size += 8 + 4*len(m.Linear.PairOff) + 8 + 4*len(m.Linear.PairKey)
	}
	for _, st := range stages {
		size += 8 + len(st)
	}
	if h.Trigrams != 0 {
		size += 8 + 12*h.Trigrams
	}
	if net != nil {
		size += 8 + len(net)
	}
	if rr != nil {
		size += 8 + len(rr)
	}
	b := make([]byte, 0, size)
	b = append(b, magic[:]...)
	le := binary.LittleEndian
	b = le.AppendUint32(b, uint32(h.Version))
	b = le.AppendUint64(b, uint64(len(meta)))
	b = append(b, meta...)
	b = le.AppendUint64(b, uint64(len(m.Attrs)))
	for _, a := range m.Attrs {
		b = binary.AppendUvarint(b, uint64(len(a)))
		b = append(b, a...)
	}
	b = appendInt32s(b, m.Linear.FeatOff)
	b = appendInt32s(b, m.Linear.FeatLabel)
	if h.PairFeatures != 0 {
		b = appendInt32s(b, m.Linear.PairOff)
		b = appendInt32s(b, m.Linear.PairKey)
	}
	if h.Trigrams != 0 {
		b = appendInt32s(b, trigramInt32s(m.Linear.Trigrams))
	}
	b = le.AppendUint64(b, uint64(len(m.Linear.W)))
	for _, v := range m.Linear.W {
		b = le.AppendUint64(b, math.Float64bits(v))
	}
	for _, st := range stages {
		b = le.AppendUint64(b, uint64(len(st)))
		b = append(b, st...)
	}
	if net != nil {
		b = le.AppendUint64(b, uint64(len(net)))
		b = append(b, net...)
	}
	if rr != nil {
		b = le.AppendUint64(b, uint64(len(rr)))
		b = append(b, rr...)
	}
	sum := sha256.Sum256(b)
	return append(b, sum[:]...), nil
}

// uvarintLen is the length of binary.AppendUvarint's encoding of x.
func uvarintLen(x uint64) int {
	n := 1
	for ; x >= 0x80; x >>= 7 {
		n++
	}
	return n
}

// FormatVersion is the file format a model with this header is written
// in: RerankVersion for a model that carries a reranker,
// TransitionVersion for a model that decodes by transition search,
// NeuralVersion for one with a network, SecondOrderVersion for a
// second-order model, Version for one trained
// in an encoding, locally normalized, with pair features, hidden states or
// stages, PlainVersion for every other.
func (h *Header) FormatVersion() int {
	if h.Rerank != nil {
		return RerankVersion
	}
	if h.Search != nil {
		return TransitionVersion
	}
	if h.Encoder != nil {
		return NeuralVersion
	}
	if h.Trigrams != 0 {
		return SecondOrderVersion
	}
	if h.OutputScheme != "" || h.Normalization != "" || h.PairFeatures != 0 || h.HiddenStates != 0 || len(h.Stages) > 0 {
		return Version
	}
	return PlainVersion
}

// Output is the scheme of the labels the model's tagger emits: the
// corpus's scheme, which is Scheme unless the model was trained in an
// encoding.
func (h *Header) Output() string {
	if h.OutputScheme != "" {
		return h.OutputScheme
	}
	return h.Scheme
}

func appendInt32s(b []byte, xs []int32) []byte {
	le := binary.LittleEndian
	b = le.AppendUint64(b, uint64(len(xs)))
	for _, x := range xs {
		b = le.AppendUint32(b, uint32(x))
	}
	return b
}

// ErrNotModel is returned for files that are not trellis models at all.
var ErrNotModel = errors.New("not a trellis model file")

// Load reads a model file.
func Load(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// reader decodes with bounds checks against the bytes that remain.
type reader struct {
	data []byte
	err  error
}

func (r *reader) take(n uint64, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.data)) {
		r.err = fmt.Errorf("truncated or corrupted model: %s needs %d bytes, %d remain", what, n, len(r.data))
		return nil
	}
	out := r.data[:n]
	r.data = r.data[n:]
	return out
}

func (r *reader) u64(what string) uint64 {
	b := r.take(8, what)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

// count reads a length and checks that count*size bytes can follow.
func (r *reader) count(size uint64, what string) int {
	n := r.u64(what + " length")
	if r.err == nil && n > uint64(len(r.data))/size {
		r.err = fmt.Errorf("truncated or corrupted model: %s claims %d entries, only %d bytes remain", what, n, len(r.data))
	}
	if r.err != nil {
		return 0
	}
	return int(n)
}

// names reads n length-prefixed attribute names. They are substrings of
// one string holding them all (one allocation and copy instead of one per
// name: a model has hundreds of thousands), found by a first pass that
// checks the lengths.
func (r *reader) names(n int) []string {
	end := 0
	for i := range n {
		l, k := binary.Uvarint(r.data[end:])
		if k <= 0 {
			r.err = fmt.Errorf("corrupted model: attribute %d", i)
			return nil
		}
		if l > uint64(len(r.data)-end-k) {
			r.err = fmt.Errorf("truncated or corrupted model: attribute name needs %d bytes, %d remain", l, len(r.data)-end-k)
			return nil
		}
		end += k + int(l)
	}
	block := string(r.take(uint64(end), "attribute names"))
	out := make([]string, n)
	for i, at := 0, 0; i < n; i++ {
		l, k := binary.Uvarint([]byte(block[at:min(at+binary.MaxVarintLen64, len(block))]))
		at += k
		out[i] = block[at : at+int(l)]
		at += int(l)
	}
	return out
}

func (r *reader) int32s(what string) []int32 {
	n := r.count(4, what)
	b := r.take(uint64(n)*4, what)
	if b == nil {
		return nil
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// decodeHeader reads a model file's JSON header into m and checks it
// against the file's format version.
func decodeHeader(m *Model, meta []byte, version uint32) error {
	if err := json.Unmarshal(meta, &m.Header); err != nil {
		return fmt.Errorf("model header: %w", err)
	}
	// The header repeats the format version; the two must agree.
	if m.Version > NewestVersion {
		return fmt.Errorf("model header says format version %d, newer than this trellis supports (%d); use a newer trellis", m.Version, NewestVersion)
	}
	if m.Version != int(version) {
		return fmt.Errorf("corrupted model: header says format version %d, the file says %d", m.Version, version)
	}
	if m.Normalization != "" && m.Normalization != NormalizationLocal {
		return fmt.Errorf("corrupted model: unknown normalization %q", m.Normalization)
	}
	if m.HiddenStates < 0 || m.HiddenStates == 1 || m.HiddenStates > maxHiddenStates {
		return fmt.Errorf("corrupted model: %d hidden states per label", m.HiddenStates)
	}
	if s := m.Search; s != nil && (s.Method != SearchTransition || s.Beam < 1 || s.Beam > maxBeam) {
		return fmt.Errorf("corrupted model: search %q of width %d", s.Method, s.Beam)
	}
	// An encoding, local normalization, pair features, hidden states
	// or stages are what version 2 adds, trigrams what 3 adds, a network
	// what 4 adds: the header's contents imply its version, and the
	// version them.
	if m.FormatVersion() != m.Version {
		return fmt.Errorf("corrupted model: format version %d with output scheme %q, normalization %q, %d pair features, %d hidden states, %d stages and %d trigrams",
			m.Version, m.OutputScheme, m.Normalization, m.PairFeatures, m.HiddenStates, len(m.Stages), m.Trigrams)
	}
	return nil
}

// Decode parses a model file's bytes.
func Decode(data []byte) (*Model, error) {
	if len(data) < len(magic)+4 || !bytes.Equal(data[:len(magic)], magic[:]) {
		return nil, ErrNotModel
	}
	version := binary.LittleEndian.Uint32(data[len(magic):])
	if version < PlainVersion || version > NewestVersion {
		if version > NewestVersion {
			return nil, fmt.Errorf("model file format version %d is newer than this trellis supports (%d); use a newer trellis", version, NewestVersion)
		}
		return nil, fmt.Errorf("model file format version %d is not supported (this trellis reads versions %d to %d)", version, PlainVersion, NewestVersion)
	}
	if len(data) < len(magic)+4+sha256.Size {
		return nil, fmt.Errorf("truncated model file (%s)", plural.Count(len(data), "byte"))
	}
	body, trailer := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], trailer) {
		return nil, fmt.Errorf("model file is corrupted or truncated (checksum mismatch)")
	}
	r := &reader{data: body[len(magic)+4:]}
	metaLen := r.count(1, "header")
	meta := r.take(uint64(metaLen), "header")
	var m Model
	if r.err == nil {
		if err := decodeHeader(&m, meta, version); err != nil {
			return nil, err
		}
	}
	// Each name takes at least one byte (its length), which bounds the count.
	nAttrs := r.count(1, "attributes")
	if r.err == nil {
		m.Attrs = r.names(nAttrs)
	}
	featOff := r.int32s("feature offsets")
	featLabel := r.int32s("feature labels")
	var pairOff, pairKey []int32
	if m.PairFeatures != 0 {
		pairOff = r.int32s("pair feature offsets")
		pairKey = r.int32s("pair features")
		if r.err == nil && (len(pairKey) != m.PairFeatures || m.PairFeatures < 0) {
			return nil, fmt.Errorf("corrupted model: header says %d pair features, the file has %d", m.PairFeatures, len(pairKey))
		}
	}
	var trigrams []lattice.Trigram
	if m.Trigrams != 0 {
		flat := r.int32s("trigrams")
		if r.err == nil && (m.Trigrams < 0 || len(flat) != 3*m.Trigrams) {
			return nil, fmt.Errorf("corrupted model: header says %d trigrams, the file has %d int32s for them", m.Trigrams, len(flat))
		}
		trigrams = int32sTrigrams(flat)
	}
	nW := r.count(8, "weights")
	wb := r.take(uint64(nW)*8, "weights")
	if r.err == nil {
		m.StageModels, r.err = decodeStages(r, m.Stages)
	}
	if r.err == nil && m.Encoder != nil {
		m.Network, r.err = decodeNetwork(r, m.Encoder)
	}
	if r.err == nil && m.Rerank != nil {
		m.Reranker, r.err = decodeRerank(r, m.Rerank)
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.data) != 0 {
		return nil, fmt.Errorf("corrupted model: %d unexpected trailing bytes", len(r.data))
	}
	w := make([]float64, nW)
	for i := range w {
		w[i] = math.Float64frombits(binary.LittleEndian.Uint64(wb[8*i:]))
	}
	m.Linear = &linear.Model{NumLabels: len(m.Labels) * max(m.HiddenStates, 1), FeatOff: featOff, FeatLabel: featLabel,
		PairOff: pairOff, PairKey: pairKey, W: w, Transitions: m.Transitions, Local: m.Normalization == NormalizationLocal,
		HiddenStates: m.HiddenStates, Trigrams: trigrams}
	if err := m.Linear.Validate(); err != nil {
		return nil, fmt.Errorf("corrupted model: %w", err)
	}
	if len(m.Attrs) != m.Linear.NumAttrs() {
		return nil, fmt.Errorf("corrupted model: %d attribute names for %d attributes", len(m.Attrs), m.Linear.NumAttrs())
	}
	if m.Network != nil && m.Network.Labels != m.Linear.NumLabels {
		return nil, fmt.Errorf("corrupted model: the network scores %d labels, the model has %d", m.Network.Labels, m.Linear.NumLabels)
	}
	for g, a := range m.UnknownAttrs {
		if a < -1 || int(a) >= len(m.Attrs) {
			return nil, fmt.Errorf("corrupted model: unknown-value attribute %d of template %d out of range", a, g)
		}
	}
	return &m, nil
}

func sum(b []byte) []byte {
	s := sha256.Sum256(b)
	return s[:]
}

// Plugin is what a model records of one plugin template (see
// framework/plugin.Config, which writes these fields): `trellis tag`
// starts the same binary again and refuses another version.
type Plugin struct {
	Template string          `json:"-"`
	Binary   string          `json:"binary"`
	Path     string          `json:"path"`
	Plugin   string          `json:"plugin"`
	Version  string          `json:"version"`
	SHA256   string          `json:"sha256"`
	Config   json.RawMessage `json:"config"`
}

// PluginTemplateType is the template type of plugin templates.
const PluginTemplateType = "plugin"

// Plugins lists the plugins the model's templates use, in template order.
func (h *Header) Plugins() []Plugin {
	var out []Plugin
	for _, t := range h.Templates {
		if t.Type != PluginTemplateType {
			continue
		}
		var p Plugin
		if err := json.Unmarshal(t.Config, &p); err != nil {
			continue
		}
		p.Template = t.Name
		out = append(out, p)
	}
	return out
}

// StateName names state s of the model's lattice: its label, followed for
// a latent model by "#" and the state's index among its label's states
// ("B-NP#1").
func (m *Model) StateName(s int) string {
	k := m.Linear.States()
	if k == 1 {
		return m.Labels[s]
	}
	return fmt.Sprintf("%s#%d", m.Labels[s/k], s%k)
}

// trigramInt32s flattens trigrams as the file stores them: A, B, C each.
func trigramInt32s(ts []lattice.Trigram) []int32 {
	out := make([]int32, 0, 3*len(ts))
	for _, t := range ts {
		out = append(out, t.A, t.B, t.C)
	}
	return out
}

// int32sTrigrams is trigramInt32s's inverse (linear.Model.Validate checks
// the values).
func int32sTrigrams(flat []int32) []lattice.Trigram {
	out := make([]lattice.Trigram, len(flat)/3)
	for k := range out {
		out[k] = lattice.Trigram{A: flat[3*k], B: flat[3*k+1], C: flat[3*k+2]}
	}
	return out
}
