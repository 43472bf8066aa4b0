package main

import (
	"io"

	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// The reports live in framework/tagger (evalreport.go), shared with
// cmd/trellis-beam --eval.

func writeEvalJSON(w io.Writer, res *eval.Result, vocab *tagger.Vocabulary) error {
	return tagger.WriteEvalJSON(w, res, vocab)
}

func writeEvalText(w io.Writer, res *eval.Result, sch scheme.Scheme, vocab *tagger.Vocabulary) error {
	return tagger.WriteEvalText(w, res, sch, vocab)
}
