// Package lexicon is the builtin "lexicon" template: dictionary-match
// features from a word list, the classic features of word segmentation
// (Low, Ng and Guo 2005; Zhao et al. 2006) for corpora whose tokens are
// characters.
//
//	lexicon "dict" {
//	  column     = "char"
//	  path       = "${var.data_dir}/sighan2005-msr/msr_training_words.utf8"
//	  max_length = 6      # longer matches are reported as 6 (default 6)
//	  separator  = ""     # tokens join with this to spell an entry (default "")
//	  offsets    = [0]    # default [0]
//	}
//
// Every run of consecutive tokens whose values, joined with separator,
// spell an entry of the list is a match. For each token the template
// emits the length (in tokens, capped at max_length) of the longest match
// that begins there (dict[0].b=3), that ends there (dict[0].e=2), and that
// covers it strictly inside (dict[0].m=4), each only when there is one.
// With offsets, the same for the tokens around it (dict[-1].e=2). The
// list is one entry per line (surrounding white space trimmed, empty
// lines skipped; with separator " ", an entry's words are separated by
// single spaces).
//
// The list is read when the spec is decoded (a relative path is relative
// to the spec's folder) and kept, with its SHA-256, in the template's
// settings, so the model file carries it and tags without the original
// file — on another machine, or after the file has changed.
package lexicon

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/builtin/window"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// defaultMaxLength caps match lengths: beyond six characters a longer
// match says little more, and capping keeps the attributes few.
const defaultMaxLength = 6

// Config is the lexicon block. Entries and SHA256 are not written in the
// spec (they have no hcl tags): they are the list as read from Path by
// Prepare, recorded so that the model file is self-contained.
type Config struct {
	Column    string `hcl:"column" json:"column"`
	Path      string `hcl:"path" json:"path"`
	MaxLength *int   `hcl:"max_length,optional" json:"max_length,omitempty"`
	Separator string `hcl:"separator,optional" json:"separator,omitempty"`
	Offsets   []int  `hcl:"offsets,optional" json:"offsets,omitempty"`
	SHA256    string `json:"sha256"`
	// Entries is the list sorted, without duplicates, one per line.
	Entries string `json:"entries,omitempty"`
}

// Template is the lexicon template.
type Template struct{ cfg Config }

var (
	_ feature.FileTemplate  = (*Template)(nil)
	_ spec.ManifestConfiger = (*Template)(nil)
)

// New returns a zero lexicon template.
func New() feature.Template { return &Template{} }

// Config implements feature.Template.
func (t *Template) Config() any { return &t.cfg }

// ManifestConfig implements spec.ManifestConfiger: the settings without
// the entries, which the SHA-256 and their count identify.
func (t *Template) ManifestConfig() any {
	c := t.cfg
	c.Entries = ""
	return struct {
		Config
		EntryCount int `json:"entry_count"`
	}{c, strings.Count(t.cfg.Entries, "\n") + 1}
}

// Prepare implements feature.FileTemplate: it reads the word list at
// Path (relative to dir) into Entries and records its SHA-256, unless
// Entries are set already (a model's settings), and sets the default
// max_length.
func (t *Template) Prepare(dir string) error {
	if t.cfg.MaxLength == nil {
		t.cfg.MaxLength = new(int)
		*t.cfg.MaxLength = defaultMaxLength
	}
	if t.cfg.Entries != "" {
		return nil
	}
	path := t.cfg.Path
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return &feature.FileError{Attr: "path", Summary: "Cannot read the word list", Err: err}
	}
	sum := sha256.Sum256(data)
	t.cfg.SHA256 = hex.EncodeToString(sum[:])
	t.cfg.Entries = strings.Join(parseEntries(string(data)), "\n")
	if t.cfg.Entries == "" {
		return &feature.FileError{Attr: "path", Summary: "Empty word list",
			Err: fmt.Errorf("%s has no entries: a lexicon needs one entry per line", path)}
	}
	return nil
}

// parseEntries returns the list's entries, trimmed, sorted and unique.
func parseEntries(data string) []string {
	var entries []string
	for line := range strings.Lines(data) {
		if e := strings.TrimSpace(line); e != "" {
			entries = append(entries, e)
		}
	}
	slices.Sort(entries)
	return slices.Compact(entries)
}

// Validate implements feature.Template.
func (t *Template) Validate() hcl.Diagnostics {
	var diags hcl.Diagnostics
	bad := func(summary, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail})
	}
	if t.cfg.Column == "" {
		bad("Missing column", "A lexicon block needs the column whose values spell the entries.")
	}
	if m := t.cfg.MaxLength; m != nil && (*m < 1 || *m > 100) {
		bad("Invalid max_length", fmt.Sprintf("max_length is %d; it must be between 1 and 100.", *m))
	}
	return append(diags, window.ValidateOffsets(t.cfg.Offsets)...)
}

// Match kinds: the longest match beginning at, ending at, and covering
// (strictly inside) a token.
const (
	kindBegin = iota
	kindEnd
	kindMiddle
	numKinds
)

var kindNames = [numKinds]string{"b", "e", "m"}

// Flags of a string in the extractor's table: an entry, and a proper
// prefix of an entry (so that a match may still grow).
const (
	isEntry uint8 = 1 << iota
	isPrefix
)

type extractor struct {
	column    int
	offsets   []int
	separator string
	// table holds every entry and every proper prefix of one (cut at
	// rune boundaries); a scan stops at the first string that is neither.
	table map[string]uint8
	// keys[k][kind][n] is "name[offset].kind=n" for offsets[k].
	keys [][numKinds][][]byte
	// longest[kind][i], per sentence, reused.
	longest [numKinds][]int
	buf     []byte
}

var _ feature.ColumnReader = (*extractor)(nil)

// Compile implements feature.Template. The list must have been read
// (Prepare, or a model's settings).
func (t *Template) Compile(name string, cols feature.Columns) (feature.Extractor, error) {
	col, err := cols.Index(t.cfg.Column)
	if err != nil {
		return nil, err
	}
	if t.cfg.Entries == "" {
		return nil, fmt.Errorf("lexicon %q has no entries (its word list %s was not read)", name, t.cfg.Path)
	}
	maxLength := defaultMaxLength
	if t.cfg.MaxLength != nil {
		maxLength = *t.cfg.MaxLength
	}
	x := &extractor{column: col, offsets: t.cfg.Offsets, separator: t.cfg.Separator, table: map[string]uint8{}}
	if len(x.offsets) == 0 {
		x.offsets = []int{0}
	}
	for e := range strings.Lines(t.cfg.Entries) {
		e = strings.TrimSuffix(e, "\n")
		x.table[e] |= isEntry
		for i := range e { // rune boundaries: tokens are whole strings
			if i > 0 {
				x.table[e[:i]] |= isPrefix
			}
		}
	}
	x.keys = make([][numKinds][][]byte, len(x.offsets))
	for k, o := range x.offsets {
		prefix := window.OffsetPrefix(name, o)
		for kind, kn := range kindNames {
			for n := 0; n <= maxLength; n++ {
				x.keys[k][kind] = append(x.keys[k][kind], []byte(prefix+"."+kn+"="+strconv.Itoa(n)))
			}
		}
	}
	return x, nil
}

// ReadColumns implements feature.ColumnReader.
func (x *extractor) ReadColumns() []int { return []int{x.column} }

// Extract implements feature.Extractor.
func (x *extractor) Extract(s *corpus.Sentence, sink feature.Sink) error {
	n := s.Len()
	x.match(s)
	maxLen := len(x.keys[0][0]) - 1
	for i := 0; i < n; i++ {
		for k, o := range x.offsets {
			j := i + o
			if j < 0 || j >= n {
				continue
			}
			for kind := range numKinds {
				if l := x.longest[kind][j]; l > 0 {
					sink.Add(i, x.keys[k][kind][min(l, maxLen)], 1)
				}
			}
		}
	}
	return nil
}

// match fills x.longest for s: every span of tokens that spells an entry
// updates the longest match beginning at its first token, ending at its
// last and covering the tokens between.
func (x *extractor) match(s *corpus.Sentence) {
	n := s.Len()
	for kind := range x.longest {
		x.longest[kind] = slices.Grow(x.longest[kind][:0], n)[:n]
		clear(x.longest[kind])
	}
	begin, end, middle := x.longest[kindBegin], x.longest[kindEnd], x.longest[kindMiddle]
	for i := 0; i < n; i++ {
		x.buf = x.buf[:0]
		for j := i; j < n; j++ {
			if j > i {
				x.buf = append(x.buf, x.separator...)
			}
			x.buf = append(x.buf, s.Tokens[j][x.column]...)
			flags := x.table[string(x.buf)]
			if flags&isEntry != 0 {
				l := j - i + 1
				begin[i] = max(begin[i], l)
				end[j] = max(end[j], l)
				for k := i + 1; k < j; k++ {
					middle[k] = max(middle[k], l)
				}
			}
			if flags&isPrefix == 0 {
				break
			}
		}
	}
}
