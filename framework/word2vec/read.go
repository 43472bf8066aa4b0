// read.go: the Counter's readers for plain text, CoNLL columns and
// CoNLL-U FORMs, on the project's word readers (corpus.ReadTextWords and
// the others), which `trellis clusters` reads through too.

package word2vec

import (
	"io"

	"github.com/trellis-nlp/trellis/framework/corpus"
)

var _ corpus.WordSink = (*Counter)(nil)

// ReadText adds pre-tokenized text: a sentence per line, tokens separated
// by ASCII white space. name is the text's name in errors.
func (c *Counter) ReadText(name string, r io.Reader) error {
	return corpus.ReadTextWords(name, r, c)
}

// ReadCoNLL adds column (1-based) of a CoNLL file (corpus.ReadCoNLLWords:
// -DOCSTART- lines end a sentence; a token line with fewer fields is a
// *corpus.Error).
func (c *Counter) ReadCoNLL(name string, r io.Reader, column int) error {
	return corpus.ReadCoNLLWords(name, r, column, c)
}

// ReadCoNLLU adds the FORM field of a CoNLL-U file's word lines
// (corpus.ReadCoNLLUWords).
func (c *Counter) ReadCoNLLU(name string, r io.Reader) error {
	return corpus.ReadCoNLLUWords(name, r, c)
}
