package corpus

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

var charsColumns = []string{"char", "label"}

// Character labels. Word segmentation is tagged per character: B begins
// a multi-character word, M continues it, E ends it, S is a word of one
// character; the BI scheme uses only B (begin) and I (inside).
const (
	labelB = "B"
	labelM = "M"
	labelE = "E"
	labelS = "S"
	labelI = "I"
)

// charsFormat is one sentence per line of whitespace-separated words,
// tagged per character.
type charsFormat struct {
	label int
	bi    bool // BI scheme instead of BMES
}

var _ Format = (*charsFormat)(nil)

func newChars(cfg Config) (*charsFormat, error) {
	f := &charsFormat{}
	switch strings.ToUpper(cfg.CharScheme) {
	case "", "BMES":
	case "BI":
		f.bi = true
	default:
		return nil, fmt.Errorf("unknown char_scheme %q (want BMES or BI)", cfg.CharScheme)
	}
	var err error
	if f.label, err = labelIndex(cfg.Label, charsColumns, false); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *charsFormat) Name() string      { return NameChars }
func (f *charsFormat) Columns() []string { return append([]string(nil), charsColumns...) }
func (f *charsFormat) LabelColumn() int  { return f.label }

func (f *charsFormat) NewReader(r io.Reader, file string, opts ReadOptions) Reader {
	return &charsReader{lines: newLineReader(r, file), bi: f.bi, unlabelled: opts.LabelOptional}
}

func (f *charsFormat) NewWriter(w io.Writer) Writer {
	return &charsWriter{bw: bufio.NewWriterSize(w, writeBufferSize)}
}

type charsReader struct {
	lines      *lineReader
	bi         bool
	unlabelled bool // labels read as "": the text may not be segmented
	err        error
}

var _ Reader = (*charsReader)(nil)

func (r *charsReader) Read() (*Sentence, error) {
	if r.err != nil {
		return nil, r.err
	}
	for {
		line, err := r.lines.next()
		if err != nil {
			r.err = err
			return nil, err
		}
		if !isBlank(line) {
			return r.parse(string(line)), nil
		}
	}
}

func (r *charsReader) parse(text string) *Sentence {
	lineNo := r.lines.lineNo
	// Whitespace is ASCII, one byte a character, so the number of
	// characters in words is the rune count less the whitespace bytes.
	n := utf8.RuneCountInString(text)
	for i := 0; i < len(text); i++ {
		if isSpace(text[i]) {
			n--
		}
	}
	s := &Sentence{
		Tokens:      make([][]string, n),
		Lines:       []string{text},
		File:        r.lines.file,
		Line:        lineNo,
		TokenLineNo: make([]int, n),
	}
	cells := make([]string, 2*n)
	k := 0
	for i := 0; ; {
		start, end := nextField(text, i)
		if start == len(text) {
			break
		}
		i = end
		word := text[start:end]
		length := utf8.RuneCountInString(word)
		pos := 0
		for j, c := range word {
			row := cells[2*k : 2*k+2 : 2*k+2]
			row[0] = word[j : j+utf8.RuneLen(c)]
			if !r.unlabelled {
				row[1] = charLabel(pos, length, r.bi)
			}
			s.Tokens[k] = row
			s.TokenLineNo[k] = lineNo
			k++
			pos++
		}
	}
	return s
}

// charLabel is the label of the pos-th of length characters of a word.
func charLabel(pos, length int, bi bool) string {
	switch {
	case bi && pos == 0:
		return labelB
	case bi:
		return labelI
	case length == 1:
		return labelS
	case pos == 0:
		return labelB
	case pos == length-1:
		return labelE
	}
	return labelM
}

// startsWord reports whether a character labelled cur, after one labelled
// prev, begins a new word. Only B/M/I followed by M/E/I continue a word,
// which repairs ill-formed sequences sensibly: a word begins at B or S, or
// at M/E/I after E/S/nothing; unknown labels (including "") act like S.
func startsWord(prev, cur string) bool {
	inside := prev == labelB || prev == labelM || prev == labelI
	continues := cur == labelM || cur == labelE || cur == labelI
	return !(inside && continues)
}

// WordsFromLabels joins characters into words by their B/M/E/S or B/I
// labels. Ill-formed sequences (a tagger's
// output need not be well formed) are read leniently: a character
// continues the current word only if it is labelled M, E or I and the
// previous one B, M or I. So a word begins at B or S, or at M/E/I after
// E/S or at the start, and ends at E or S or before such a beginning.
// Unknown labels, including "" and a character beyond the end of labels,
// act like S.
func WordsFromLabels(chars []string, labels []string) []string {
	var words []string
	var b strings.Builder
	prev := ""
	for i, c := range chars {
		cur := ""
		if i < len(labels) {
			cur = labels[i]
		}
		if i > 0 && startsWord(prev, cur) {
			words = append(words, b.String())
			b.Reset()
		}
		b.WriteString(c)
		prev = cur
	}
	if len(chars) > 0 {
		words = append(words, b.String())
	}
	return words
}

// charsWriter writes the predicted segmentation, words separated by two
// spaces as in the SIGHAN gold files.
type charsWriter struct {
	bw *bufio.Writer
}

var _ Writer = (*charsWriter)(nil)

func (w *charsWriter) Write(s *Sentence, predicted []string) error {
	if err := checkPredicted(s, predicted); err != nil {
		return err
	}
	for i, row := range s.Tokens {
		if i > 0 && startsWord(predicted[i-1], predicted[i]) {
			w.bw.WriteString("  ")
		}
		if len(row) > 0 {
			w.bw.WriteString(row[0])
		}
	}
	return w.bw.WriteByte('\n')
}

func (w *charsWriter) Flush() error { return w.bw.Flush() }
