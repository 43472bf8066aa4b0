package tagger

import (
	"context"
	"fmt"
	"io"

	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/dual"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/learn"
	"github.com/trellis-nlp/trellis/framework/linear"
	"github.com/trellis-nlp/trellis/framework/model"
	"github.com/trellis-nlp/trellis/framework/neural"
	"github.com/trellis-nlp/trellis/framework/scheme"
)

// Options adjust decoding.
type Options struct {
	// Constrained overrides the model's constrained-decoding setting.
	Constrained *bool
	// Decode is how a sentence's labels are chosen (Viterbi when zero);
	// Beam is the width of lattice.DecodeBeam.
	Decode lattice.Method
	Beam   int
	// Joint, when enabled, decodes each document's sentences jointly
	// under its consistency and limits (joint.go); Decode must then be
	// Viterbi.
	Joint *dual.Config
	// Learners, when set, are the learner types: an explanation shows
	// marginals when the model's type says its scores are probabilities
	// (learn.CanMarginals). Without them it shows none.
	Learners *learn.Registry
}

// Tagger tags sentences with one model. It is not safe for concurrent use.
type Tagger struct {
	Model      *model.Model
	Format     corpus.Format
	mapper     *feature.Mapper // what the templates read (CheckPlain)
	extractors []feature.Extractor
	enc        *feature.Encoder
	ws         *lattice.Workspace
	dec        *lattice.Decoder // runs in ws
	// scorer lays out the model's state weights for scoring; scores has
	// the model's transitions attached once, constraints applied (chain).
	// relax loosens a sentence's lattice whose every path is forbidden
	// (its Free is the chain without constraints when there are any).
	scorer *linear.Scorer
	chain  *lattice.Chain
	relax  lattice.Relaxation
	scores lattice.Scores
	// net adds a model's network scores to the state scores (nil without
	// a network); batch is the batch encode last encoded, whose sentence
	// k is the dataset's sentence k.
	net   *neural.Adder
	batch []*corpus.Sentence
	// decoded is the lattice decodeStates found its path in: scores, or
	// scores loosened by relax.
	decoded lattice.Scores
	path    []int32
	onClose []func() error
	// documents: an extractor reads whole documents, so batches end only
	// at document boundaries (documents.go).
	documents bool
	// A model trained in an encoding decodes in scheme from and emits
	// its predictions in the corpus's scheme to (convert is then true).
	// Replica copies them: they are the model's, not the goroutine's.
	from, to scheme.Scheme
	convert  bool
	encoded  []string
	// clamped is the state buffer of a latent model's clamped lattices
	// (detail.go).
	clamped []float64
	// stages tag a second-stage model's first stages; rows and orig are
	// encode's buffers (stage.go).
	stages []*Tagger
	feeds  []*Feed // feeds[j] feeds a model stage, nil for a jackknifed one
	rows   []string
	orig   [][]string
	// joint, when set, decodes documents jointly (joint.go).
	joint *jointState
	// trans, when set, decodes a transition model by its search
	// (transition.go).
	trans *transState
	// rr, when set, reranks the model's k best (rerank.go).
	rr *rerankState
	// probabilistic: the model's scores are probabilities up to
	// normalization (Options.Learners), so explanations show marginals.
	probabilistic bool
}

// New builds a tagger for m. Templates are instantiated from reg.
func New(m *model.Model, reg *feature.Registry, opt Options) (*Tagger, error) {
	f, err := corpus.New(m.Format)
	if err != nil {
		return nil, fmt.Errorf("model format: %w", err)
	}
	cols := columns(m, f)
	// Sentences become IDs exactly as in training: through the feature
	// mapper that the model file records. The tagger keeps its extractors
	// (Close releases them) and an encoder over its dictionaries.
	mp, err := m.Mapper(reg, cols)
	if err != nil {
		return nil, err
	}
	// Tagging reads no gold labels: the encoder does not look up the
	// label column (a lookup per token, a measurable share of trellis
	// tag's time: docs/results.md, "Measurements behind design choices in
	// the code").
	t := &Tagger{Model: m, Format: f, mapper: mp, extractors: mp.Extractors(), enc: mp.NewEncoder(-1),
		probabilistic: opt.Learners.TypeHas(m.Learner.Type, learn.CanMarginals)}
	t.documents = t.enc.HasDocumentExtractor()
	if err := t.newStages(reg); err != nil {
		t.Close()
		return nil, err
	}
	// A latent model's lattice is over its hidden states (see decode).
	t.ws = lattice.NewWorkspace(m.Linear.NumLabels)
	if opt.Decode == lattice.DecodeBeam && opt.Beam < 1 {
		t.Close() // the first stages' taggers (and their plugins)
		return nil, fmt.Errorf("beam decoding needs a beam width of at least 1, got %d", opt.Beam)
	}
	if m.Linear.SecondOrder() && (opt.Decode == lattice.DecodeGreedy || opt.Decode == lattice.DecodeBeam) {
		// Greedy and beam search extend paths by one label and read first-order scores only.
		t.Close()
		return nil, fmt.Errorf("%s decoding reads first-order scores only; a second-order model decodes with viterbi or posterior", opt.Decode)
	}
	if m.Network != nil {
		if t.net, err = m.Network.NewAdder(f.Columns()); err != nil {
			t.Close()
			return nil, fmt.Errorf("model network: %w", err)
		}
	}
	t.dec = lattice.NewDecoder(t.ws, opt.Decode, opt.Beam)
	t.dec.States = m.Linear.States() // posterior decoding sums a latent model's states
	lm := m.Linear
	t.scorer = lm.NewScorer(lm.W)
	t.chain = lm.Chain(lm.W, nil)
	if t.from, err = scheme.Parse(m.Scheme); err == nil {
		t.to, err = scheme.Parse(m.Output())
	}
	if err != nil {
		t.Close()
		return nil, fmt.Errorf("model scheme: %w", err)
	}
	t.convert = t.from != t.to
	constrained := m.Constrained
	if opt.Constrained != nil {
		constrained = *opt.Constrained
	}
	if constrained {
		t.relax.Free = t.chain
		t.chain = lm.Chain(lm.W, scheme.Constraints(m.Labels, t.from))
	}
	t.chain.Attach(&t.scores)
	if err := t.newTransition(opt); err != nil {
		t.Close()
		return nil, err
	}
	if opt.Joint.Enabled() {
		if err := t.newJoint(opt.Joint); err != nil {
			t.Close()
			return nil, err
		}
	}
	if err := t.newRerank(m, opt); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// OnClose adds f to what Close runs, after the extractors are closed: the
// owner of a plugin host hands the tagger its shutdown this way.
func (t *Tagger) OnClose(f func() error) { t.onClose = append(t.onClose, f) }

// Close releases extractor resources (plugin processes).
func (t *Tagger) Close() error {
	var first error
	for _, x := range t.extractors {
		if c, ok := x.(feature.Closer); ok {
			if err := c.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	for _, st := range t.stages {
		if err := st.Close(); err != nil && first == nil {
			first = err
		}
	}
	t.stages, t.feeds = nil, nil
	for _, f := range t.onClose {
		if err := f(); err != nil && first == nil {
			first = err
		}
	}
	t.onClose = nil
	return first
}

// Scheme is the scheme of the labels the tagger emits (the corpus's,
// for a model trained in an encoding).
func (t *Tagger) Scheme() scheme.Scheme { return t.to }

// Tag labels a batch of sentences; pred[k][i] is the label of token i of
// sents[k].
func (t *Tagger) Tag(sents []*corpus.Sentence) ([][]string, error) {
	out, _, err := t.tag(sents, nil, nil)
	return out, err
}

// tag is Tag with the label strings of the whole batch in one slice: buf
// when it is large enough (Stream reuses it when nothing keeps the labels),
// else a new one, which it returns; out is reused likewise.
func (t *Tagger) tag(sents []*corpus.Sentence, buf []string, out [][]string) ([][]string, []string, error) {
	if t.rr != nil {
		out, err := t.tagReranked(sents, out)
		return out, buf, err
	}
	t.enc.Reset()
	if err := t.encode(sents); err != nil {
		return nil, buf, err
	}
	data := t.enc.Dataset()
	if n := data.NumTokens(); cap(buf) < n {
		buf = make([]string, n)
	}
	buf = buf[:0]
	if cap(out) < len(sents) {
		out = make([][]string, len(sents))
	}
	out = out[:len(sents)]
	names := t.Model.Labels
	var joint [][]int32
	if t.joint != nil {
		joint = t.jointPaths(sents, data)
	}
	for k := range sents {
		var ids []int32
		switch {
		case joint != nil:
			ids = joint[k]
		case t.trans != nil:
			ids = t.decodeTransition(sents, data, k)
		default:
			ids = t.decode(data, k)
		}
		start := len(buf)
		if t.convert {
			t.encoded = t.encoded[:0]
			for _, y := range ids {
				t.encoded = append(t.encoded, names[y])
			}
			buf = scheme.Convert(buf, t.encoded, t.from, t.to)
		} else {
			for _, y := range ids {
				buf = append(buf, names[y])
			}
		}
		out[k] = buf[start:len(buf):len(buf)]
	}
	return out, buf, nil
}

// output returns labels, in the model's scheme, in the scheme the tagger
// emits: the same slice for a plain model, a new one for a model trained
// in an encoding.
func (t *Tagger) output(labels []string) []string {
	if !t.convert {
		return labels
	}
	return scheme.Convert(make([]string, 0, len(labels)), labels, t.from, t.to)
}

// decode decodes sentence k of data with the tagger's method (Viterbi
// unless Options.Decode says otherwise) and returns the label IDs (a view
// into a reused buffer). A latent model's labels are those of the state
// path the method finds (decodeStates): the states are what the lattice
// scores, and the most probable label sequence — a sum over state paths —
// is NP-hard to find exactly (the MAP of a mixture), so Viterbi decodes
// the best state path, as Petrov & Klein's Viterbi parses do. Posterior
// decoding, which maximizes per-token label probabilities, sums each
// label's states' marginals (lattice.Decoder.States): exact.
func (t *Tagger) decode(data *feature.Dataset, k int) []int32 {
	path := t.decodeStates(data, k)
	t.Model.Linear.ToLabels(path)
	return path
}

// decodeStates is decode without the mapping of a latent model's states
// to their labels; t.scores holds the sentence's lattice afterwards.
func (t *Tagger) decodeStates(data *feature.Dataset, k int) []int32 {
	t.lattice(&t.scores, data, k)
	n := t.scores.N
	if cap(t.path) < n {
		t.path = make([]int32, n)
	}
	t.path = t.path[:n]
	t.decoded = t.scores
	t.dec.DecodeRelaxed(t.path, &t.decoded, t.relax)
	return t.path
}

// lattice fills sc with the scores of sentence k of data, the batch
// encode last encoded: the linear model's, plus its network's label
// scores when it has one.
func (t *Tagger) lattice(sc *lattice.Scores, data *feature.Dataset, k int) {
	t.scorer.Lattice(sc, data, k)
	if t.net != nil {
		if err := t.net.Add(sc, t.batch[k]); err != nil {
			// The vocabulary maps every cell to an ID of the network's
			// tables, which the model file's header sized.
			panic(fmt.Sprintf("tagger: network: %v", err))
		}
	}
}

// BatchSize is how many sentences Stream encodes per call: large enough to
// amortize plugin round trips, small enough to keep memory flat.
const BatchSize = 256

// Stream tags every sentence r yields and writes each with its labels to
// w (if non-nil), calling observe (if non-nil) with each sentence and its
// predicted labels. Memory stays proportional to one batch (see EndsBatch:
// with document features, a batch holds whole documents). It returns the
// number of tokens tagged.
func (t *Tagger) Stream(ctx context.Context, r corpus.Reader, w corpus.Writer, keep func(i int) bool, observe func(s *corpus.Sentence, pred []string)) (int, error) {
	tokens := 0
	batch := make([]*corpus.Sentence, 0, BatchSize)
	var buf []string
	var out [][]string
	// With plugins, a full batch is handed to them and tagged only after
	// the next one is read and handed over too: the plugin processes
	// extract batch k+1 while this one tags batch k.
	var ahead []*corpus.Sentence
	// (Not with stages: the first stages' columns exist only once the
	// batch is tagged by them.)
	readAhead := t.enc.HasPrefetcher() && len(t.stages) == 0
	// When nothing keeps a sentence once it is written, the reader may
	// reuse its slices for the next ones (not with plugins, whose
	// prefetched batch is still to be tagged when the one before it is
	// written).
	var recycle corpus.Recycler
	if rc, ok := r.(corpus.Recycler); ok && observe == nil && !readAhead {
		recycle = rc
	}
	flush := func(batch []*corpus.Sentence) error {
		if len(batch) == 0 {
			return nil
		}
		var preds [][]string
		var err error
		if observe == nil {
			// Nothing keeps the labels past Write: reuse the buffers.
			preds, buf, err = t.tag(batch, buf, out)
			out = preds
		} else {
			preds, _, err = t.tag(batch, nil, nil)
		}
		if err != nil {
			return err
		}
		for k, s := range batch {
			if w != nil {
				if err := w.Write(s, preds[k]); err != nil {
					return err
				}
			}
			if observe != nil {
				observe(s, preds[k])
			}
			tokens += s.Len()
		}
		if recycle != nil {
			for _, s := range batch {
				recycle.Recycle(s)
			}
		}
		return nil
	}
	for i := 0; ; i++ {
		if err := ctx.Err(); err != nil {
			return tokens, err
		}
		s, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return tokens, err
		}
		if keep != nil && !keep(i) {
			continue
		}
		if !t.EndsBatch(batch, s) {
			batch = append(batch, s)
			continue
		}
		if !readAhead {
			if err := flush(batch); err != nil {
				return tokens, err
			}
			batch = append(batch[:0], s)
			continue
		}
		t.enc.Prefetch(batch)
		if err := flush(ahead); err != nil {
			t.enc.Forget()
			return tokens, err
		}
		// ahead is tagged and written: its buffer takes the next batch.
		ahead, batch = batch, append(ahead[:0], s)
	}
	if err := flush(ahead); err != nil {
		t.enc.Forget()
		return tokens, err
	}
	if err := flush(batch); err != nil {
		return tokens, err
	}
	if w != nil {
		return tokens, w.Flush()
	}
	return tokens, nil
}
