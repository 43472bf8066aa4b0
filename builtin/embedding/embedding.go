// Package embedding is the builtin "embedding" template: pretrained word
// vectors as plain features for the linear learners, either as one
// real-valued attribute per dimension (Turian, Ratinov and Bengio 2010) or
// as the k-means class of the word's vector (Passos, Kumar and McCallum
// 2014), for the tokens at the given offsets.
//
//	embedding "emb" {
//	  path      = "vectors.txt"  # required; relative to the spec
//	  format    = "auto"         # auto (default), word2vec, word2vec-binary, glove, fasttext
//	  column    = "word"         # default: the corpus's word column
//	  offsets   = [-1, 0, 1]     # default [0]
//	  mode      = "values"       # "values" (default) or "classes"
//	  scale     = "std"          # values: a number (default 1), or "std"
//	  k         = [64, 256]      # classes: a number or a list (default 256)
//	  lowercase = true           # a word missing as written is looked up in lower case
//	  max_words = 100000         # the file's first words kept (default 100000)
//	  seed      = 1              # classes: the k-means++ seed (default 1)
//	  max_iterations = 30        # classes: Lloyd iterations at most (default 30)
//	  sha256    = "…"            # optional: refuse any other file
//	}
//
// The file is read by framework/embeddings (word2vec text or binary,
// GloVe, fastText .vec, gzip-compressed or not). Only its first max_words
// words are kept (files list frequent words first); the whole file is
// still checked and hashed.
//
// # Attributes
//
// With mode = "values", the token at offset o whose word has vector v gets
// "emb[o]:d" with value scale·v[d] for every dimension d (0-based; a
// component that is exactly 0 is left out, as it would add nothing).
// scale = "std" scales so that the kept vectors' values have a standard
// deviation of 0.1, as Turian et al. do; the factor it comes to is
// recorded. Values are for the linear learners (perceptron, pa, arow, crf,
// maxent, memm): the hmm and tnt learners count attributes and ignore
// their values. A dense vector is costly to encode: 100 dimensions at
// three offsets add some 300 attributes per token, which makes feature
// encoding much slower and its memory much larger; offsets = [0] or
// classes cost much less (docs/results.md, "Measurements behind design
// choices in the code").
//
// With mode = "classes", every kept word's vector is clustered by k-means
// for each k (each k a separate clustering), and the token gets
// "emb[o]:k=c" (value 1) for its word's class c under each k. Classes are
// numbered by their first word in file order (class 0 is the first word's).
//
// A word that is not among the kept words (after the lowercase fallback)
// gets no attribute, in either mode. An explicit "unknown" class was not
// chosen: which words lack a vector says mostly that they are rare, which
// the word and shape templates already say, and an attribute that fires on
// every rare word would only compete with them.
//
// The lowercase fallback looks a word missing as written up as
// strings.ToLower(word), first among the words and then as the lowercase
// form of one (the first in file order), as embeddings.Options.Lower does.
//
// # k-means
//
// k-means++ seeding, then Lloyd's iterations until no word changes class
// or the centers' squared moves in an iteration sum to at most 1e-4 of the
// vectors' mean per-dimension variance (scikit-learn's rule), or
// max_iterations iterations (word vectors rarely converge exactly, and
// the objective moves little after the default 30 iterations:
// docs/results.md, "Measurements behind design choices in the code").
// Hamerly's bounds and Elkan's test on the distances between
// centers skip the distances that cannot change an assignment; the result
// is that of plain Lloyd iterations. Distances are Euclidean on the
// vectors as read. The draws come from seed (default 1; each k has its own
// stream, so adding a k does not change the others), so the classes depend
// only on the file and the settings (and, through the rounding of the BLAS
// dot products, on the platform: the model records the classes, so tagging
// never recomputes them). At most the first 200,000 kept words are
// clustered; any further kept word gets the class of its nearest center.
// k-means runs whenever the block is read (trellis run, validate), and
// on a large vectors file it takes seconds of CPU (docs/results.md,
// "Measurements behind design choices in the code"). Memory is that of
// the kept vectors plus k² floats.
//
// # The model file
//
// The model does not need the file at tagging time: Prepare records in
// the template's settings, and so in the model file, what extraction needs
// — the kept words, and their vectors (values) or their classes under each
// k (classes) — with the file's SHA-256, size and dimension. The cost in
// the model file is about 4·dim·4/3 bytes per kept word for values (100,000
// words of 100 dimensions: 53 MB; of 300: 160 MB) and, for classes, the
// words (some 1 MB for 100,000) plus 2.7 bytes per word per k: lower
// max_words for a smaller model. The run's manifest records the settings
// with the file's SHA-256 and size and the number of words, not the data.
package embedding

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/trellis-nlp/trellis/builtin/window"
	"github.com/trellis-nlp/trellis/framework/embeddings"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// The modes.
const (
	ModeValues  = "values"
	ModeClasses = "classes"
)

// Defaults and limits of the settings.
const (
	DefaultMaxWords      = 100000
	MaxMaxWords          = 1000000
	DefaultK             = 256
	MaxK                 = 4096
	DefaultSeed          = 1
	defaultMaxIterations = 30
	maxMaxIterations     = 1000
	// stdTarget is the standard deviation scale = "std" gives the values
	// (Turian et al. 2010).
	stdTarget = 0.1
	// kmeansWords caps the words k-means is fitted on.
	kmeansWords = 200000
)

// Config is the embedding block. The fields without hcl tags are not
// written in the spec: Prepare fills them from the file, so that the model
// file is self-contained.
type Config struct {
	Path          string  `hcl:"path" json:"path"`
	Format        string  `hcl:"format,optional" json:"format,omitempty"`
	Column        string  `hcl:"column,optional" json:"column,omitempty"`
	Offsets       []int   `hcl:"offsets,optional" json:"offsets,omitempty"`
	Mode          string  `hcl:"mode,optional" json:"mode,omitempty"`
	Scale         string  `hcl:"scale,optional" json:"scale,omitempty"`
	Lowercase     bool    `hcl:"lowercase,optional" json:"lowercase,omitempty"`
	MaxWords      int     `hcl:"max_words,optional" json:"max_words,omitempty"`
	Seed          *uint64 `hcl:"seed,optional" json:"seed,omitempty"`
	MaxIterations int     `hcl:"max_iterations,optional" json:"max_iterations,omitempty"`
	SHA256        string  `hcl:"sha256,optional" json:"sha256,omitempty"`
	// KSetting is k as written: a number or a list of numbers. Validate
	// turns it into K.
	KSetting cty.Value `hcl:"k,optional" json:"-"`
	// K is the list of k, increasing (empty: the default).
	K []int `json:"k,omitempty"`

	// Bytes and Dim are the file's size and dimension.
	Bytes int64 `json:"bytes,omitempty"`
	Dim   int   `json:"dim,omitempty"`
	// Factor is the multiplier scale comes to (values).
	Factor float64 `json:"factor,omitempty"`
	// Words are the kept words in file order, one per line.
	Words string `json:"words,omitempty"`
	// Vectors are the kept words' vectors (values): base64 of the
	// little-endian float32 row-major matrix.
	Vectors string `json:"vectors,omitempty"`
	// Classes are, per k, the kept words' classes (classes): base64 of
	// little-endian uint16s.
	Classes []string `json:"classes,omitempty"`
}

// Template is the embedding template.
type Template struct {
	cfg Config
	// tab is what extraction reads, built once from the file or from the
	// recorded settings.
	tab *table
}

var (
	_ feature.FileTemplate  = (*Template)(nil)
	_ spec.ManifestConfiger = (*Template)(nil)
)

// New returns a zero embedding template.
func New() feature.Template { return &Template{} }

// Config implements feature.Template.
func (t *Template) Config() any { return &t.cfg }

// ManifestConfig implements spec.ManifestConfiger: the settings without
// the words, vectors and classes, which the file's SHA-256 and size and
// the number of words identify.
func (t *Template) ManifestConfig() any {
	c := t.cfg
	c.Words, c.Vectors, c.Classes = "", "", nil
	words := 0
	if t.cfg.Words != "" {
		words = strings.Count(t.cfg.Words, "\n") + 1
	}
	return struct {
		Config
		WordCount int `json:"word_count"`
	}{c, words}
}

func (c *Config) mode() string {
	if c.Mode == "" {
		return ModeValues
	}
	return c.Mode
}

func (c *Config) maxWords() int {
	if c.MaxWords == 0 {
		return DefaultMaxWords
	}
	return c.MaxWords
}

// ks returns the k of the classes (nil for values).
func (c *Config) ks() []int {
	switch {
	case c.mode() != ModeClasses:
		return nil
	case len(c.K) == 0:
		return []int{DefaultK}
	}
	return c.K
}

func (c *Config) seed() uint64 {
	if c.Seed == nil {
		return DefaultSeed
	}
	return *c.Seed
}

func (c *Config) maxIterations() int {
	if c.MaxIterations == 0 {
		return defaultMaxIterations
	}
	return c.MaxIterations
}

// Validate implements feature.Template. It also turns k as written into
// the list K.
func (t *Template) Validate() hcl.Diagnostics {
	c := &t.cfg
	diags := window.ValidateOffsets(c.Offsets)
	bad := func(summary, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail})
	}
	if c.Path == "" {
		bad("Missing vectors file", "path must name a word-vector file (word2vec, GloVe or fastText .vec)")
	}
	if _, err := embeddings.ParseFormat(c.Format); err != nil {
		bad("Invalid format", fmt.Sprintf("format must be auto, word2vec, word2vec-binary, glove or fasttext, got %q", c.Format))
	}
	if s := c.SHA256; s != "" {
		if b, err := hex.DecodeString(s); err != nil || len(b) != sha256.Size {
			bad("Invalid sha256", fmt.Sprintf("sha256 must be 64 hexadecimal digits (sha256sum of the vectors file), got %q", s))
		}
	}
	if c.MaxWords < 0 || c.MaxWords > MaxMaxWords {
		bad("Invalid max_words", fmt.Sprintf("max_words must be between 1 and %d, got %d", MaxMaxWords, c.MaxWords))
	}
	switch c.mode() {
	case ModeValues:
		diags = append(diags, c.validateValues()...)
	case ModeClasses:
		diags = append(diags, c.validateClasses()...)
	default:
		bad("Invalid mode", fmt.Sprintf("mode must be %q or %q, got %q", ModeValues, ModeClasses, c.Mode))
	}
	return diags
}

// validateValues checks the settings of mode = "values".
func (c *Config) validateValues() hcl.Diagnostics {
	var diags hcl.Diagnostics
	bad := func(summary, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail})
	}
	if _, err := parseScale(c.Scale); err != nil {
		bad("Invalid scale", err.Error())
	}
	for _, s := range []struct {
		name string
		set  bool
	}{{"k", !c.KSetting.IsNull() || len(c.K) > 0}, {"seed", c.Seed != nil}, {"max_iterations", c.MaxIterations != 0}} {
		if s.set {
			bad("Setting for classes", fmt.Sprintf("%s is a setting of mode = %q, and this block's mode is %q", s.name, ModeClasses, ModeValues))
		}
	}
	return diags
}

// validateClasses checks the settings of mode = "classes" and sets K from
// KSetting.
func (c *Config) validateClasses() hcl.Diagnostics {
	var diags hcl.Diagnostics
	bad := func(summary, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail})
	}
	if c.Scale != "" {
		bad("Setting for values", fmt.Sprintf("scale is a setting of mode = %q, and this block's mode is %q", ModeValues, ModeClasses))
	}
	if n := c.MaxIterations; n < 0 || n > maxMaxIterations {
		bad("Invalid max_iterations", fmt.Sprintf("max_iterations must be between 1 and %d, got %d", maxMaxIterations, n))
	}
	if !c.KSetting.IsNull() {
		ks, err := kList(c.KSetting)
		if err != nil {
			bad("Invalid k", err.Error())
			return diags
		}
		c.K = ks
	}
	for i, k := range c.K {
		if k < 2 || k > MaxK {
			bad("Invalid k", fmt.Sprintf("k must be between 2 and %d, got %d", MaxK, k))
		} else if i > 0 && k <= c.K[i-1] {
			bad("Invalid k", fmt.Sprintf("k must increase, got %d after %d", k, c.K[i-1]))
		}
	}
	return diags
}

// kList reads k as written: a whole number or a list of them.
func kList(v cty.Value) ([]int, error) {
	errKind := fmt.Errorf("k must be a whole number or a list of them (k = 256, k = [64, 256, 1024]), got %s", v.Type().FriendlyName())
	if !v.IsWhollyKnown() {
		return nil, errKind
	}
	var elems []cty.Value
	switch {
	case v.Type() == cty.Number:
		elems = []cty.Value{v}
	case v.CanIterateElements() && !v.Type().IsMapType() && !v.Type().IsObjectType():
		elems = v.AsValueSlice()
	default:
		return nil, errKind
	}
	if len(elems) == 0 {
		return nil, errors.New("k must name at least one number of classes")
	}
	var ks []int
	for _, e := range elems {
		if e.IsNull() || e.Type() != cty.Number {
			return nil, errKind
		}
		f := e.AsBigFloat()
		n, acc := f.Int64()
		if !f.IsInt() || acc != 0 || n < math.MinInt32 || n > math.MaxInt32 {
			return nil, fmt.Errorf("k must be whole numbers, got %s", f.Text('g', 10))
		}
		ks = append(ks, int(n))
	}
	return ks, nil
}

// parseScale returns the factor a scale setting names: 1 for "", 0 for
// "std" (computed from the vectors), else the positive number.
func parseScale(s string) (float64, error) {
	switch s {
	case "":
		return 1, nil
	case "std":
		return 0, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) {
		return 0, fmt.Errorf(`scale must be "std" or a positive number, got %q`, s)
	}
	return f, nil
}

// Prepare implements feature.FileTemplate: the path becomes absolute
// (resolved against dir), and the file is read, pinned by its SHA-256 (a
// sha256 already set must match) and turned into what the model records:
// the kept words and their vectors or classes. Settings that hold these
// already (a model's) are left alone.
func (t *Template) Prepare(dir string) error {
	if t.cfg.Words != "" {
		return nil
	}
	if !filepath.IsAbs(t.cfg.Path) {
		abs, err := filepath.Abs(filepath.Join(dir, t.cfg.Path))
		if err != nil {
			return &feature.FileError{Attr: "path", Summary: "Invalid vectors file path", Err: err}
		}
		t.cfg.Path = abs
	}
	return t.load()
}

// mismatchError is a vectors file whose SHA-256 is not the pinned one.
type mismatchError struct{ path, have, want string }

func (e *mismatchError) Error() string {
	return fmt.Sprintf("vectors file %s has sha256 %s, but the spec pins %s", e.path, e.have, e.want)
}

// load reads the file at Path, checks it against the pin, and records the
// table in the settings. Its errors are *feature.FileError.
func (t *Template) load() error {
	c := &t.cfg
	format, err := embeddings.ParseFormat(c.Format)
	if err != nil {
		return &feature.FileError{Attr: "format", Summary: "Invalid format", Err: err}
	}
	kept, limit := 0, c.maxWords()
	v, err := embeddings.Read(c.Path, embeddings.Options{Format: format, Vocab: func(string) bool {
		kept++
		return kept <= limit
	}})
	if err != nil {
		return readError(err)
	}
	if c.SHA256 != "" && !strings.EqualFold(c.SHA256, v.SHA256) {
		return &feature.FileError{Attr: "sha256", Summary: "Vectors file differs",
			Err: &mismatchError{path: c.Path, have: v.SHA256, want: c.SHA256}}
	}
	tab, err := c.build(v)
	if err != nil {
		return err
	}
	c.SHA256, c.Bytes, c.Dim = v.SHA256, v.Bytes, v.Dim
	c.record(tab)
	t.tab = tab
	return nil
}

// readError places an error of embeddings.Read at path.
func readError(err error) error {
	summary := "Cannot read the vectors file"
	for _, kind := range malformed {
		if errors.Is(err, kind) {
			summary = "Malformed vectors file"
			break
		}
	}
	return &feature.FileError{Attr: "path", Summary: summary, Err: err}
}

// malformed are the errors of a file that is there but not word vectors
// as the format says (the others are I/O errors).
var malformed = []error{
	embeddings.ErrEmpty, embeddings.ErrHeader, embeddings.ErrDim, embeddings.ErrValues, embeddings.ErrNumber,
	embeddings.ErrWord, embeddings.ErrTruncated, embeddings.ErrExtra, embeddings.ErrTooLong, embeddings.ErrFormat,
}
