// config.go holds Config, the encoder block of a spec: the network's
// sizes, its inputs, and how it is trained.

package neural

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Config is one encoder block. Every field is optional; Resolve fills the
// defaults named here (Lample et al. 2016 and Ma & Hovy 2016, scaled to
// a 2-core machine where they differ).
type Config struct {
	// Column is the word column the encoder reads. Default: the corpus's
	// word column (form, word or char).
	Column string `hcl:"column,optional" json:"column,omitempty"`
	// WordDim is the word embedding width. Default 100. With Vectors it
	// must equal the file's dimension.
	WordDim int `hcl:"word_dim,optional" json:"word_dim"`
	// Lowercase keys the word table by lowercased words; ZeroDigits by
	// words whose digits are all 0 (Lample et al.). Default: false, true.
	// The character encoder still sees the word as written.
	Lowercase  bool  `hcl:"lowercase,optional" json:"lowercase,omitempty"`
	ZeroDigits *bool `hcl:"zero_digits,optional" json:"zero_digits"`
	// MinCount drops training words seen fewer times from the word table
	// (they map to the unknown word). Default 1: every training word.
	MinCount int `hcl:"min_count,optional" json:"min_count"`
	// UnknownReplace is the probability with which a training word seen
	// once is read as the unknown word, so that the unknown word's
	// embedding is trained (Lample et al.: 0.5). Default 0.5; 0 turns it off.
	UnknownReplace *float64 `hcl:"unknown_replace,optional" json:"unknown_replace"`
	// Vectors is a pretrained vectors file (word2vec text or binary,
	// GloVe, fastText .vec) that initialises the word table; its words are
	// added to the table: every training word's, and the first
	// MaxVectors others in file order (default 100000).
	// VectorsFormat is "auto" (the default) or the file's format.
	Vectors       string `hcl:"vectors,optional" json:"vectors,omitempty"`
	VectorsFormat string `hcl:"vectors_format,optional" json:"vectors_format,omitempty"`
	MaxVectors    int    `hcl:"max_vectors,optional" json:"max_vectors,omitempty"`
	// Char is the character encoder: "cnn" (the default; Ma & Hovy),
	// "bilstm" (Lample et al.) or "none". CharDim is the character
	// embedding width (30); CharFilters and CharWindow size the CNN (30,
	// 3), CharHidden the BiLSTM's units per direction (25; set only for
	// "bilstm", so that other encoders' model headers keep their bytes).
	Char        string `hcl:"char,optional" json:"char"`
	CharDim     int    `hcl:"char_dim,optional" json:"char_dim"`
	CharFilters int    `hcl:"char_filters,optional" json:"char_filters"`
	CharWindow  int    `hcl:"char_window,optional" json:"char_window"`
	CharHidden  int    `hcl:"char_hidden,optional" json:"char_hidden,omitempty"`
	// Columns embeds other token columns beside the words (say
	// {pos = 25}): column name → embedding width.
	Columns map[string]int `hcl:"columns,optional" json:"columns,omitempty"`
	// Layers and Hidden size the word-level BiLSTM: 1 layer of 100 units
	// per direction by default.
	Layers int `hcl:"layers,optional" json:"layers"`
	Hidden int `hcl:"hidden,optional" json:"hidden"`
	// Dropout is applied to the token vectors and to the BiLSTM's output
	// while training. Default 0.5.
	Dropout *float64 `hcl:"dropout,optional" json:"dropout"`
	// Transition is "plain" (the default: label transitions are the
	// CRF's own weights) or "conditioned": each bigram into token i also
	// scores w_{y_i,y_{i-1}}·h_i + b, read from the token's BiLSTM output
	// (a CRF whose transitions depend on the input).
	Transition string `hcl:"transition,optional" json:"transition"`

	// Optimizer is "adam" (the default) or "sgd" (with momentum 0.9).
	// LearningRate defaults to 0.001 for Adam and 0.015 for SGD (Ma &
	// Hovy), divided by 1 + Decay·epoch (Decay default 0.05 for SGD, 0 for
	// Adam).
	Optimizer    string   `hcl:"optimizer,optional" json:"optimizer"`
	LearningRate float64  `hcl:"learning_rate,optional" json:"learning_rate"`
	Decay        *float64 `hcl:"decay,optional" json:"decay"`
	// Epochs bounds training (default 30); Patience stops it after that
	// many epochs without a better dev score (default 5; 0: never). The
	// model kept is the best epoch's on dev, the last without dev.
	Epochs   int  `hcl:"epochs,optional" json:"epochs"`
	Patience *int `hcl:"patience,optional" json:"patience"`
	// SparseFirst, in a hybrid, trains the templates' weights alone first
	// (the learner as it trains without an encoder), then the encoder
	// jointly with them from there. Default false: both from the start.
	SparseFirst bool `hcl:"sparse_first,optional" json:"sparse_first,omitempty"`
	// BatchSize is the sentences per step (default 16). Clip rescales a
	// step's gradient to this global L2 norm at most (default 5; 0: never).
	BatchSize int      `hcl:"batch_size,optional" json:"batch_size"`
	Clip      *float64 `hcl:"clip,optional" json:"clip"`
}

// Char encoders and optimizers by name.
const (
	CharCNN     = "cnn"
	CharBiLSTM  = "bilstm"
	CharNone    = "none"
	Adam        = "adam"
	SGD         = "sgd"
	Plain       = "plain"
	Conditioned = "conditioned"
)

// Resolve fills the defaults and checks the settings, each diagnostic at
// the attribute it concerns (attr gives an attribute's range by name).
func (c *Config) Resolve(attr func(name string) *hcl.Range) hcl.Diagnostics {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.WordDim, 100)
	def(&c.MinCount, 1)
	def(&c.CharDim, 30)
	def(&c.CharFilters, 30)
	def(&c.CharWindow, 3)
	def(&c.Layers, 1)
	def(&c.Hidden, 100)
	def(&c.Epochs, 30)
	def(&c.BatchSize, 16)
	def(&c.MaxVectors, 100000)
	c.ZeroDigits = orDefault(c.ZeroDigits, true)
	c.UnknownReplace = orDefault(c.UnknownReplace, 0.5)
	c.Dropout = orDefault(c.Dropout, 0.5)
	c.Patience = orDefault(c.Patience, 5)
	c.Clip = orDefault(c.Clip, 5.0)
	if c.Char == "" {
		c.Char = CharCNN
	}
	if c.Char == CharBiLSTM {
		def(&c.CharHidden, 25)
	}
	if c.Transition == "" {
		c.Transition = Plain
	}
	if c.VectorsFormat == "" {
		c.VectorsFormat = "auto"
	}
	c.Optimizer = strings.ToLower(c.Optimizer)
	if c.Optimizer == "" {
		c.Optimizer = Adam
	}
	if c.LearningRate == 0 {
		c.LearningRate = map[string]float64{Adam: 0.001, SGD: 0.015}[c.Optimizer]
	}
	c.Decay = orDefault(c.Decay, map[string]float64{SGD: 0.05}[c.Optimizer])
	return c.check(attr)
}

func orDefault[T any](p *T, d T) *T {
	if p != nil {
		return p
	}
	return &d
}

// check is Resolve's validation.
func (c *Config) check(attr func(name string) *hcl.Range) hcl.Diagnostics {
	var diags hcl.Diagnostics
	bad := func(name, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid encoder setting",
			Detail: detail, Subject: attr(name)})
	}
	for _, s := range []struct {
		name string
		v    int
	}{{"word_dim", c.WordDim}, {"min_count", c.MinCount}, {"char_dim", c.CharDim}, {"char_filters", c.CharFilters},
		{"char_window", c.CharWindow}, {"max_vectors", c.MaxVectors}, {"layers", c.Layers}, {"hidden", c.Hidden}, {"epochs", c.Epochs}, {"batch_size", c.BatchSize}} {
		if s.v < 1 {
			bad(s.name, fmt.Sprintf("%s must be at least 1, got %d.", s.name, s.v))
		}
	}
	for name, dim := range c.Columns {
		if dim < 1 {
			bad("columns", fmt.Sprintf("The embedding width of column %q must be at least 1, got %d.", name, dim))
		}
	}
	switch {
	case *c.Dropout < 0 || *c.Dropout >= 1:
		bad("dropout", fmt.Sprintf("dropout is a probability in [0, 1), got %v.", *c.Dropout))
	case *c.UnknownReplace < 0 || *c.UnknownReplace > 1:
		bad("unknown_replace", fmt.Sprintf("unknown_replace is a probability in [0, 1], got %v.", *c.UnknownReplace))
	case c.LearningRate <= 0:
		bad("learning_rate", fmt.Sprintf("learning_rate must be positive, got %v.", c.LearningRate))
	case *c.Decay < 0 || *c.Clip < 0 || *c.Patience < 0:
		bad("decay", "decay, clip and patience must not be negative.")
	}
	switch {
	case c.Char != CharCNN && c.Char != CharBiLSTM && c.Char != CharNone:
		bad("char", fmt.Sprintf(`char is "cnn", "bilstm" or "none", got %q.`, c.Char))
	case c.CharHidden != 0 && c.Char != CharBiLSTM:
		bad("char_hidden", fmt.Sprintf(`char_hidden sizes the character BiLSTM: it needs char = "bilstm" (char is %q).`, c.Char))
	case c.CharHidden < 0:
		bad("char_hidden", fmt.Sprintf("char_hidden must be at least 1, got %d.", c.CharHidden))
	}
	if c.Optimizer != Adam && c.Optimizer != SGD {
		bad("optimizer", fmt.Sprintf(`optimizer is "adam" or "sgd", got %q.`, c.Optimizer))
	}
	if c.Transition != Plain && c.Transition != Conditioned {
		bad("transition", fmt.Sprintf(`transition is "plain" (the CRF's own transition weights) or "conditioned" (transitions read from the encoder's states), got %q.`, c.Transition))
	}
	return diags
}
