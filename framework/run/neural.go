// neural.go makes what a learner with an encoder needs from the training
// corpus (vocabulary, input IDs, pretrained vectors) and the network it
// starts from.

package run

import (
	"fmt"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/embeddings"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/neural"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// neuralInputs is an encoder block's view of the training corpus, made
// once per run and shared by the learners that name the block.
type neuralInputs struct {
	vocab   *neural.Vocab
	counts  []int32 // training count of each word ID (0 for added vectors)
	train   []neural.Encoded
	columns []string // the embedded columns beside the word, by name
	// vectors[id] is word id's pretrained vector, nil where the file has
	// none; vectors is nil without a file, whose SHA-256 is sha.
	vectors [][]float32
	sha     string
}

// encodeNeural makes the inputs of every encoder block that a learner of
// the spec names, from the training sentences (in the order the mapper
// encoded them).
func (enc *encoded) encodeNeural(s *spec.Spec, sents []*corpus.Sentence) error {
	for _, li := range s.Learners {
		e := li.Encoder
		if e == nil || enc.neural[e.Name] != nil {
			continue
		}
		ni, err := newNeuralInputs(s, e, enc.mapper.Columns().Names, sents)
		if err != nil {
			return err
		}
		if enc.neural == nil {
			enc.neural = map[string]*neuralInputs{}
		}
		enc.neural[e.Name] = ni
	}
	return nil
}

func newNeuralInputs(s *spec.Spec, e *spec.Encoder, columns []string, sents []*corpus.Sentence) (*neuralInputs, error) {
	cfg := &e.Config
	ni := &neuralInputs{columns: neural.ColumnNames(cfg)}
	h := neural.Header{WordColumn: cfg.Column, Columns: ni.columns}
	in, err := h.Input(columns)
	if err != nil {
		return nil, fmt.Errorf("encoder %q: %w", e.Name, err)
	}
	ni.vocab, ni.counts = neural.BuildVocab(sents, in, cfg.Lowercase, *cfg.ZeroDigits, cfg.MinCount)
	if path := s.VectorsPath(e); path != "" {
		if err := ni.readVectors(path, cfg); err != nil {
			return nil, fmt.Errorf("encoder %q: %w", e.Name, err)
		}
	}
	ni.counts = append(ni.counts, make([]int32, len(ni.vocab.Words)-len(ni.counts))...)
	ni.train = make([]neural.Encoded, len(sents))
	for k, st := range sents {
		ni.vocab.Encode(&ni.train[k], st, in)
	}
	return ni, nil
}

// readVectors reads the encoder's pretrained vectors, adds their words to
// the vocabulary (the first max_vectors of the file, and every training
// word it has) and keeps each word's vector.
func (ni *neuralInputs) readVectors(path string, cfg *neural.Config) error {
	f, err := embeddings.ParseFormat(cfg.VectorsFormat)
	if err != nil {
		return err
	}
	kept := 0
	keep := func(w string) bool {
		if _, known := ni.vocab.Lookup(w); known {
			return true
		}
		kept++
		return kept <= cfg.MaxVectors
	}
	v, err := embeddings.Read(path, embeddings.Options{Format: f, Dim: cfg.WordDim, Vocab: keep})
	if err != nil {
		return err
	}
	ids := ni.vocab.AddWords(v.Words)
	ni.vectors = make([][]float32, len(ni.vocab.Words))
	for i, id := range ids {
		if id != neural.Unknown && ni.vectors[id] == nil {
			ni.vectors[id] = v.Row(i)
		}
	}
	ni.sha = v.SHA256
	return nil
}

// encoderProblem is learner li's encoder, with the weights it starts from
// (drawn from the spec's seed, the vectors' rows replacing theirs), for
// a model of numLabels labels.
func (enc *encoded) encoderProblem(s *spec.Spec, li *spec.LearnerInstance, numLabels int) (*learn.Encoder, error) {
	ni := enc.neural[li.Encoder.Name]
	if ni == nil {
		return nil, fmt.Errorf("learner %q: encoder %q was not prepared", li.Name, li.Encoder.Name)
	}
	net, err := neural.New(neural.Header{Config: li.Encoder.Config, Vocab: ni.vocab, WordColumn: li.Encoder.Config.Column,
		Columns: ni.columns, Labels: numLabels, VectorsSHA256: ni.sha})
	if err != nil {
		return nil, err
	}
	net.Init(s.Seed)
	if ni.vectors != nil {
		if err := net.Enc.Word.SetRows(ni.vectors); err != nil {
			return nil, err
		}
	}
	return &learn.Encoder{Net: net, Train: ni.train, Counts: ni.counts}, nil
}
