package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/fileio"
	"github.com/trellis-nlp/trellis/framework/model"
)

// InitModel is a learner's init_model: the trained model it continues
// training from. The model must have been trained with the spec's
// templates and label scheme; its dictionaries then grow with the new
// training data (feature.FitOptions Base).
type InitModel struct {
	// Path is the model file, resolved against the spec's folder.
	Path string `json:"path"`
	// SHA256 is the model file's, for the manifest.
	SHA256 string    `json:"sha256"`
	Range  hcl.Range `json:"-"`
	// Model is the loaded model.
	Model *model.Model `json:"-"`
}

// path resolves a path written in the spec against the spec's folder.
func (s *Spec) path(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(s.Dir, p)
}

// loadInitModels loads every learner's init_model and checks it against
// the spec: a missing or unreadable model, other templates or another
// label scheme are diagnostics at the init_model setting.
func (s *Spec) loadInitModels() hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, li := range s.Learners {
		im := li.InitModel
		if im == nil {
			continue
		}
		m, err := model.Load(im.Path)
		if err != nil {
			detail := err.Error()
			if errors.Is(err, fs.ErrNotExist) {
				detail = fmt.Sprintf("%s (paths are relative to the spec file's folder, %s).", err, s.Dir)
			}
			diags = append(diags, errorAt(im.Range.Ptr(), "Cannot read init_model", detail))
			continue
		}
		if m.PairFeatures > 0 || s.hasBigramTemplate() {
			diags = append(diags, errorAt(im.Range.Ptr(), "init_model with bigram templates",
				`Continuing a model whose templates include labels = "bigram" (input-conditioned transitions) is not supported yet; train from zero.`))
			continue
		}
		if m.Trigrams > 0 || s.secondOrder() {
			diags = append(diags, errorAt(im.Range.Ptr(), "init_model with a second-order model",
				`Continuing a second-order model (transition order = 2), or into one, is not supported yet; train from zero.`))
			continue
		}
		if m.HiddenStates > 0 {
			diags = append(diags, errorAt(im.Range.Ptr(), "init_model is a latent CRF",
				fmt.Sprintf("%s has %d hidden states per label: its weights are over hidden states, which no learner continues; train from zero.", im.Path, m.HiddenStates)))
			continue
		}
		if len(m.Stages) > 0 {
			diags = append(diags, errorAt(im.Range.Ptr(), "init_model is a second stage",
				fmt.Sprintf("%s carries a first-stage model (its stage column %q): no learner continues a second stage yet; train from zero.", im.Path, m.Stages[0].Column)))
			continue
		}
		if d := s.checkInitModel(li, m); d != "" {
			diags = append(diags, errorAt(im.Range.Ptr(), "init_model does not fit the spec",
				fmt.Sprintf("%s was trained with %s; training can continue only with the same templates and label scheme.", im.Path, d)))
			continue
		}
		if im.SHA256, err = fileio.SHA256File(im.Path); err != nil {
			diags = append(diags, errorAt(im.Range.Ptr(), "Cannot read init_model", err.Error()))
			continue
		}
		im.Model = m
	}
	return diags
}

// hasBigramTemplate reports whether a template has labels = "bigram".
func (s *Spec) hasBigramTemplate() bool {
	for _, t := range s.Features.Templates {
		if t.Labels == feature.LabelsBigram {
			return true
		}
	}
	return false
}

// secondOrder reports whether the transition template sets order = 2.
func (s *Spec) secondOrder() bool { return s.secondOrderTemplate() != nil }

// secondOrderTemplate returns the template that sets order = 2 (the
// transition template), or nil.
func (s *Spec) secondOrderTemplate() *TemplateInstance {
	for _, t := range s.Features.Templates {
		if feature.TemplateOrder(t.Template) == 2 {
			return t
		}
	}
	return nil
}

// checkInitModel says how m's templates or scheme differ from those li
// trains with ("" when they do not).
func (s *Spec) checkInitModel(li *LearnerInstance, m *model.Model) string {
	// The labels the weights score are in the training scheme (encode).
	if m.Scheme != s.Labels.Training().String() {
		return fmt.Sprintf("labels in scheme %s, not %s", m.Scheme, s.Labels.Training())
	}
	if m.Output() != s.Labels.Scheme.String() {
		return fmt.Sprintf("output scheme %s, not %s", m.Output(), s.Labels.Scheme)
	}
	var want []feature.TemplateSpec
	for _, ti := range s.TemplatesFor(li) {
		ts, err := ti.Spec()
		if err != nil {
			return err.Error()
		}
		want = append(want, ts)
	}
	if d := feature.TemplatesDiff(m.Templates, want); d != "" {
		return "other templates: " + d
	}
	return ""
}
