// Dev scoring: the dev corpus decoded as the tagger decodes the test corpus.

package run

import (
	"sync"

	"github.com/trellis-nlp/trellis/framework/dual"
	"github.com/trellis-nlp/trellis/framework/eval"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/linear"
	"github.com/trellis-nlp/trellis/framework/neural"
	"github.com/trellis-nlp/trellis/framework/scheme"
	"github.com/trellis-nlp/trellis/framework/spec"
)

// devScorer returns the function learners call to score a model on the
// dev corpus with the experiment's main metric, decoding as the tagger
// will decode the test corpus (devDecoder).
func devScorer(enc *encoded, sch scheme.Scheme, constraints *lattice.Constraints, li *spec.LearnerInstance, net *neural.Network, threads int) func(m *linear.Model) float64 {
	d := newDevDecoder(enc, sch, constraints, li, threads)
	d.net = net
	return func(m *linear.Model) float64 {
		r := eval.Evaluate(d.decode(m), eval.Options{Scheme: sch})
		return MainMetric(r, sch)
	}
}

// devDecoder labels the dev corpus with a model in training the way
// tagger.Tagger labels the test corpus with the saved model: the
// learner's decode method and beam, the scheme's constraints, and the
// same loosening of a lattice without an allowed path
// (lattice.Relaxation). So a candidate or an epoch chosen on dev is
// chosen by the labels tagging would give. Sentences are decoded by up
// to threads goroutines, each writing only its own sentences' slots, and
// evaluated in corpus order, so the score does not depend on the thread
// count. Calls never overlap (they share sents and scorer).
type devDecoder struct {
	enc         *encoded
	constraints *lattice.Constraints
	method      lattice.Method
	beam        int
	threads     int
	sents       []eval.Sentence // Gold from the corpus, Pred rewritten by each decode
	scorer      linear.Scorer   // one packed copy of the state weights
	// net, when set, is the encoder trained with the model: its label
	// scores, under its weights at the call, join the templates'.
	net *neural.Network
	// joint, when set, decodes the documents (docs, [start, end) runs of
	// sentences; words [k] the tokens of sentence k) jointly in the
	// training scheme (joint.go).
	joint  *dual.Config
	scheme scheme.Scheme
	docs   [][2]int
	words  [][]string
	// trans, when set, decodes by transition search as the tagger decodes
	// a transition model (transition.go).
	trans *devTransition
}

func newDevDecoder(enc *encoded, sch scheme.Scheme, constraints *lattice.Constraints, li *spec.LearnerInstance, threads int) *devDecoder {
	n := enc.dev.NumSentences()
	d := &devDecoder{enc: enc, constraints: constraints, method: li.Decode, beam: li.Beam,
		threads: max(1, min(threads, n)), sents: make([]eval.Sentence, n)}
	labelCol := enc.mapper.Columns().Label
	for k := range d.sents {
		st := enc.devSents[k]
		d.sents[k].Gold = make([]string, st.Len())
		d.sents[k].Pred = make([]string, st.Len())
		for i := range d.sents[k].Gold {
			d.sents[k].Gold[i] = st.Tokens[i][labelCol]
		}
	}
	d.setJoint(li.Joint, sch)
	d.setTransition(li)
	return d
}

// decode labels every dev sentence with m and returns them, the
// predictions in the training scheme (valid until the next call).
func (d *devDecoder) decode(m *linear.Model) []eval.Sentence {
	d.scorer.Reset(m, m.W)
	// A latent model decodes over its states (constraints inherited from
	// their labels) and is scored on their labels.
	chain := m.Chain(m.W, d.constraints)
	var relax lattice.Relaxation
	if d.constraints != nil {
		relax.Free = m.Chain(m.W, nil)
	}
	var wg sync.WaitGroup
	for w := 0; w < d.threads; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			switch {
			case d.trans != nil:
				d.decodeTransitionShare(m, chain, w)
			case d.joint != nil:
				d.decodeJointShare(m, chain, relax, w)
			default:
				d.decodeShare(m, chain, relax, w)
			}
		}(w)
	}
	wg.Wait()
	return d.sents
}

// adder is a goroutine's Adder of the network's scores, nil without one.
func (d *devDecoder) adder() *neural.Adder {
	if d.net == nil {
		return nil
	}
	a, err := d.net.NewAdder(d.enc.mapper.Columns().Names)
	if err != nil {
		// The run checked the columns against the training corpus's
		// format, which the dev corpus shares.
		panic(err)
	}
	return a
}

// decodeShare decodes the dev sentences w, w+threads, … with m.
func (d *devDecoder) decodeShare(m *linear.Model, chain *lattice.Chain, relax lattice.Relaxation, w int) {
	labels := d.enc.mapper.Labels().Names()
	dec := lattice.NewDecoder(lattice.NewWorkspace(m.NumLabels), d.method, d.beam)
	dec.States = m.States() // posterior decoding sums a latent model's states
	var sc, decoded lattice.Scores
	chain.Attach(&sc)
	var path []int32
	add := d.adder()
	for k := w; k < len(d.sents); k += d.threads {
		d.scorer.Lattice(&sc, d.enc.dev, k)
		if add != nil {
			if err := add.Add(&sc, d.enc.devSents[k]); err != nil {
				panic(err) // the vocabulary maps every value to an ID
			}
		}
		path = append(path[:0], make([]int32, sc.N)...)
		if sc.N > 0 {
			decoded = sc
			dec.DecodeRelaxed(path, &decoded, relax)
		}
		m.ToLabels(path)
		for i, y := range path {
			d.sents[k].Pred[i] = labels[y]
		}
	}
}
