// joint.go is dev scoring's joint decoding (a learner's consistency and
// constraint blocks): the dev corpus's documents decoded by dual.Joint,
// as the tagger decodes the test corpus's.

package run

import (
	"fmt"
	"slices"

	"github.com/rs/zerolog"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/dual"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/linear"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/spec"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// checkJoint refuses a learner's joint decoding that the training labels
// cannot carry (a constrained type no label has), before it trains, and
// warns when the dev corpus has no document boundaries, where consistency
// changes nothing (testJoint warns for the test corpus).
func checkJoint(enc *encoded, s *spec.Spec, li *spec.LearnerInstance, log zerolog.Logger) error {
	if !li.Joint.Enabled() {
		return nil
	}
	if _, err := dual.NewJoint(li.Joint, enc.mapper.Labels().Names(), 1, s.Labels.Training(), nil); err != nil {
		return fmt.Errorf("learner %q (%s): %w", li.Name, li.Range, err)
	}
	if li.Joint.Documents() && len(enc.devSents) > 0 && !hasDocuments(enc.devSents) {
		warnUnmarked(log, s.Evaluation.Dev)
	}
	return nil
}

// testJoint records the joint decoding of the test corpus in lm and warns
// when consistency found no document to apply to.
func testJoint(lm *LearnerMetrics, li *spec.LearnerInstance, st dual.Stats, corpusName string, log zerolog.Logger) {
	if !li.Joint.Enabled() {
		return
	}
	lm.Joint = &st
	if li.Joint.Documents() && st.Problems > 0 && st.Marked == 0 {
		warnUnmarked(log, corpusName)
	}
	log.Info().Int("problems", st.Problems).Int("documents", st.Marked).Int("certified", st.Certified).Int("iterations", st.Iterations).Msg("joint decoding")
}

func warnUnmarked(log zerolog.Logger, corpusName string) {
	log.Warn().Str("corpus", corpusName).
		Msg("the corpus has no document boundaries: consistency keeps a document's words consistent, so it changes nothing here (constraints still apply)")
}

// hasDocuments reports whether a boundary opens any of sents' documents.
func hasDocuments(sents []*corpus.Sentence) bool {
	for _, s := range sents {
		if s.DocStart {
			return true
		}
	}
	return false
}

// setJoint makes d decode the dev corpus's documents jointly under cfg,
// whose labels are in scheme sch.
func (d *devDecoder) setJoint(cfg *dual.Config, sch scheme.Scheme) {
	if !cfg.Enabled() {
		return
	}
	d.joint, d.scheme, d.docs = cfg, sch, tagger.JointRuns(nil, d.enc.devSents, cfg)
	d.words = make([][]string, len(d.enc.devSents))
	for k, s := range d.enc.devSents {
		for i := 0; d.enc.wordColumn >= 0 && i < s.Len(); i++ {
			d.words[k] = append(d.words[k], s.Tokens[i][d.enc.wordColumn])
		}
	}
}

// decodeJointShare decodes the dev documents w, w+threads, … jointly with
// m, as tagger.Tagger's jointDocument does.
func (d *devDecoder) decodeJointShare(m *linear.Model, chain *lattice.Chain, relax lattice.Relaxation, w int) {
	labels := d.enc.mapper.Labels().Names()
	dec := lattice.NewDecoder(lattice.NewWorkspace(m.NumLabels), lattice.DecodeViterbi, 0)
	j, err := dual.NewJoint(d.joint, labels, m.States(), d.scheme, func(dst []int32, s *lattice.Scores) float64 {
		return dec.DecodeRelaxed(dst, s, relax)
	})
	if err != nil {
		panic(err) // checkJoint checked the labels before training
	}
	add := d.adder()
	var lats []lattice.Scores
	var ptrs []*lattice.Scores
	var paths [][]int32
	var words [][]string
	var flat []int32
	for r := w; r < len(d.docs); r += d.threads {
		start, end := d.docs[r][0], d.docs[r][1]
		for len(lats) < end-start {
			lats = append(lats, lattice.Scores{})
		}
		ptrs, paths, words = ptrs[:0], paths[:0], words[:0]
		n := 0
		for k := start; k < end; k++ {
			n += d.enc.devSents[k].Len()
		}
		flat = slices.Grow(flat[:0], n)[:n]
		for k := start; k < end; k++ {
			sc := &lats[k-start]
			chain.Attach(sc)
			d.scorer.Lattice(sc, d.enc.dev, k)
			if add != nil {
				if err := add.Add(sc, d.enc.devSents[k]); err != nil {
					panic(err) // the vocabulary maps every value to an ID
				}
			}
			ptrs = append(ptrs, sc)
			paths, flat = append(paths, flat[:sc.N:sc.N]), flat[sc.N:]
			words = append(words, d.words[k])
		}
		if !d.joint.Documents() || !d.enc.devSents[start].DocStart || d.enc.wordColumn < 0 {
			words = nil
		}
		j.Decode(paths, ptrs, words)
		for i, path := range paths {
			m.ToLabels(path)
			for t, y := range path {
				d.sents[start+i].Pred[t] = labels[y]
			}
		}
	}
}
