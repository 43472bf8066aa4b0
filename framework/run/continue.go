// Continuing a model (init_model): the encoding that keeps its IDs.

package run

import (
	"context"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/rundir"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// continuedEncoding is the training side of a learner that continues a
// model (init_model): the training (and dev) corpus encoded by a mapper
// fitted from the model's, so that its attribute and label IDs are kept
// and the new data's are appended, which is the layout learn.StartModel
// puts the model's weights on. It is the learner's own: the other
// learners' encoding knows nothing of the model.
func continuedEncoding(ctx context.Context, ss *session, li *spec.LearnerInstance) (*encoded, error) {
	m := li.InitModel.Model
	// The shared encoding checked the data.
	enc, err := encodeTraining(ctx, ss.continuing(li).checked(ss.spec))
	if err != nil {
		return nil, err
	}
	ss.log.Info().Str("learner", li.Name).Str("init_model", li.InitModel.Path).
		Int("model_attributes", len(m.Attrs)).Int("attributes", enc.mapper.Attrs().Len()).
		Int("model_labels", len(m.Labels)).Int("labels", enc.mapper.Labels().Len()).Msg("continuing a model")
	return enc, nil
}

// manifestInitModel is what the manifest records of a learner's
// init_model (nil without one).
func manifestInitModel(li *spec.LearnerInstance) *rundir.ManifestInitModel {
	if li.InitModel == nil {
		return nil
	}
	return &rundir.ManifestInitModel{Path: li.InitModel.Path, SHA256: li.InitModel.SHA256}
}

// baseRecord is the mapper of li's init_model, nil without one.
func baseRecord(li *spec.LearnerInstance) *feature.MapperRecord {
	if li.InitModel == nil {
		return nil
	}
	m := li.InitModel.Model
	return &feature.MapperRecord{
		Labels: m.Labels, Templates: m.Templates, Transitions: m.Transitions,
		UnknownAttrs: m.UnknownAttrs, Attrs: m.Attrs,
	}
}
