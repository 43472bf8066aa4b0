package corpus

// This file holds the rawtext format: a document's raw text as a sequence
// of characters, labelled with its tokens and sentence ends, read from
// CoNLL-U ("# text" beside the tokens). It is what a tokenizer and
// sentence splitter is trained on, as a labeling problem over characters
// (Evang et al. 2013; UDPipe's tokenizer).

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The rawtext columns: the character (white space of any kind reads as
// one space), its class (textClass), the white-space-delimited chunk that
// holds it (" " for white space), and the label.
var rawtextColumns = []string{"char", "class", "chunk", "label"}

// textClasses are the character classes of the class column: a
// punctuation mark or symbol is its own class.
var textClasses = [...]string{"A", "a", "0", " ", "L"}

// textClass is r's class: "A" an upper-case letter, "a" lower case, "0" a
// digit, " " white space, "L" any other letter or mark (no case, as in
// CJK), else "" (the caller uses the character itself).
func textClass(r rune) string {
	switch {
	case unicode.IsUpper(r) || unicode.IsTitle(r):
		return textClasses[0]
	case unicode.IsLower(r):
		return textClasses[1]
	case unicode.IsDigit(r):
		return textClasses[2]
	case IsTextSpace(r):
		return textClasses[3]
	case unicode.IsLetter(r) || unicode.IsMark(r):
		return textClasses[4]
	}
	return ""
}

// Rawtext labels, a BIO encoding of two span types: W is a token, F is a
// token that ends its sentence; white space and anything between tokens
// is O.
const (
	TextBeginToken  = "B-W"
	TextInsideToken = "I-W"
	TextBeginFinal  = "B-F"
	TextInsideFinal = "I-F"
	TextOutside     = "O"
)

// TextSpan is a stretch of a text in characters (runes, not bytes):
// [Start, End).
type TextSpan struct {
	Start, End int
}

// TextDocument is a document's raw text and its gold tokenization: the
// "# text" of its sentences joined by single spaces, the tokens (the
// syntactic words, where a multiword token's words spell it; else the
// multiword token) and the sentences, each from its first token's start
// to its last token's end.
type TextDocument struct {
	Text      string
	Tokens    []TextSpan
	Sentences []TextSpan
	File      string
	Line      int // the first sentence's first line
	// TokenLineNo[i] is the file line of token i's line.
	TokenLineNo []int
}

// TextDocumentReader reads the documents of a CoNLL-U file, a document
// from one "# newdoc" to the next (a file without them is one document).
type TextDocumentReader struct {
	r       *conlluReader
	pending *Sentence
	err     error
}

// NewTextDocumentReader reads the CoNLL-U text of r; file names it in
// errors.
func NewTextDocumentReader(r io.Reader, file string) *TextDocumentReader {
	return &TextDocumentReader{r: &conlluReader{lines: newLineReader(r, file)}}
}

// Read returns the next document, or (nil, io.EOF) after the last.
func (dr *TextDocumentReader) Read() (*TextDocument, error) {
	if dr.err != nil {
		return nil, dr.err
	}
	var doc *TextDocument
	var text strings.Builder
	offset := 0 // the runes in text
	for {
		s := dr.pending
		dr.pending = nil
		if s == nil {
			var err error
			if s, err = dr.r.Read(); err != nil {
				if err == io.EOF && doc != nil {
					dr.err = err
					break
				}
				dr.err = err
				return nil, err
			}
		}
		if doc != nil && s.DocStart {
			dr.pending = s
			break
		}
		if doc == nil {
			doc = &TextDocument{File: s.File, Line: s.Line}
		} else {
			text.WriteByte(' ')
			offset++
		}
		n, err := alignSentence(s, doc, offset)
		if err != nil {
			dr.err = err
			return nil, err
		}
		text.WriteString(sentenceText(s))
		offset += n
	}
	doc.Text = text.String()
	return doc, nil
}

// sentenceText is the value of s's "# text" comment, "" if it has none.
func sentenceText(s *Sentence) string {
	for _, l := range s.Lines {
		if !strings.HasPrefix(l, "#") {
			break
		}
		rest := strings.TrimLeft(l[1:], " \t")
		if v, ok := strings.CutPrefix(rest, "text"); ok {
			if v, ok = strings.CutPrefix(strings.TrimLeft(v, " \t"), "="); ok {
				return strings.TrimPrefix(v, " ")
			}
		}
	}
	return ""
}

// alignSentence finds s's tokens in its "# text", which starts at rune
// offset in doc's text, and appends them and the sentence to doc. It
// returns the text's length in runes.
func alignSentence(s *Sentence, doc *TextDocument, offset int) (int, error) {
	text := []rune(sentenceText(s))
	if len(text) == 0 {
		return 0, &Error{File: s.File, Line: s.Line, Msg: "the sentence has no \"# text = ...\" comment: the rawtext format reads each sentence's raw text from it"}
	}
	a := aligner{text: text, s: s}
	first := len(doc.Tokens)
	for li := 0; li < len(s.Lines); li++ {
		line := s.Lines[li]
		if strings.HasPrefix(line, "#") {
			continue
		}
		id, rest, _ := strings.Cut(line, "\t")
		form, _, _ := strings.Cut(rest, "\t")
		lo, hi, isRange := strings.Cut(id, "-")
		if strings.Contains(id, ".") {
			continue // an empty node has no text
		}
		words := []string{form}
		if isRange {
			from, _ := strconv.Atoi(lo)
			to, _ := strconv.Atoi(hi)
			words = a.wordForms(s, li, to-from+1)
		}
		spans, err := a.match(form, words, s.Line+li)
		if err != nil {
			return 0, err
		}
		for j, sp := range spans {
			doc.Tokens = append(doc.Tokens, TextSpan{offset + sp.Start, offset + sp.End})
			line := a.lineNo(li) // a token's line, or a multiword token's
			if len(spans) > 1 {
				line += 1 + j // a word's line, after its range's
			}
			doc.TokenLineNo = append(doc.TokenLineNo, line)
		}
		if isRange {
			li += len(words) // the words spelled by the range
		}
	}
	if len(doc.Tokens) > first {
		doc.Sentences = append(doc.Sentences, TextSpan{doc.Tokens[first].Start, doc.Tokens[len(doc.Tokens)-1].End})
	}
	return len(text), nil
}

// aligner walks a sentence's text token by token.
type aligner struct {
	text []rune
	pos  int
	s    *Sentence
}

// wordForms returns the forms of the n word lines after Lines[li].
func (a *aligner) wordForms(s *Sentence, li, n int) []string {
	var forms []string
	for k := li + 1; k < len(s.Lines) && len(forms) < n; k++ {
		_, rest, _ := strings.Cut(s.Lines[k], "\t")
		form, _, _ := strings.Cut(rest, "\t")
		forms = append(forms, form)
	}
	return forms
}

// lineNo is the file line of Lines[li]: the sentence's first line plus
// li, since a sentence's lines are consecutive in its file.
func (a *aligner) lineNo(li int) int { return a.s.Line + li }

// match finds surface (a token or a multiword token spelled by words) at
// the next non-space position of the text and returns the spans of its
// words, or the surface's span alone where the words do not spell it
// ("del" = "de" + "el").
func (a *aligner) match(surface string, words []string, lineNo int) ([]TextSpan, error) {
	for a.pos < len(a.text) && unicode.IsSpace(a.text[a.pos]) {
		a.pos++
	}
	start := a.pos
	for _, r := range surface {
		if a.pos >= len(a.text) || a.text[a.pos] != r {
			return nil, &Error{File: a.s.File, Line: lineNo, Msg: fmt.Sprintf(
				"the token %q is not in the sentence's \"# text\" where it should be, at character %d: %q",
				surface, start+1, string(a.text[start:min(len(a.text), start+len([]rune(surface))+10)]))}
		}
		a.pos++
	}
	if strings.Join(words, "") != surface || len(words) < 2 {
		return []TextSpan{{start, a.pos}}, nil
	}
	spans := make([]TextSpan, len(words))
	p := start
	for i, w := range words {
		n := utf8.RuneCountInString(w)
		spans[i] = TextSpan{p, p + n}
		p += n
	}
	return spans, nil
}

// IsTextSpace reports whether r separates chunks of raw text.
func IsTextSpace(r rune) bool { return unicode.IsSpace(r) }

// TextRows fills the char, class and chunk columns (0, 1 and 2) for every
// character of text, in rows of ncol cells. It reuses rows and cells when
// they are long enough and returns them; the column strings share memory
// with text or are constants, so nothing is allocated per character.
func TextRows(text string, ncol int, rows [][]string, cells []string) ([][]string, []string) {
	n := utf8.RuneCountInString(text)
	rows, cells = rows[:0], cells[:0]
	if cap(cells) < n*ncol {
		cells = make([]string, 0, n*ncol)
	}
	chunk, chunkEnd := " ", 0 // the chunk of the byte offsets before chunkEnd
	for b, r := range text {
		k := len(cells)
		cells = cells[:k+ncol]
		clear(cells[k:])
		row := cells[k : k+ncol : k+ncol]
		if IsTextSpace(r) {
			row[0], row[1], row[2] = " ", " ", " "
		} else {
			if b >= chunkEnd {
				chunkEnd = len(text)
				if e := strings.IndexFunc(text[b:], IsTextSpace); e >= 0 {
					chunkEnd = b + e
				}
				chunk = text[b:chunkEnd]
			}
			row[0], row[2] = text[b:b+utf8.RuneLen(r)], chunk
			if row[1] = textClass(r); row[1] == "" {
				row[1] = row[0]
			}
		}
		rows = append(rows, row)
	}
	return rows, cells
}

// TextLabels returns the rawtext label of each of n characters given
// the tokens and sentences.
func TextLabels(n int, tokens, sentences []TextSpan) []string {
	labels := make([]string, n)
	for i := range labels {
		labels[i] = TextOutside
	}
	ends := make(map[int]bool, len(sentences))
	for _, s := range sentences {
		ends[s.End] = true
	}
	for _, t := range tokens {
		begin, inside := TextBeginToken, TextInsideToken
		if ends[t.End] {
			begin, inside = TextBeginFinal, TextInsideFinal
		}
		for i := t.Start; i < t.End && i < n; i++ {
			labels[i] = inside
		}
		if t.Start < n {
			labels[t.Start] = begin
		}
	}
	return labels
}

// TextSpans reads tokens and sentences back from rawtext labels. It is
// lenient, as a tagger's output need not be well formed: an I label
// after O (or at the start) begins a token, and a token whose type
// changes mid-way is cut there. A sentence ends after a token of type F
// and at the end of the labels; it starts at its first token. Unknown
// labels read as O.
func TextSpans(labels []string) (tokens, sentences []TextSpan) {
	start, sentStart, final := -1, -1, false
	closeToken := func(end int) {
		if start < 0 {
			return
		}
		tokens = append(tokens, TextSpan{start, end})
		if sentStart < 0 {
			sentStart = start
		}
		if final {
			sentences = append(sentences, TextSpan{sentStart, end})
			sentStart = -1
		}
		start = -1
	}
	for i, l := range labels {
		switch l {
		case TextBeginToken, TextBeginFinal:
			closeToken(i)
			start, final = i, l == TextBeginFinal
		case TextInsideToken, TextInsideFinal:
			if start >= 0 && final != (l == TextInsideFinal) {
				closeToken(i)
			}
			if start < 0 {
				start, final = i, l == TextInsideFinal
			}
		default:
			closeToken(i)
		}
	}
	closeToken(len(labels))
	if sentStart >= 0 {
		sentences = append(sentences, TextSpan{sentStart, tokens[len(tokens)-1].End})
	}
	return tokens, sentences
}

// rawtextFormat reads CoNLL-U as raw text labelled per character, one
// document a sequence, and writes a predicted tokenization as CoNLL-U.
type rawtextFormat struct {
	label int
}

var _ Format = (*rawtextFormat)(nil)

func newRawtext(cfg Config) (*rawtextFormat, error) {
	label, err := labelIndex(cfg.Label, rawtextColumns, false)
	if err != nil {
		return nil, err
	}
	return &rawtextFormat{label: label}, nil
}

func (f *rawtextFormat) Name() string      { return NameRawtext }
func (f *rawtextFormat) Columns() []string { return append([]string(nil), rawtextColumns...) }
func (f *rawtextFormat) LabelColumn() int  { return f.label }

func (f *rawtextFormat) NewReader(r io.Reader, file string, opts ReadOptions) Reader {
	return &rawtextReader{docs: NewTextDocumentReader(r, file)}
}

func (f *rawtextFormat) NewWriter(w io.Writer) Writer {
	return &rawtextWriter{bw: bufio.NewWriterSize(w, writeBufferSize)}
}

type rawtextReader struct {
	docs *TextDocumentReader
}

var _ Reader = (*rawtextReader)(nil)

// Read returns the next document as a sentence of characters.
func (r *rawtextReader) Read() (*Sentence, error) {
	doc, err := r.docs.Read()
	if err != nil {
		return nil, err
	}
	return doc.Sentence(), nil
}

// Sentence returns the document as a rawtext sentence: a row of char,
// chunk and gold label per character.
func (doc *TextDocument) Sentence() *Sentence {
	rows, _ := TextRows(doc.Text, len(rawtextColumns), nil, nil)
	labels := TextLabels(len(rows), doc.Tokens, doc.Sentences)
	lineNo := make([]int, len(rows))
	line, k := doc.Line, 0
	for i := range rows {
		rows[i][3] = labels[i]
		for k < len(doc.Tokens) && doc.Tokens[k].Start <= i {
			line = doc.TokenLineNo[k]
			k++
		}
		lineNo[i] = line
	}
	return &Sentence{
		Tokens:      rows,
		Lines:       []string{doc.Text},
		File:        doc.File,
		Line:        doc.Line,
		TokenLineNo: lineNo,
		DocStart:    true,
	}
}

// rawtextWriter writes the tokenization that the predicted labels give,
// as CoNLL-U with the ID, FORM and MISC (SpaceAfter=No) columns filled:
// a "# text" comment and a line per token for every sentence.
type rawtextWriter struct {
	bw *bufio.Writer
}

var _ Writer = (*rawtextWriter)(nil)

func (w *rawtextWriter) Write(s *Sentence, predicted []string) error {
	if err := checkPredicted(s, predicted); err != nil {
		return err
	}
	text := make([]rune, 0, len(s.Tokens))
	for _, row := range s.Tokens {
		r, _ := utf8.DecodeRuneInString(row[0])
		text = append(text, r)
	}
	if len(s.Lines) == 1 && utf8.RuneCountInString(s.Lines[0]) == len(text) {
		text = []rune(s.Lines[0]) // the original white space
	}
	tokens, sentences := TextSpans(predicted)
	k := 0
	for _, sent := range sentences {
		fmt.Fprintf(w.bw, "# text = %s\n", string(text[sent.Start:sent.End]))
		for id := 1; k < len(tokens) && tokens[k].End <= sent.End; id++ {
			t := tokens[k]
			misc := "_"
			if t.End < len(text) && !IsTextSpace(text[t.End]) && t.End < sent.End {
				misc = "SpaceAfter=No"
			}
			fmt.Fprintf(w.bw, "%d\t%s\t_\t_\t_\t_\t_\t_\t_\t%s\n", id, string(text[t.Start:t.End]), misc)
			k++
		}
		w.bw.WriteByte('\n')
	}
	return nil
}

func (w *rawtextWriter) Flush() error { return w.bw.Flush() }
