package tagger

import (
	"fmt"
	"slices"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/model"
)

// A second-stage model (model.Header.Stages) reads, as columns after its
// format's, the labels its first-stage models predict. The tagger runs
// each first stage on a batch, in the corpus's scheme, as `trellis tag`
// would with that model alone, and extends each token's row with their
// labels for as long as the second stage's features are extracted; the
// sentences get their own rows back afterwards. Training made the same
// column with models that did not see the sentence (jackknifing), so the
// second stage learnt how far to trust it. A model stage (a model trained
// elsewhere, model.Stage.Fed) reads a format of its own: a Feed gives it
// the words and the columns it reads by name (feed.go).

// columns are the columns the model's templates are compiled against:
// its format's, then one per stage.
func columns(m *model.Model, f corpus.Format) feature.Columns {
	names := slices.Clone(f.Columns())
	for _, st := range m.Stages {
		names = append(names, st.Column)
	}
	return feature.Columns{Names: names, Label: f.LabelColumn()}
}

// newStages builds a tagger for each of m's first-stage models, and a
// feed for each model stage (model.Stage.Fed).
func (t *Tagger) newStages(reg *feature.Registry) error {
	for i, sm := range t.Model.StageModels {
		if t.Model.Stages[i].Fed() {
			if err := t.newFedStage(sm, reg, t.Model.Stages[i].Column); err != nil {
				return err
			}
			continue
		}
		if sm.Format.Name != t.Model.Format.Name || len(sm.Format.Columns) != len(t.Model.Format.Columns) {
			return fmt.Errorf("stage %q reads the %s format (%d columns); the model reads %s (%d columns)",
				t.Model.Stages[i].Column, sm.Format.Name, len(sm.Format.Columns), t.Model.Format.Name, len(t.Model.Format.Columns))
		}
		st, err := New(sm, reg, Options{})
		if err != nil {
			return fmt.Errorf("stage %q: %w", t.Model.Stages[i].Column, err)
		}
		t.stages, t.feeds = append(t.stages, st), append(t.feeds, nil)
		t.documents = t.documents || st.documents
	}
	return nil
}

// newFedStage adds a model stage: a tagger of its own format, fed from
// this model's format columns by name.
func (t *Tagger) newFedStage(sm *model.Model, reg *feature.Registry, column string) error {
	st, err := New(sm, reg, Options{})
	if err != nil {
		return fmt.Errorf("stage %q: %w", column, err)
	}
	f, err := NewFeed(st, t.layout())
	if err != nil {
		st.Close()
		return fmt.Errorf("stage %q: %w", column, err)
	}
	t.stages, t.feeds = append(t.stages, st), append(t.feeds, f)
	t.documents = t.documents || st.documents
	return nil
}

// layout is the model's format's column layout.
func (t *Tagger) layout() Layout {
	return Layout{Columns: t.Format.Columns(), Word: t.WordColumn(), Label: t.Format.LabelColumn()}
}

// tagStage tags sents with first stage j: a model stage through its feed.
func (t *Tagger) tagStage(j int, sents []*corpus.Sentence) ([][]string, error) {
	if f := t.feeds[j]; f != nil {
		return f.Tag(sents)
	}
	return t.stages[j].Tag(sents)
}

// encode encodes a batch into t.enc: with stages, over rows extended by
// the first stages' labels (restored before it returns).
func (t *Tagger) encode(sents []*corpus.Sentence) error {
	t.batch = sents
	if len(t.stages) == 0 {
		return t.enc.Encode(sents)
	}
	width := len(t.Format.Columns())
	full := width + len(t.stages)
	tokens := 0
	for _, s := range sents {
		tokens += s.Len()
	}
	if cap(t.rows) < tokens*full {
		t.rows = make([]string, tokens*full)
	}
	t.orig = t.orig[:0]
	off := 0
	for _, s := range sents {
		for i, tok := range s.Tokens {
			t.orig = append(t.orig, tok)
			row := t.rows[off : off+full : off+full]
			clear(row)
			copy(row[:width], tok)
			s.Tokens[i] = row
			off += full
		}
	}
	defer t.restoreRows(sents)
	for j := range t.stages {
		preds, err := t.tagStage(j, sents)
		if err != nil {
			return fmt.Errorf("stage %q: %w", t.Model.Stages[j].Column, err)
		}
		for k, s := range sents {
			for i, tok := range s.Tokens {
				tok[width+j] = preds[k][i]
			}
		}
	}
	return t.enc.Encode(sents)
}

// restoreRows gives the sentences back the rows encode replaced, last
// first: a sentence passed twice in one batch had its own rows saved at
// its first occurrence and the tagger's at its second, so the first
// occurrence's must be put back last.
func (t *Tagger) restoreRows(sents []*corpus.Sentence) {
	n := len(t.orig)
	for k := len(sents) - 1; k >= 0; k-- {
		toks := sents[k].Tokens
		for i := len(toks) - 1; i >= 0; i-- {
			n--
			toks[i] = t.orig[n]
		}
	}
}

// readColumns is feature.Mapper.ReadColumns over the model and its first
// stages: the columns the input must have.
func (t *Tagger) readColumns() (read, undeclared []string) {
	read, undeclared = t.mapper.ReadColumns()
	if net := t.Model.Network; net != nil {
		for _, c := range append([]string{net.WordColumn}, net.Columns...) {
			if !slices.Contains(read, c) {
				read = append(read, c)
			}
		}
	}
	for j, st := range t.stages {
		r, u := st.readColumns()
		if f := t.feeds[j]; f != nil {
			r = f.Columns(t.layout()) // a model stage reads this model's columns of these names
		}
		for _, c := range r {
			if !slices.Contains(read, c) {
				read = append(read, c)
			}
		}
		undeclared = append(undeclared, u...)
	}
	return read, undeclared
}
