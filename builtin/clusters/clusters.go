// Package clusters is the builtin "clusters" template: prefixes of a
// word's bit string in a Brown cluster file (`trellis clusters` writes
// one; so does Liang's wcluster), for the tokens at the given offsets.
//
//	clusters "bc" {
//	  column   = "word"
//	  path     = "${var.clusters}"   # relative to the spec
//	  prefixes = [4, 6, 10, 20]      # default
//	  offsets  = [-1, 0, 1]          # default [0]
//	  sha256   = "…"                 # optional: refuse any other file
//	  case_fallback = false          # look a missing word up as Title, then lower case
//	}
//
// A token at offset o whose word has bit string p gets "bc[o]:n=p[:n]" for
// each n in prefixes; a bit string shorter than n gives the whole string,
// once (at the first such n). A word not in the file gets nothing.
//
// The model pins the file: the block's path is made absolute and the
// file's SHA-256 recorded in the template's config (the model file keeps
// both), and tagging with the model reads that path and refuses a file
// whose SHA-256 differs, so a model never tags with clusters other than
// those it was trained with. The file is not copied into the model.
package clusters

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/builtin/window"
	brown "github.com/trellis-nlp/trellis/framework/clusters"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
)

// Config is a clusters block. SHA256, when the spec leaves it out, is
// filled in from the file, so the model records it.
type Config struct {
	Column   string `hcl:"column" json:"column"`
	Path     string `hcl:"path" json:"path"`
	SHA256   string `hcl:"sha256,optional" json:"sha256,omitempty"`
	Offsets  []int  `hcl:"offsets,optional" json:"offsets,omitempty"`
	Prefixes []int  `hcl:"prefixes,optional" json:"prefixes,omitempty"`
	// CaseFallback looks a word that is not in the file up again as
	// Title case ("JAPAN" as "Japan") and then in lower case, for
	// headlines in capitals and sentence-initial words.
	CaseFallback bool `hcl:"case_fallback,optional" json:"case_fallback,omitempty"`
}

// Template is the clusters template.
type Template struct {
	cfg Config
	// paths is the file's word → bit string map, read once.
	paths map[string]string
}

var _ feature.FileTemplate = (*Template)(nil)

// New returns a zero clusters template.
func New() feature.Template { return &Template{} }

// Config implements feature.Template.
func (t *Template) Config() any { return &t.cfg }

// DefaultPrefixes are Ratinov and Roth's (2009) prefix lengths.
var DefaultPrefixes = []int{4, 6, 10, 20}

func (t *Template) prefixes() []int {
	if len(t.cfg.Prefixes) == 0 {
		return DefaultPrefixes
	}
	return t.cfg.Prefixes
}

// Prepare implements feature.FileTemplate: the path becomes absolute
// (resolved against dir) and the file is read and pinned by its SHA-256
// (a sha256 already set must match).
func (t *Template) Prepare(dir string) error {
	if t.cfg.Path != "" && !filepath.IsAbs(t.cfg.Path) {
		abs, err := filepath.Abs(filepath.Join(dir, t.cfg.Path))
		if err != nil {
			return &feature.FileError{Attr: "path", Summary: "Invalid cluster file path", Err: err}
		}
		t.cfg.Path = abs
	}
	err := t.load()
	var mismatch *mismatchError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &mismatch):
		return &feature.FileError{Attr: "sha256", Summary: "Cluster file differs", Err: err}
	case errors.Is(err, fs.ErrNotExist):
		err = fmt.Errorf("%w (`trellis clusters TEXT... --out FILE` builds one)", err)
	}
	return &feature.FileError{Attr: "path", Summary: "Cannot read the cluster file", Err: err}
}

// Validate implements feature.Template.
func (t *Template) Validate() hcl.Diagnostics {
	diags := window.ValidateOffsets(t.cfg.Offsets)
	invalid := func(summary, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail})
	}
	if t.cfg.Path == "" {
		invalid("Missing cluster file", "path must name a cluster file (bitstring<TAB>word<TAB>count lines)")
	}
	if s := t.cfg.SHA256; s != "" {
		if b, err := hex.DecodeString(s); err != nil || len(b) != sha256.Size {
			invalid("Invalid sha256", fmt.Sprintf("sha256 must be 64 hexadecimal digits (sha256sum of the cluster file), got %q", s))
		}
	}
	for k, n := range t.cfg.Prefixes {
		if n < 1 || n > 1000 {
			invalid("Invalid prefix length", fmt.Sprintf("prefixes must be between 1 and 1000, got %d", n))
		} else if k > 0 && n <= t.cfg.Prefixes[k-1] {
			invalid("Invalid prefix lengths", fmt.Sprintf("prefixes must increase, got %d after %d", n, t.cfg.Prefixes[k-1]))
		}
	}
	return diags
}

// mismatchError is a cluster file whose SHA-256 is not the pinned one.
type mismatchError struct{ path, have, want string }

func (e *mismatchError) Error() string {
	return fmt.Sprintf("cluster file %s has sha256 %s, but the spec or model pins %s: it is not the file the model was trained with", e.path, e.have, e.want)
}

// load reads the file once, checks it against the pin and records the
// pin if there was none.
func (t *Template) load() error {
	if t.paths != nil {
		return nil
	}
	data, err := os.ReadFile(t.cfg.Path)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	have := hex.EncodeToString(sum[:])
	if t.cfg.SHA256 != "" && !strings.EqualFold(t.cfg.SHA256, have) {
		return &mismatchError{path: t.cfg.Path, have: have, want: t.cfg.SHA256}
	}
	paths, err := brown.Read(t.cfg.Path, bytes.NewReader(data))
	if err != nil {
		return err
	}
	t.cfg.SHA256, t.paths = have, paths
	return nil
}

type extractor struct {
	*window.Bound
	paths    map[string]string
	prefixes []int
	fallback bool
	// caseBuf holds a word's other cases for the fallback lookups.
	caseBuf []byte
	// keys[k][l] is "name[offset]:n=" for offset k and prefix length l.
	keys [][][]byte
}

var _ feature.ColumnReader = (*extractor)(nil)

// Compile implements feature.Template. It reads the cluster file (once
// per template), refusing one whose SHA-256 is not the pinned one.
func (t *Template) Compile(name string, cols feature.Columns) (feature.Extractor, error) {
	if err := t.load(); err != nil {
		return nil, err
	}
	b, err := (&window.Config{Column: t.cfg.Column, Offsets: t.cfg.Offsets}).Bind(name, cols)
	if err != nil {
		return nil, err
	}
	x := &extractor{Bound: b, paths: t.paths, prefixes: t.prefixes(), fallback: t.cfg.CaseFallback}
	x.keys = b.NumberedPrefixes(name, x.prefixes)
	return x, nil
}

func (x *extractor) Extract(s *corpus.Sentence, sink feature.Sink) error {
	n := s.Len()
	for i := 0; i < n; i++ {
		for k, o := range x.Offsets {
			j := i + o
			if j < 0 || j >= n {
				continue
			}
			path, ok := x.lookup(s.Tokens[j][x.Column])
			if !ok {
				continue
			}
			for l, length := range x.prefixes {
				p := path
				if length < len(p) {
					p = p[:length]
				}
				key := append(append(x.Buf[:0], x.keys[k][l]...), p...)
				sink.Add(i, key, 1)
				x.Buf = key
				if length >= len(path) {
					break // the whole string, once
				}
			}
		}
	}
	return nil
}

// lookup finds a word's bit string, with the case fallback if asked for.
// The map is indexed with string(bytes), which does not allocate.
func (x *extractor) lookup(w string) (string, bool) {
	if p, ok := x.paths[w]; ok || !x.fallback {
		return p, ok
	}
	buf := window.AppendLower(x.caseBuf[:0], w)
	n := len(buf)
	buf = append(buf, buf...)
	x.caseBuf = buf
	lower, title := buf[:n], buf[n:]
	r, size := utf8.DecodeRune(title)
	if up := unicode.ToUpper(r); up != r && utf8.RuneLen(up) == size {
		utf8.EncodeRune(title, up)
		if p, ok := x.paths[string(title)]; ok {
			return p, true
		}
	}
	p, ok := x.paths[string(lower)]
	return p, ok
}
