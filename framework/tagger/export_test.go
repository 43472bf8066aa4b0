package tagger

import "github.com/trellis-nlp/trellis/framework/corpus"

// DecodeOnly encodes sents once and returns a function that scores and
// decodes sentence k of them as Tag does — without reading, feature
// extraction or writing — so that a benchmark times the decoders alone.
func (t *Tagger) DecodeOnly(sents []*corpus.Sentence) (func(k int) []int32, error) {
	t.enc.Reset()
	if err := t.enc.Encode(sents); err != nil {
		return nil, err
	}
	data := t.enc.Dataset()
	return func(k int) []int32 { return t.decode(data, k) }, nil
}

// ScoreOnly is DecodeOnly without the decoding: it fills sentence k's
// lattice and returns its length, the share of DecodeOnly that every
// method pays.
func (t *Tagger) ScoreOnly(sents []*corpus.Sentence) (func(k int) int, error) {
	t.enc.Reset()
	if err := t.enc.Encode(sents); err != nil {
		return nil, err
	}
	data := t.enc.Dataset()
	return func(k int) int {
		t.lattice(&t.scores, data, k)
		return t.scores.N
	}, nil
}
