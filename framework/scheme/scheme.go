package scheme

import (
	"fmt"
	"strings"
)

// Scheme is a label encoding.
type Scheme int

const (
	None  Scheme = iota // labels carry no structure
	IOB1                // I-X inside; B-X only between adjacent chunks of type X
	IOB2                // B-X begins every chunk (also called BIO)
	BIOES               // B-X, I-X, E-X for multi-token chunks, S-X for single tokens
	BMES                // character segmentation: Begin, Middle, End, Single
	BI                  // character segmentation: Begin, Inside
)

var names = [...]string{
	None:  "none",
	IOB1:  "iob1",
	IOB2:  "iob2",
	BIOES: "bioes",
	BMES:  "bmes",
	BI:    "bi",
}

// aliases maps every accepted spelling (lower case) to its scheme.
var aliases = map[string]Scheme{
	"":      None,
	"none":  None,
	"iob1":  IOB1,
	"iob2":  IOB2,
	"bio":   IOB2,
	"bioes": BIOES,
	"iobes": BIOES,
	"bmes":  BMES,
	"bi":    BI,
}

// Parse returns the scheme named s, ignoring case. The empty string means None.
func Parse(s string) (Scheme, error) {
	if sc, ok := aliases[strings.ToLower(strings.TrimSpace(s))]; ok {
		return sc, nil
	}
	return None, fmt.Errorf("scheme: unknown scheme %q (valid: none, iob1, iob2 (bio), bioes (iobes), bmes, bi)", s)
}

func (s Scheme) valid() bool { return s >= None && int(s) < len(names) }

// String returns the canonical lower-case name, which Parse accepts.
func (s Scheme) String() string {
	if !s.valid() {
		return fmt.Sprintf("scheme(%d)", int(s))
	}
	return names[s]
}

// MarshalText encodes the scheme as its canonical name.
func (s Scheme) MarshalText() ([]byte, error) {
	if !s.valid() {
		return nil, fmt.Errorf("scheme: invalid scheme %d", int(s))
	}
	return []byte(names[s]), nil
}

// UnmarshalText accepts any name Parse accepts.
func (s *Scheme) UnmarshalText(b []byte) error {
	sc, err := Parse(string(b))
	if err != nil {
		return err
	}
	*s = sc
	return nil
}

// HasSpans reports whether labels of s encode typed chunks that Chunks can
// decode and that are scored as phrases.
func (s Scheme) HasSpans() bool {
	return s == IOB1 || s == IOB2 || s == BIOES
}

// IsSegmentation reports whether labels of s mark word boundaries in a
// sequence of characters (BMES, BI), scored as words.
func (s Scheme) IsSegmentation() bool {
	return s == BMES || s == BI
}

// Split separates a label into its prefix and type at the first '-':
// "B-NP" gives ("B", "NP"), "O" gives ("O", ""), and a label without '-'
// is all prefix.
func Split(label string) (prefix, typ string) {
	if i := strings.IndexByte(label, '-'); i >= 0 {
		return label[:i], label[i+1:]
	}
	return label, ""
}
