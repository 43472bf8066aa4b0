package corpus

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/trellis-nlp/trellis/framework/plural"
)

// Config selects and configures a format. It is stored in model files, so
// a model knows how to read the text it is asked to tag.
type Config struct {
	// Name is a format registered in Formats: "conll", "conllu",
	// "slash", "chars" or "crfsuite".
	Name string `json:"name"`

	// Columns names the columns in file order. Required (at least one) for
	// "conll"; ignored by the other formats, whose columns are fixed:
	// conllu "id form lemma upos xpos feats head deprel deps misc",
	// slash "word tag", chars "char label", crfsuite "label attributes"
	// (where "attributes" is every field after the label; see
	// crfsuiteFormat).
	Columns []string `json:"columns,omitempty"`

	// Label names the label column; "" means there is none. For "conllu"
	// the name is matched case-insensitively ("UPOS" works).
	Label string `json:"label,omitempty"`

	// Separator (conll only) is how columns are separated: "" for any run
	// of whitespace (the default), "\t" (or "tab") for exactly one tab,
	// " " (or "space") for exactly one space. With an explicit separator
	// empty fields are possible and the line is split exactly as it is.
	Separator string `json:"separator,omitempty"`

	// CharScheme (chars only) is "BMES" (the default) or "BI", in any case.
	CharScheme string `json:"char_scheme,omitempty"`
}

// Format is one file layout: it names the columns of Sentence.Tokens and
// makes readers and writers.
type Format interface {
	Name() string
	// Columns returns the column names in Sentence.Tokens order.
	Columns() []string
	// LabelColumn returns the index of the label column, -1 if none.
	LabelColumn() int
	// NewReader reads sentences from r; file names r in error messages.
	NewReader(r io.Reader, file string, opts ReadOptions) Reader
	// NewWriter writes sentences with predicted labels to w.
	NewWriter(w io.Writer) Writer
}

// ReadOptions tune a Reader.
type ReadOptions struct {
	// LabelOptional lets token lines omit the label, as in unlabelled text
	// given to a tagger; a missing label reads as "". For conll only the
	// label column can be omitted and only if it is the last column; for
	// slash a token may lack "/TAG"; for chars every label reads as ""
	// (lines are still split into words at whitespace, so unsegmented text
	// is one word per whitespace-separated chunk). conllu ignores it.
	LabelOptional bool
}

// Reader is a stream of sentences.
type Reader interface {
	// Read returns the next sentence, or (nil, io.EOF) at the end. Data
	// errors are *Error values; I/O errors from the underlying reader are
	// returned wrapped with the file name.
	Read() (*Sentence, error)
}

// Recycler is implemented by Readers that can reuse the slices of the
// sentences they returned (Tokens, its rows, Lines, TokenLine,
// TokenLineNo) for the sentences they read next, so that a caller that
// drops each sentence once it is written (a tagger streaming a file)
// does not allocate and collect them over again. Recycle hands s back:
// the caller must no longer use s or those slices; the strings in them
// stay valid (text is never reused). A sentence the reader did not
// return is ignored.
type Recycler interface {
	Recycle(s *Sentence)
}

// Writer writes sentences with one predicted label per token.
//
// For conll and conllu every line of Sentence.Lines is written unchanged,
// token lines with the predicted label appended as a last column, and each
// sentence is followed by a blank line. The label follows a tab in conllu
// and the Separator in conll; with the default whitespace separator it
// follows a tab if the line contains one, else a single space, and the
// line's trailing whitespace is dropped first (it separates nothing, and
// scorers that split at single spaces would see empty columns). CoNLL-U
// comments, ranges and empty nodes pass through without a label; a conll
// "-DOCSTART-" line is written back before the sentence that followed it,
// with the label "O" appended and a blank line after it.
//
// For slash each sentence is one line: every token's original text with
// "/" and the predicted label appended ("the/DT" becomes "the/DT/DT"),
// separated by single spaces.
//
// For chars each sentence is one line holding the predicted segmentation,
// words separated by two spaces, as in the SIGHAN gold files (see
// WordsFromLabels for how ill-formed label sequences are read).
//
// Output is buffered: call Flush when done.
type Writer interface {
	Write(s *Sentence, predicted []string) error
	Flush() error
}

// Error is a data error at a place in a file.
type Error struct {
	File string
	Line int // 1-based
	Msg  string
	// Found is the number of columns of a line that has too few or too
	// many for its format (0 for other errors): one, where several are
	// expected, suggests plain text read as a corpus.
	Found int
}

func (e *Error) Error() string {
	if e.File == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Format names as used in Config.Name.
const (
	NameCoNLL  = "conll"
	NameCoNLLU = "conllu"
	NameSlash  = "slash"
	NameChars  = "chars"
	// NameRawtext is CoNLL-U read as raw text, a document a sequence of
	// characters labelled with tokens and sentence ends (rawtext.go).
	NameRawtext = "rawtext"
	// NameCRFsuite is CRFsuite's attribute format: a label, then
	// tab-separated "name" or "name:value" attributes.
	NameCRFsuite = "crfsuite"
)

// New returns the format cfg describes, or an error saying what is wrong
// with cfg. cfg.Name is looked up in Formats.
func New(cfg Config) (Format, error) {
	formats := Formats()
	want := orList(formats.RegistrationOrder())
	if cfg.Name == "" {
		return nil, fmt.Errorf("no corpus format given (want %s)", want)
	}
	newFormat, ok := formats.Lookup(cfg.Name)
	if !ok {
		if s := formats.Suggest(cfg.Name); s != "" {
			return nil, fmt.Errorf("unknown corpus format %q; did you mean %q? (want %s)", cfg.Name, s, want)
		}
		return nil, fmt.Errorf("unknown corpus format %q (want %s)", cfg.Name, want)
	}
	return newFormat(cfg)
}

// orList renders names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// newCoNLLU makes the conllu format, whose columns are fixed; its label
// is matched case-insensitively ("UPOS" works).
func newCoNLLU(cfg Config) (*conlluFormat, error) {
	label, err := labelIndex(cfg.Label, conlluColumns, true)
	if err != nil {
		return nil, err
	}
	return &conlluFormat{label: label}, nil
}

// newSlash makes the slash format, whose columns are fixed.
func newSlash(cfg Config) (*slashFormat, error) {
	label, err := labelIndex(cfg.Label, slashColumns, false)
	if err != nil {
		return nil, err
	}
	return &slashFormat{label: label}, nil
}

// labelIndex finds the label column's index in columns, -1 for "".
func labelIndex(label string, columns []string, foldCase bool) (int, error) {
	if label == "" {
		return -1, nil
	}
	for i, c := range columns {
		if c == label || foldCase && strings.EqualFold(c, label) {
			return i, nil
		}
	}
	return -1, fmt.Errorf("label column %q is not one of the columns (%s)", label, strings.Join(columns, " "))
}

// ReadAll reads every sentence of the file at path.
func ReadAll(f Format, path string, opts ReadOptions) ([]*Sentence, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err // *fs.PathError names the path
	}
	defer file.Close()
	r := f.NewReader(file, path, opts)
	var sents []*Sentence
	for {
		s, err := r.Read()
		if err == io.EOF {
			return sents, nil
		}
		if err != nil {
			return nil, err
		}
		sents = append(sents, s)
	}
}

// checkPredicted reports a predicted-label slice that does not fit s.
func checkPredicted(s *Sentence, predicted []string) error {
	if len(predicted) != len(s.Tokens) {
		return fmt.Errorf("%s:%d: %s for a sentence of %s", s.File, s.Line, plural.Count(len(predicted), "predicted label"), plural.Count(len(s.Tokens), "token"))
	}
	return nil
}
