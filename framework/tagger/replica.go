package tagger

import (
	"fmt"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
)

// Replica returns another tagger of t's model for another goroutine. It
// shares what tagging only reads — the attribute and label dictionaries,
// the laid-out weights, the prepared transitions and constraints — and
// has its own extractors, compiled from reg (where the plugin template
// type is bound to the host its plugins should run under), encoder and
// decoding buffers (decoding the way t does). t and its replicas may tag at the same time, one
// goroutine each, and a replica costs its buffers rather than another
// copy of the model (docs/results.md, "Measurements behind design choices
// in the code").
// Closing a replica closes its extractors only (its mapper's, which it
// keeps for what reads the templates: CheckPlain, TokenInput).
func (t *Tagger) Replica(reg *feature.Registry) (*Tagger, error) {
	cols := columns(t.Model, t.Format)
	templates := make([]feature.MapperTemplate, len(t.Model.Templates))
	for i, ts := range t.Model.Templates {
		tmpl, err := reg.Instantiate(ts)
		if err != nil {
			return nil, err
		}
		templates[i] = feature.MapperTemplate{Spec: ts, Template: tmpl}
	}
	mp, err := feature.NewMapper(templates, cols)
	if err != nil {
		return nil, err
	}
	xs := mp.Extractors()
	if len(xs) != len(t.extractors) {
		mp.Close()
		return nil, fmt.Errorf("replica: %d extractors compiled, the model's tagger has %d", len(xs), len(t.extractors))
	}
	enc := feature.NewEncoder(t.enc.Attrs, t.enc.Labels, t.enc.Mode(), xs, -1) // no gold labels, as New
	r := &Tagger{Model: t.Model, Format: t.Format, mapper: mp, extractors: xs, enc: enc, documents: t.documents,
		ws: lattice.NewWorkspace(t.Model.Linear.NumLabels), scorer: t.scorer, chain: t.chain, relax: t.relax,
		from: t.from, to: t.to, convert: t.convert, probabilistic: t.probabilistic}
	if t.net != nil {
		if r.net, err = t.Model.Network.NewAdder(t.Format.Columns()); err != nil {
			r.Close()
			return nil, err
		}
	}
	r.dec = lattice.NewDecoder(r.ws, t.dec.Method, t.dec.Width)
	r.dec.States = t.dec.States
	r.chain.Attach(&r.scores)
	if t.trans != nil {
		r.trans = newTransState(t.trans.transModel)
	}
	r.rr = t.rr // read only: the reranker's Rerank builds its own buffers
	if t.joint != nil {
		if err := r.newJoint(t.joint.cfg); err != nil {
			r.Close()
			return nil, err
		}
	}
	for j, st := range t.stages {
		sr, err := st.Replica(reg)
		if err != nil {
			r.Close()
			return nil, err
		}
		var f *Feed
		if t.feeds[j] != nil {
			f = t.feeds[j].with(sr)
		}
		r.stages, r.feeds = append(r.stages, sr), append(r.feeds, f)
	}
	return r, nil
}
