package tokenize

// This file holds the readers of raw text: Paragraphs cuts a stream into
// paragraphs, Reader tokenizes it a paragraph at a time, and Sentences
// hands its sentences to a tagger as corpus sentences.

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// Reader reads raw text and tokenizes it a paragraph at a time (see
// Paragraphs), so a stream of any length is read in bounded memory.
// Offsets count from the start of the stream.
type Reader struct {
	paras *Paragraphs
	tok   Tokenizer
	queue []Sentence
	lines []int // lines[k]: the file line where queue[k] starts
	err   error
}

// NewReader tokenizes r with tok; file names r in errors.
func NewReader(r io.Reader, file string, tok Tokenizer) *Reader {
	return &Reader{paras: NewParagraphs(r, file), tok: tok}
}

// Read returns the next sentence and the file line it starts on, or
// io.EOF after the last.
func (r *Reader) Read() (Sentence, int, error) {
	for len(r.queue) == 0 {
		if r.err != nil {
			return Sentence{}, 0, r.err
		}
		p, err := r.paras.Read()
		if err != nil {
			r.err = err
			continue
		}
		r.queue, r.lines, r.err = p.Tokenize(r.tok)
	}
	s, line := r.queue[0], r.lines[0]
	r.queue, r.lines = r.queue[1:], r.lines[1:]
	return s, line, nil
}

// Paragraph is a piece of raw text that a Reader tokenizes at once: its
// lines up to a blank line (included), or up to MaxParagraph characters
// cut at a line end. Base is the characters of the stream before it, Line
// the stream's line it starts on (1-based); File names the stream.
type Paragraph struct {
	File       string
	Text       string
	Base, Line int
}

// Paragraphs cuts a stream of raw text into the paragraphs a Reader
// tokenizes one at a time. Tokenizing each apart (Paragraph.Tokenize)
// gives what the Reader gives, so paragraphs can be tokenized anywhere,
// in any order (trellis-beam spreads them over workers).
type Paragraphs struct {
	br     *bufio.Reader
	file   string
	base   int // the characters before the paragraph read next
	lineNo int // the lines read
	err    error
}

// NewParagraphs reads r's paragraphs; file names r in errors.
func NewParagraphs(r io.Reader, file string) *Paragraphs {
	return &Paragraphs{br: bufio.NewReaderSize(r, 1<<16), file: file}
}

// Read returns the next paragraph, or io.EOF after the last. A line that
// is not UTF-8 is a *corpus.Error naming it.
func (p *Paragraphs) Read() (Paragraph, error) {
	if p.err != nil {
		return Paragraph{}, p.err
	}
	var para strings.Builder
	runes, first := 0, p.lineNo+1
	for runes < MaxParagraph {
		line, err := p.br.ReadString('\n')
		if len(line) > 0 {
			p.lineNo++
			if !utf8.ValidString(line) {
				p.err = &corpus.Error{File: p.file, Line: p.lineNo, Msg: "the line is not UTF-8 text"}
				return Paragraph{}, p.err
			}
			para.WriteString(line)
			runes += utf8.RuneCountInString(line)
		}
		if err != nil {
			p.err = err
			if err != io.EOF {
				p.err = fmt.Errorf("%s: %w", p.file, err)
			}
			if para.Len() == 0 {
				return Paragraph{}, p.err
			}
			break
		}
		if strings.TrimFunc(line, corpus.IsTextSpace) == "" {
			break // a blank line ends the paragraph
		}
	}
	out := Paragraph{File: p.file, Text: para.String(), Base: p.base, Line: first}
	p.base += runes
	return out, nil
}

// Tokenize tokenizes the paragraph with tok: its sentences, offsets
// counted from the start of the stream, and the line each starts on.
func (p Paragraph) Tokenize(tok Tokenizer) ([]Sentence, []int, error) {
	sents, err := tok.Tokenize(p.Text)
	if err != nil {
		return nil, nil, fmt.Errorf("%s:%d: %w", p.File, p.Line, err)
	}
	starts, line := lineStarts(p.Text), 0
	lines := make([]int, len(sents))
	for k := range sents {
		line = lineOf(starts, line, sents[k].Start)
		lines[k] = p.Line + line
		shift(&sents[k], p.Base)
	}
	return sents, lines, nil
}

// lineStarts returns the character offset at which each line of text
// starts.
func lineStarts(text string) []int {
	starts := []int{0}
	pos := 0
	for _, c := range text {
		pos++
		if c == '\n' {
			starts = append(starts, pos)
		}
	}
	return starts
}

// lineOf is the 0-based line of starts that holds character pos,
// searched from line k on (sentences come in order).
func lineOf(starts []int, k, pos int) int {
	for k+1 < len(starts) && starts[k+1] <= pos {
		k++
	}
	return k
}

// shift adds base to every offset of s.
func shift(s *Sentence, base int) {
	s.Start += base
	s.End += base
	for i := range s.Tokens {
		s.Tokens[i].Start += base
		s.Tokens[i].End += base
	}
}

// Sentences is a corpus.Reader of the sentences a Reader reads, each a
// sentence of tokens in a tagger's column layout (tagger.TokenInput): it
// is how a tagger tags raw text. Offsets gives back a sentence's
// offsets. It is safe for one goroutine to Read while another calls
// Offsets.
type Sentences struct {
	r  *Reader
	in tagger.TokenInput
	mu sync.Mutex
	// read maps every sentence returned and not yet asked for to its
	// tokenization.
	read map[*corpus.Sentence]Sentence
}

var _ corpus.Reader = (*Sentences)(nil)

// NewSentences reads r for a tagger whose input is in. The model must
// read no column but the word (in.Extra empty): raw text has no other.
func NewSentences(r *Reader, in tagger.TokenInput) *Sentences {
	return &Sentences{r: r, in: in, read: map[*corpus.Sentence]Sentence{}}
}

// Read returns the next sentence, or (nil, io.EOF) after the last.
func (ss *Sentences) Read() (*corpus.Sentence, error) {
	t, line, err := ss.r.Read()
	if err != nil {
		return nil, err
	}
	s := ss.in.Sentence(t.Words(), nil)
	s.File, s.Line = ss.r.paras.file, line
	s.TokenLineNo = make([]int, len(t.Tokens))
	for i := range s.TokenLineNo {
		s.TokenLineNo[i] = line
	}
	ss.mu.Lock()
	ss.read[s] = t
	ss.mu.Unlock()
	return s, nil
}

// Offsets returns the tokenization s was read from, and forgets it.
func (ss *Sentences) Offsets(s *corpus.Sentence) (Sentence, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	t, ok := ss.read[s]
	delete(ss.read, s)
	return t, ok
}
