// network.go holds Network, a trained (or training) encoder with its
// vocabulary, how a model file records it, and Adder, which adds its
// label scores to a sentence's lattice.

package neural

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/nn"
)

// Header is what a model file records of a network in its JSON header;
// the weights follow in binary (nn.Params.WriteTo).
type Header struct {
	Config Config `json:"config"`
	Vocab  *Vocab `json:"vocab"`
	// WordColumn and Columns name the columns the network reads.
	WordColumn string   `json:"word_column"`
	Columns    []string `json:"columns,omitempty"`
	// Labels is the width of the label scores: the model's labels.
	Labels int `json:"labels"`
	// VectorsSHA256 pins the pretrained vectors file the word table
	// started from, "" without one.
	VectorsSHA256 string `json:"vectors_sha256,omitempty"`
}

// maxSize bounds every size of a network (widths, layers, window), so
// that counting its weights cannot overflow.
const maxSize = 1 << 16

// Network is an encoder with its vocabulary: what turns a sentence's
// cells into label scores.
type Network struct {
	Header
	Enc *nn.Encoder[float32]
}

// New builds the network of h with every weight zero (Init or ReadWeights
// gives it weights).
func New(h Header) (*Network, error) {
	ec, err := h.encoderConfig()
	if err != nil {
		return nil, err
	}
	h.Vocab.index()
	enc, err := nn.NewEncoder[float32](ec)
	if err != nil {
		return nil, err
	}
	return &Network{Header: h, Enc: enc}, nil
}

// NumParams is the number of weights the network of h has, counted
// without building it (a model file's reader checks it against the
// weights that follow).
func (h Header) NumParams() (int64, error) {
	ec, err := h.encoderConfig()
	if err != nil {
		return 0, err
	}
	return ec.NumParams()
}

// encoderConfig is the nn configuration of h's network.
func (h Header) encoderConfig() (nn.EncoderConfig, error) {
	if h.Vocab == nil || len(h.Vocab.Words) == 0 || h.Labels < 1 {
		return nn.EncoderConfig{}, fmt.Errorf("neural: a network needs a vocabulary and labels")
	}
	c := h.Config
	for _, v := range []int{c.WordDim, c.CharDim, c.CharFilters, c.CharWindow, c.CharHidden, c.Hidden, c.Layers} {
		if v > maxSize {
			return nn.EncoderConfig{}, fmt.Errorf("neural: a network size of %d is more than %d", v, maxSize)
		}
	}
	for _, v := range c.Columns {
		if v > maxSize {
			return nn.EncoderConfig{}, fmt.Errorf("neural: a column width of %d is more than %d", v, maxSize)
		}
	}
	ec := nn.EncoderConfig{Words: len(h.Vocab.Words), WordDim: c.WordDim, Hidden: c.Hidden, Layers: c.Layers, Labels: h.Labels}
	if c.Dropout != nil {
		ec.InputDropout, ec.OutputDropout = *c.Dropout, *c.Dropout
	}
	switch c.Char {
	case CharCNN:
		ec.Chars, ec.CharDim, ec.CharFilters, ec.CharWindow = len(h.Vocab.Chars), c.CharDim, c.CharFilters, c.CharWindow
	case CharBiLSTM:
		ec.Chars, ec.CharDim, ec.CharKind, ec.CharHidden = len(h.Vocab.Chars), c.CharDim, nn.CharKindLSTM, c.CharHidden
	}
	if len(h.Columns) != len(h.Vocab.Columns) {
		return ec, fmt.Errorf("neural: %d columns for %d column tables", len(h.Columns), len(h.Vocab.Columns))
	}
	for i, name := range h.Columns {
		ec.Extra = append(ec.Extra, nn.Column{Name: name, Size: len(h.Vocab.Columns[i]), Dim: c.Columns[name]})
	}
	ec.Transitions = c.Transition == Conditioned
	return ec, nil
}

// ColumnNames lists the embedded columns of c in a fixed order (sorted).
func ColumnNames(c *Config) []string {
	names := make([]string, 0, len(c.Columns))
	for n := range c.Columns {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Init draws the weights from seed (nn.Params.Init's fixed order).
func (n *Network) Init(seed uint64) {
	n.Enc.Params.Init(rand.New(rand.NewPCG(seed, 0x656e63)))
}

// Weights returns the weights as a model file stores them.
func (n *Network) Weights() ([]byte, error) {
	var b bytes.Buffer
	_, err := n.Enc.Params.WriteTo(&b)
	return b.Bytes(), err
}

// ReadWeights loads weights written by Weights; they must be all of data.
func (n *Network) ReadWeights(data []byte) error {
	r := bytes.NewReader(data)
	if _, err := n.Enc.Params.ReadFrom(r); err != nil {
		return err
	}
	if r.Len() != 0 {
		return fmt.Errorf("neural: %d bytes after the network's weights", r.Len())
	}
	return nil
}

// Input finds the columns the network reads among a format's columns.
func (h *Header) Input(columns []string) (Input, error) {
	in := Input{Word: slices.Index(columns, h.WordColumn)}
	if in.Word < 0 {
		return in, fmt.Errorf("the network reads column %q, which the format (columns %v) lacks", h.WordColumn, columns)
	}
	for _, name := range h.Columns {
		c := slices.Index(columns, name)
		if c < 0 {
			return in, fmt.Errorf("the network reads column %q, which the format (columns %v) lacks", name, columns)
		}
		in.Columns = append(in.Columns, c)
	}
	return in, nil
}

// Adder adds a network's scores to sentences' lattices at inference (no
// dropout). It is one goroutine's: it keeps the network's workspace, the
// sentence's input IDs and a TransAt buffer, and allocates nothing once
// warm.
type Adder struct {
	net   *Network
	in    Input
	ws    *nn.Workspace[float32]
	enc   Encoded
	trans []float64
}

// NewAdder returns an Adder of n for sentences with the given columns.
func (n *Network) NewAdder(columns []string) (*Adder, error) {
	in, err := n.Input(columns)
	if err != nil {
		return nil, err
	}
	return &Adder{net: n, in: in, ws: n.Enc.NewWorkspace()}, nil
}

// Add adds the network's scores of s to sc, the lattice of s (see
// AddScores).
func (a *Adder) Add(sc *lattice.Scores, s *corpus.Sentence) error {
	if s.Len() == 0 {
		return nil
	}
	a.net.Vocab.Encode(&a.enc, s, a.in)
	scores, err := a.ws.Forward(&a.enc.Sentence, nil)
	if err != nil {
		return err
	}
	AddScores(sc, scores, a.ws.TransScores(), &a.trans)
	return nil
}

// AddScores adds a network's scores to sc: scores, an [N][L] matrix of
// label scores, to sc.State; trans, when not nil, an [N][L·L] matrix of
// bigram scores (row 0 unused), to sc.TransAt. A lattice without
// per-position transitions gets *buf as its TransAt (grown to (N-1)·L·L
// and zeroed first); sc.TransAtExp is dropped, as the sums no longer
// match it.
func AddScores(sc *lattice.Scores, scores, trans []float32, buf *[]float64) {
	for k, v := range scores {
		sc.State[k] += float64(v)
	}
	if trans == nil || sc.N < 2 {
		return
	}
	ll := sc.L * sc.L
	n := (sc.N - 1) * ll
	if sc.TransAt == nil {
		if cap(*buf) < n {
			*buf = make([]float64, n)
		}
		sc.TransAt = (*buf)[:n]
		clear(sc.TransAt)
	}
	sc.TransAtExp = nil
	for k, v := range trans[ll : ll+n] {
		sc.TransAt[k] += float64(v)
	}
}
