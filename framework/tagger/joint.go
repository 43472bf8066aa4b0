// joint.go decodes a batch's documents jointly when Options.Joint asks
// for it (framework/dual): document consistency and per-sentence span
// limits by dual decomposition over the model's own lattices.

package tagger

import (
	"errors"
	"fmt"
	"slices"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/dual"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
)

// ErrJointDetail is returned by the calls that give more than one
// labelling or the probabilities of one (n-best, marginals, explain):
// a joint decode gives one labelling of a whole document, which none of
// them describe.
var ErrJointDetail = errors.New("joint decoding (consistency, constraints) gives one labelling per document; n-best lists, marginals and explanations are the model's own")

// jointState is the tagger's joint decoding: the Joint and the buffers of
// one document.
type jointState struct {
	cfg   *dual.Config
	joint *dual.Joint
	// lats [j] is the lattice of the document's sentence j (each owns its
	// buffers; ptrs points at them); paths [j] views flat; words [j] is
	// the sentence's tokens.
	lats  []lattice.Scores
	ptrs  []*lattice.Scores
	flat  []int32
	paths [][]int32
	words [][]string
	wbuf  []string // words' backing
	// out [k] is the batch's sentence k's label path (views into outBuf);
	// runs are the batch's problems.
	out    [][]int32
	outBuf []int32
	runs   [][2]int
}

// newJoint sets up joint decoding for t, which must decode with Viterbi:
// the certificate is exact only when each sentence's decode is.
func (t *Tagger) newJoint(cfg *dual.Config) error {
	if t.dec.Method != lattice.DecodeViterbi {
		return fmt.Errorf("joint decoding (consistency, constraints) decodes each sentence with viterbi, not %s", t.dec.Method)
	}
	decode := func(dst []int32, s *lattice.Scores) float64 { return t.dec.DecodeRelaxed(dst, s, t.relax) }
	j, err := dual.NewJoint(cfg, t.Model.Labels, t.Model.Linear.States(), t.from, decode)
	if err != nil {
		return fmt.Errorf("joint decoding: %w", err)
	}
	t.joint = &jointState{cfg: cfg, joint: j}
	// A document is decoded at once, so a batch must hold whole ones.
	t.documents = t.documents || cfg.Documents()
	return nil
}

// JointStats counts the documents t decoded jointly (zero without
// Options.Joint).
func (t *Tagger) JointStats() dual.Stats {
	if t.joint == nil {
		return dual.Stats{}
	}
	return t.joint.joint.Stats
}

// gatherJointStats moves the replicas' joint decoding counts into t's, so
// that JointStats counts what StreamParallel decoded.
func (t *Tagger) gatherJointStats(replicas []*Tagger) {
	if t.joint == nil {
		return
	}
	for _, r := range replicas {
		t.joint.joint.Stats.Merge(r.joint.joint.Stats)
		r.joint.joint.Stats = dual.Stats{}
	}
}

// JointRuns appends to dst the problems joint decoding under cfg cuts
// sents into, each [start, end): with consistency, a document is a run of
// sentences of one document (corpus.SameDocument) that a boundary opens
// (Sentence.DocStart); every other sentence is a problem of its own, under
// the limits alone (a file without boundaries has no document to keep
// consistent). Dev scoring cuts its corpus with it too.
func JointRuns(dst [][2]int, sents []*corpus.Sentence, cfg *dual.Config) [][2]int {
	for start := 0; start < len(sents); {
		end := start + 1
		for cfg.Documents() && sents[start].DocStart && end < len(sents) && corpus.SameDocument(sents[end-1], sents[end]) {
			end++
		}
		dst = append(dst, [2]int{start, end})
		start = end
	}
	return dst
}

// jointPaths decodes the batch's problems (JointRuns) jointly and returns
// [k], the label path of sents[k], valid until the next call.
func (t *Tagger) jointPaths(sents []*corpus.Sentence, data *feature.Dataset) [][]int32 {
	js := t.joint
	js.out, js.outBuf = js.out[:0], js.outBuf[:0]
	js.runs = JointRuns(js.runs[:0], sents, js.cfg)
	for _, r := range js.runs {
		t.jointDocument(sents[r[0]:r[1]], data, r[0])
	}
	at := 0
	for k := range sents {
		n := sents[k].Len()
		js.out = append(js.out, js.outBuf[at:at+n:at+n])
		at += n
	}
	return js.out
}

// jointDocument decodes doc, the batch's sentences first, first+1, …,
// and appends their label paths to outBuf.
func (t *Tagger) jointDocument(doc []*corpus.Sentence, data *feature.Dataset, first int) {
	js := t.joint
	for len(js.lats) < len(doc) {
		js.lats = append(js.lats, lattice.Scores{})
	}
	js.ptrs, js.paths, js.words = js.ptrs[:0], js.paths[:0], js.words[:0]
	js.flat, js.wbuf = js.flat[:0], js.wbuf[:0]
	word := t.WordColumn()
	for j, s := range doc {
		sc := &js.lats[j]
		t.chain.Attach(sc)
		t.lattice(sc, data, first+j)
		js.ptrs = append(js.ptrs, sc)
		js.flat = slices.Grow(js.flat, sc.N)[:len(js.flat)+sc.N]
		for i := 0; word >= 0 && i < s.Len(); i++ {
			js.wbuf = append(js.wbuf, s.Tokens[i][word])
		}
	}
	at := 0
	for _, sc := range js.ptrs {
		js.paths = append(js.paths, js.flat[at:at+sc.N:at+sc.N])
		if word >= 0 {
			js.words = append(js.words, js.wbuf[at:at+sc.N:at+sc.N])
		}
		at += sc.N
	}
	words := js.words
	if !js.cfg.Documents() || !doc[0].DocStart || word < 0 {
		words = nil
	}
	js.joint.Decode(js.paths, js.ptrs, words)
	for _, p := range js.paths {
		t.Model.Linear.ToLabels(p)
		js.outBuf = append(js.outBuf, p...)
	}
}
