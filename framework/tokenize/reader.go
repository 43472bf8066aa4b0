package tokenize

// This file holds the readers of raw text: Reader tokenizes a stream a
// paragraph at a time, and Sentences hands its sentences to a tagger as
// corpus sentences.

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

// Reader reads raw text and tokenizes it a paragraph at a time (up to a
// blank line, or MaxParagraph characters cut at a line end), so a stream
// of any length is read in bounded memory. Offsets count from the start
// of the stream.
type Reader struct {
	br     *bufio.Reader
	file   string
	tok    Tokenizer
	base   int // the characters before the paragraph read next
	lineNo int // the lines read
	queue  []Sentence
	lines  []int // lines[k]: the file line where queue[k] starts
	err    error
}

// NewReader tokenizes r with tok; file names r in errors.
func NewReader(r io.Reader, file string, tok Tokenizer) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 1<<16), file: file, tok: tok}
}

// Read returns the next sentence and the file line it starts on, or
// io.EOF after the last.
func (r *Reader) Read() (Sentence, int, error) {
	for len(r.queue) == 0 {
		if r.err != nil {
			return Sentence{}, 0, r.err
		}
		r.fill()
	}
	s, line := r.queue[0], r.lines[0]
	r.queue, r.lines = r.queue[1:], r.lines[1:]
	return s, line, nil
}

// fill reads and tokenizes the next paragraph; at the end of the input
// it sets err to io.EOF.
func (r *Reader) fill() {
	var para strings.Builder
	runes, first := 0, r.lineNo+1
	for runes < MaxParagraph {
		line, err := r.br.ReadString('\n')
		if len(line) > 0 {
			r.lineNo++
			if !utf8.ValidString(line) {
				r.err = &corpus.Error{File: r.file, Line: r.lineNo, Msg: "the line is not UTF-8 text"}
				return
			}
			para.WriteString(line)
			runes += utf8.RuneCountInString(line)
		}
		if err != nil {
			r.err = err
			if err != io.EOF {
				r.err = fmt.Errorf("%s: %w", r.file, err)
			}
			break
		}
		if strings.TrimFunc(line, corpus.IsTextSpace) == "" {
			break // a blank line ends the paragraph
		}
	}
	text := para.String()
	sents, err := r.tok.Tokenize(text)
	if err != nil {
		r.err = fmt.Errorf("%s:%d: %w", r.file, first, err)
		return
	}
	lines, line := lineStarts(text), 0
	for _, s := range sents {
		line = lineOf(lines, line, s.Start)
		r.lines = append(r.lines, first+line)
		shift(&s, r.base)
		r.queue = append(r.queue, s)
	}
	r.base += runes
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
	s.File, s.Line = ss.r.file, line
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
