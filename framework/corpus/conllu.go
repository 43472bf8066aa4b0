package corpus

import (
	"bufio"
	"bytes"
	"io"
)

// conlluColumns are the ten CoNLL-U fields, in file order.
var conlluColumns = []string{"id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc"}

// conlluFormat is CoNLL-U. Only integer-ID lines (syntactic words) are
// tokens: multiword-token ranges and empty nodes are not tagged in UD, so
// they ride along in Sentence.Lines like comments.
type conlluFormat struct {
	label int
}

var _ Format = (*conlluFormat)(nil)

func (f *conlluFormat) Name() string      { return NameCoNLLU }
func (f *conlluFormat) Columns() []string { return append([]string(nil), conlluColumns...) }
func (f *conlluFormat) LabelColumn() int  { return f.label }

func (f *conlluFormat) NewReader(r io.Reader, file string, opts ReadOptions) Reader {
	return &conlluReader{lines: newLineReader(r, file)}
}

func (f *conlluFormat) NewWriter(w io.Writer) Writer {
	return &columnWriter{bw: bufio.NewWriterSize(w, writeBufferSize), sep: "\t"}
}

type conlluReader struct {
	lines      *lineReader
	b          blockBuilder
	fields     []int
	pendingDoc bool // "# newdoc" seen in a block that held no words
	err        error
}

var (
	_ Reader   = (*conlluReader)(nil)
	_ Recycler = (*conlluReader)(nil)
)

func (r *conlluReader) Recycle(s *Sentence) { r.b.recycle(s) }

func (r *conlluReader) Read() (*Sentence, error) {
	if r.err != nil {
		return nil, r.err
	}
	for {
		line, err := r.lines.next()
		if err != nil {
			if err == io.EOF && r.b.hasTokens() {
				return r.finish(), nil
			}
			r.err = err
			return nil, err
		}
		if isBlank(line) {
			if r.b.hasTokens() {
				return r.finish(), nil
			}
			// Comments with no words are not a sentence; keep only the
			// document boundary they may carry.
			r.pendingDoc = r.pendingDoc || r.b.docStart
			r.b.reset()
			continue
		}
		if r.b.empty() {
			r.b.docStart, r.pendingDoc = r.pendingDoc, false
		}
		if line[0] == '#' {
			if isNewDoc(line) {
				r.b.docStart = true
			}
			r.b.addLine(line, r.lines.lineNo)
			continue
		}
		if err := r.addLine(line); err != nil {
			r.err = err
			return nil, err
		}
	}
}

func (r *conlluReader) finish() *Sentence {
	return r.b.finish(r.lines.file, len(conlluColumns))
}

func (r *conlluReader) addLine(line []byte) error {
	var n int
	r.fields, n = splitExact(line, '\t', len(conlluColumns), r.fields[:0])
	if n != len(conlluColumns) {
		hint := ""
		if n < len(conlluColumns) && whitespaceFields(line) == len(conlluColumns) {
			hint = "; the columns must be separated by one tab, not spaces"
		}
		e := r.lines.errorf(r.lines.lineNo, "expected 10 tab-separated columns (id form lemma upos xpos feats head deprel deps misc), found %d in %s%s", n, quoteLine(line), hint)
		e.Found = n
		return e
	}
	id := line[r.fields[0]:r.fields[1]]
	switch conlluIDKind(id) {
	case wordID:
		r.b.addToken(line, r.lines.lineNo, r.fields)
	case rangeID, emptyNodeID:
		r.b.addLine(line, r.lines.lineNo)
	default:
		return r.lines.errorf(r.lines.lineNo, "invalid ID %q in the first column of %s (want an integer, a range like 3-4, or a decimal like 5.1)", id, quoteLine(line))
	}
	return nil
}

type idKind int

const (
	badID       idKind = iota
	wordID             // 7
	rangeID            // 3-4: a multiword token
	emptyNodeID        // 5.1: an empty node of the enhanced graph
)

// conlluIDKind classifies a CoNLL-U ID field.
func conlluIDKind(id []byte) idKind {
	digits := func(b []byte) bool {
		if len(b) == 0 {
			return false
		}
		for _, c := range b {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	if digits(id) {
		return wordID
	}
	if i := bytes.IndexAny(id, "-."); i > 0 && digits(id[:i]) && digits(id[i+1:]) {
		if id[i] == '-' {
			return rangeID
		}
		return emptyNodeID
	}
	return badID
}

// isNewDoc reports whether a comment line is "# newdoc", possibly with an
// id ("# newdoc id = ...").
func isNewDoc(line []byte) bool {
	rest := bytes.TrimLeft(line[1:], " \t")
	if !bytes.HasPrefix(rest, []byte("newdoc")) {
		return false
	}
	rest = rest[len("newdoc"):]
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '='
}
