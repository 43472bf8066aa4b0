// Model stages: the trained model a stage block names, found, loaded and
// checked against the train corpus it will label.

package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/pretrained"
	"github.com/trellis-nlp/trellis/framework/registry"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// loadStageModels loads every model stage's model and checks that it can
// label the train corpus (StageFeed): an unknown name, an unreadable file
// or a model that cannot read the corpus's columns is a diagnostic at the
// stage's model setting.
func (s *Spec) loadStageModels(reg *feature.Registry) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, li := range s.Learners {
		st := li.Stage
		if st == nil || st.Source != StageModel {
			continue
		}
		data, err := s.readStageModel(st.Model)
		if err != nil {
			summary := "Cannot read stage model"
			if errors.As(err, new(unknownModel)) {
				summary = "Unknown model"
			}
			diags = append(diags, errorAt(st.ModelRange.Ptr(), summary, err.Error()))
			continue
		}
		m, err := model.Decode(data)
		if err != nil {
			diags = append(diags, errorAt(st.ModelRange.Ptr(), "Cannot read stage model", fmt.Sprintf("%s: %v", st.Model, err)))
			continue
		}
		f, err := s.StageFeed(m, reg)
		if err != nil {
			diags = append(diags, errorAt(st.ModelRange.Ptr(), "Stage model cannot label this corpus", fmt.Sprintf("%s: %v.", st.Model, err)))
			continue
		}
		f.Close()
		sum := sha256.Sum256(data)
		st.Loaded, st.SHA256 = m, hex.EncodeToString(sum[:])
	}
	return diags
}

// readStageModel returns the bytes of the model a stage names: the file
// at name resolved against the spec's folder or, when there is none, the
// shipped model of that name (a file wins, as for --model).
func (s *Spec) readStageModel(name string) ([]byte, error) {
	data, err := pretrained.ReadFileAt(s.path(name), name)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return data, err
	}
	return nil, unknownModel(fmt.Sprintf("There is no model file %s (paths are relative to the spec file's folder, %s), nor a shipped model %q.%s",
		s.path(name), s.Dir, name, registry.Hint(name, pretrained.Names())))
}

// unknownModel is a stage model that is neither a file nor shipped.
type unknownModel string

func (e unknownModel) Error() string { return string(e) }

// StageFeed returns a tagger of model m (a model stage's) fed from the
// train corpus's layout, as training and the second stage's tagger run
// it; the caller closes it. The error says why m cannot label the corpus.
func (s *Spec) StageFeed(m *model.Model, reg *feature.Registry) (*StageTagger, error) {
	train := s.Corpus(s.Evaluation.Train)
	if train == nil {
		return nil, fmt.Errorf("the spec has no train corpus")
	}
	f, err := corpus.New(train.Format)
	if err != nil {
		return nil, err
	}
	tg, err := tagger.New(m, reg, tagger.Options{})
	if err != nil {
		return nil, err
	}
	l := tagger.Layout{Columns: f.Columns(), Label: f.LabelColumn()}
	l.Word = corpus.WordColumn(f.Name(), l.Columns, l.Label)
	feed, err := tagger.NewFeed(tg, l)
	if err != nil {
		tg.Close()
		return nil, err
	}
	return &StageTagger{Feed: feed, tagger: tg}, nil
}

// StageTagger is a model stage's tagger over the train corpus's layout.
type StageTagger struct {
	*tagger.Feed
	tagger *tagger.Tagger
}

// Close releases the tagger.
func (st *StageTagger) Close() error { return st.tagger.Close() }
