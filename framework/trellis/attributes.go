package trellis

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// Attribute is one attribute of a token as CRFsuite (and
// sklearn-crfsuite) takes them: a name and a real value, 1 for a plain
// binary attribute. Any string is a name, colons and tabs included.
type Attribute struct {
	Name  string
	Value float64
}

// AttributeSentence is a sentence whose features the caller extracted:
// per token its attributes, and the gold labels.
type AttributeSentence struct {
	Tokens [][]Attribute
	Labels []string
}

// AttributeOptions configure TrainAttributes. The fields mean what they
// mean in Options; there are no templates to choose: the model reads the
// given attributes (the "attributes" template) and weights label
// transitions (the "transition" template).
type AttributeOptions struct {
	Learner Learner
	Scheme  string
	Seed    uint64
	Dev     []AttributeSentence
	Threads int
	Log     *zerolog.Logger
}

// attributeFormat is the layout of sentences given to TrainAttributes:
// CRFsuite's, so a saved model tags CRFsuite files with `trellis tag`.
var attributeFormat = corpus.Config{Name: corpus.NameCRFsuite, Label: "label"}

// AttributeTemplates are the templates of the models TrainAttributes
// makes: every attribute as given, with its value, and transitions.
func AttributeTemplates() []Template {
	return []Template{
		{Type: "attributes", Name: "attributes"},
		{Type: "transition", Name: "trans"},
	}
}

// TrainAttributes trains a model on sentences given as token attributes,
// CRFsuite's training data, through the same feature mapper and learners
// as `trellis run` on a corpus in the crfsuite format. The model's format
// is crfsuite: TagAttributes tags with it, and so does `trellis tag` on a
// CRFsuite file once it is saved.
func TrainAttributes(ctx context.Context, sents []AttributeSentence, o AttributeOptions) (*Model, error) {
	opts := Options{Templates: AttributeTemplates(), Learner: o.Learner, Scheme: o.Scheme, Seed: o.Seed, Threads: o.Threads, Log: o.Log}
	return trainMemory(ctx, opts, attributeFormat, sents, o.Dev, attributeSentences)
}

// attributeSentences turns labelled attribute sentences into corpus rows.
func attributeSentences(name string, sents []AttributeSentence) ([]*corpus.Sentence, error) {
	out := make([]*corpus.Sentence, len(sents))
	for k, s := range sents {
		if len(s.Tokens) != len(s.Labels) {
			return nil, fmt.Errorf("%s sentence %d: %d tokens, %d labels", name, k+1, len(s.Tokens), len(s.Labels))
		}
		if len(s.Tokens) == 0 {
			return nil, fmt.Errorf("%s sentence %d: no tokens", name, k+1)
		}
		for i, l := range s.Labels {
			if l == "" {
				return nil, fmt.Errorf("%s sentence %d token %d: empty label", name, k+1, i+1)
			}
		}
		cs, err := attributeRows(s.Tokens, s.Labels)
		if err != nil {
			return nil, fmt.Errorf("%s sentence %d %w", name, k+1, err)
		}
		cs.File, cs.Line = "<"+name+">", k+1
		out[k] = cs
	}
	return out, nil
}

// attributeRows makes tokens a sentence in the crfsuite format's rows,
// {label, field, field, …}, each field an attribute written as
// corpus.AppendCRFsuiteAttribute reads it back: the escaped name, then
// ":" and the value unless it is 1. labels may be nil (tagging).
func attributeRows(tokens [][]Attribute, labels []string) (*corpus.Sentence, error) {
	s := &corpus.Sentence{File: "<input>", Line: 1, Tokens: make([][]string, len(tokens))}
	for i, attrs := range tokens {
		// A token without attributes keeps the format's two cells.
		row := make([]string, 1, max(len(attrs)+1, 2))
		if labels != nil {
			row[0] = labels[i]
		}
		for _, a := range attrs {
			if math.IsNaN(a.Value) || math.IsInf(a.Value, 0) {
				return nil, fmt.Errorf("token %d: attribute %q: value %v is not a finite number", i+1, a.Name, a.Value)
			}
			field := corpus.EscapeCRFsuiteName(a.Name)
			if a.Value != 1 || field == "" {
				// An empty field would be read as no attribute at all.
				field += ":" + strconv.FormatFloat(a.Value, 'g', -1, 64)
			}
			row = append(row, field)
		}
		if len(row) < 2 {
			row = append(row, "")
		}
		s.Tokens[i] = row
	}
	return s, nil
}

// TagAttributes labels one sentence given as its tokens' attributes. The
// model must read attributes: one made by TrainAttributes, or by `trellis
// run` on a corpus in the crfsuite format. An empty sentence gives an
// empty result.
func (m *Model) TagAttributes(tokens [][]Attribute) ([]string, error) {
	if len(tokens) == 0 {
		return []string{}, nil
	}
	s, err := m.attributeSentence(tokens)
	if err != nil {
		return nil, err
	}
	return onSentence(m, s, (*tagger.Tagger).Tag)
}

// MarginalsAttributes is Marginals on a sentence given as its tokens'
// attributes, as TagAttributes takes it.
func (m *Model) MarginalsAttributes(tokens [][]Attribute) ([][]float64, error) {
	if len(tokens) == 0 {
		return [][]float64{}, nil
	}
	s, err := m.attributeSentence(tokens)
	if err != nil {
		return nil, err
	}
	return m.marginals(s)
}

// ReadsAttributes reports whether the model tags sentences given as
// attributes (TagAttributes): whether its corpus format is crfsuite.
func (m *Model) ReadsAttributes() bool { return m.tg.Format.Name() == corpus.NameCRFsuite }

func (m *Model) attributeSentence(tokens [][]Attribute) (*corpus.Sentence, error) {
	if !m.ReadsAttributes() {
		return nil, fmt.Errorf("the model reads %s corpora (columns %v), not attributes: tag it with tokens or rows", m.tg.Format.Name(), m.tg.Format.Columns())
	}
	return attributeRows(tokens, nil)
}

// Marginals returns P(y_i = label | sentence) for every token i of a
// sentence given as rows (as TagRows takes them) and every label, in the
// order of Labels, over the lattice Tag decodes (constraints included).
// For the perceptron, which is not a probabilistic model, they are its
// normalized exponentiated scores, as CRFsuite reports for its averaged
// perceptron.
func (m *Model) Marginals(rows [][]string) ([][]float64, error) {
	if len(rows) == 0 {
		return [][]float64{}, nil
	}
	s, err := m.sentence(rows)
	if err != nil {
		return nil, err
	}
	return m.marginals(s)
}

func (m *Model) marginals(s *corpus.Sentence) ([][]float64, error) {
	return onSentence(m, s, (*tagger.Tagger).Marginals)
}

// Bytes returns the model file's bytes, the file Save writes.
func (m *Model) Bytes() ([]byte, error) {
	var buf bytes.Buffer
	if err := m.file.Encode(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// LoadBytes reads a model from a model file's bytes (Bytes, or a file
// `trellis run` wrote).
func LoadBytes(data []byte) (*Model, error) {
	m, err := model.Decode(data)
	if err != nil {
		return nil, err
	}
	return newModel(m)
}
