package feature

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/trellis-nlp/trellis/framework/corpus"
)

// Mode is what an Encoder does with an attribute or label its
// dictionaries do not hold. There are three modes, so it is a type with a
// named constructor per mode rather than a bool and a field beside it;
// NewEncoder takes it and the encoder keeps it for life, so that nobody
// changes how an encoder encodes from outside. It is a value, not an
// interface with a type per mode: Add reads it once per attribute, where
// a field costs nothing and a dynamic call would.
type Mode struct {
	grow bool
	// unknown[g] is the attribute standing for extractor g's values
	// unseen in training (-1: drop them); nil drops them all.
	unknown []int32
}

// ModeTrain interns new attributes and labels: the dictionaries grow
// (training).
func ModeTrain() Mode { return Mode{grow: true} }

// ModeLookup keeps known attributes only and drops the others; an
// unknown gold label becomes -1 and is counted (Encoder.UnknownLabels).
func ModeLookup() Mode { return Mode{} }

// ModeUnknown is ModeLookup where extractor g's unseen values become
// attribute unknown[g] (unless it is -1), which is how the HMM gives
// unknown words a probability (dev, test, tagging: Mapper.UnknownAttrs).
// A nil unknown is ModeLookup.
func ModeUnknown(unknown []int32) Mode { return Mode{unknown: unknown} }

// unknownAttr is the attribute standing for extractor g's unseen values,
// or -1 (drop them).
func (m Mode) unknownAttr(g int32) int32 {
	if m.unknown == nil {
		return -1
	}
	return m.unknown[g]
}

// Encoder is the Sink that turns extracted attributes into a Dataset, in
// the Mode given to NewEncoder. Its exported fields are read only.
type Encoder struct {
	Attrs      *Dictionary
	Labels     *Dictionary
	Extractors []Extractor

	// UnknownLabels counts gold labels absent from Labels (not ModeTrain).
	UnknownLabels map[string]int

	// AttrGroup[id] is the index in Extractors of the template that first
	// emitted attribute id (filled in ModeTrain).
	AttrGroup []int32

	mode        Mode
	labelColumn int // -1: read no gold labels

	data    *Dataset
	sinks   []*sentenceSink
	sinkBuf []Sink
	fetched []Fetched // per extractor, in encodeEach
	touched uint32    // keeps resolve's touching reads from being optimized away
	pos     []int
	// cells is the cell path's caches (cells.go), for the mode they were
	// built in; noCells is a mode in which no extractor took the path.
	cells   *cellCache
	noCells cellMode
	one     []*corpus.Sentence // encodeEach's one-sentence batch
}

// sentenceSink buffers one sentence's attributes (res), because
// extractors emit template by template while the Dataset is token-major:
// appendResolved (or appendFused) puts them in token order.
type sentenceSink struct {
	enc   *Encoder
	group int32
	n     int // tokens in the sentence
	err   error
	// With a read-only attribute index (tagging), Add only hashes and
	// queues the key; resolve then looks up the whole sentence's queue at
	// once, so that the cache misses of its lookups overlap instead of
	// running one by one. Otherwise Add looks up (or interns) at once.
	idx   *index
	keys  []byte
	queue []queued
	res   []resolved
}

type resolved struct {
	token, id, group int32
	value            float64
}

type queued struct {
	h          uint64
	start, end int32 // the key is keys[start:end]; start < 0: resolved, its ID is h
	token      int32
	group      int32
	value      float64
}

func (s *sentenceSink) reset(n int) {
	s.n = n
	s.err = nil
	s.idx = nil
	if e := s.enc; !e.mode.grow {
		s.idx = e.Attrs.idx
	}
	s.keys, s.queue, s.res = s.keys[:0], s.queue[:0], s.res[:0]
}

// resolve looks up the queued keys in order into s.res.
func (s *sentenceSink) resolve() {
	x, e := s.idx, s.enc
	q := s.queue
	res := s.res // what addID put there directly, before anything queued
	// First touch every key's slot: the reads do not depend on each other,
	// so their cache misses overlap; the lookups below then mostly hit.
	var touched uint32
	for k := range q {
		if q[k].start >= 0 {
			touched += x.prefetch(q[k].h)
		}
	}
	for k := range q {
		p := &q[k]
		if p.start < 0 {
			res = append(res, resolved{p.token, int32(p.h), p.group, p.value})
			continue
		}
		id, ok := x.lookup(s.keys[p.start:p.end], p.h)
		if !ok {
			if id = e.mode.unknownAttr(p.group); id < 0 {
				continue
			}
		}
		res = append(res, resolved{p.token, id, p.group, p.value})
	}
	s.res = res
	s.queue = q[:0]
	e.touched += touched
}

func (s *sentenceSink) Add(i int, key []byte, value float64) {
	if i < 0 || i >= s.n {
		if s.err == nil {
			s.err = fmt.Errorf("attribute %q for token %d of a %d-token sentence", key, i, s.n)
		}
		return
	}
	if s.idx != nil {
		start := len(s.keys)
		s.keys = append(s.keys, key...)
		s.queue = append(s.queue, queued{h: s.idx.hash(key), start: int32(start), end: int32(len(s.keys)), token: int32(i), group: s.group, value: value})
		return
	}
	e := s.enc
	var id int32
	if e.mode.grow {
		id = e.Attrs.Intern(key)
		if int(id) == len(e.AttrGroup) {
			e.AttrGroup = append(e.AttrGroup, s.group)
		}
	} else {
		var ok bool
		if id, ok = e.Attrs.Lookup(key); !ok {
			if id = e.mode.unknownAttr(s.group); id < 0 {
				return
			}
		}
	}
	s.res = append(s.res, resolved{int32(i), id, s.group, value})
}

var _ Sink = (*sentenceSink)(nil)

// addID adds attribute id, already looked up (and interned and counted
// when training), with value 1 for token i (the cell path; i is in range).
func (s *sentenceSink) addID(i int, id int32) {
	if len(s.queue) == 0 {
		// Nothing waits to be looked up before it (always so without
		// an index): the ID goes straight to the resolved list, in order.
		s.res = append(s.res, resolved{int32(i), id, s.group, 1})
		return
	}
	s.queue = append(s.queue, queued{h: uint64(id), start: -1, token: int32(i), group: s.group, value: 1})
}

// cellPath returns the cell caches for the encoder's dictionary and mode,
// or nil when no extractor is a CellExtractor.
func (e *Encoder) cellPath() *cellCache {
	mode := cellMode{dict: e.Attrs, version: e.Attrs.version, grow: e.mode.grow}
	if !e.mode.grow {
		mode.idx = e.Attrs.idx
	}
	if e.cells != nil && e.cells.mode == mode {
		return e.cells
	}
	if e.noCells == mode {
		return nil
	}
	e.cells = newCellCache(e, mode)
	if e.cells == nil {
		e.noCells = mode
	}
	return e.cells
}

// NewEncoder returns an encoder in mode that appends to a fresh Dataset,
// reading gold labels from column labelColumn (-1: none).
func NewEncoder(attrs, labels *Dictionary, mode Mode, extractors []Extractor, labelColumn int) *Encoder {
	return &Encoder{
		Attrs: attrs, Labels: labels, mode: mode, Extractors: extractors,
		labelColumn: labelColumn, UnknownLabels: map[string]int{}, data: NewDataset(),
	}
}

// Mode returns the encoder's mode, for another encoder of the same model
// (the tagger's replicas).
func (e *Encoder) Mode() Mode { return e.mode }

// Dataset returns the dataset built so far.
func (e *Encoder) Dataset() *Dataset { return e.data }

// Reset starts a new, empty Dataset (tagging reuses one encoder per batch).
func (e *Encoder) Reset() { e.data.Reset() }

// Prefetch hands the batch that a later Encode call will get to the
// extractors that work in other processes (see Prefetcher), so that they
// compute it while this process encodes the batch before.
func (e *Encoder) Prefetch(sents []*corpus.Sentence) {
	if len(sents) == 0 {
		return
	}
	for _, x := range e.Extractors {
		if p, ok := x.(Prefetcher); ok {
			p.Prefetch(sents)
		}
	}
}

// HasPrefetcher reports whether an extractor works in another process and
// gains from Prefetch.
func (e *Encoder) HasPrefetcher() bool {
	for _, x := range e.Extractors {
		if _, ok := x.(Prefetcher); ok {
			return true
		}
	}
	return false
}

// EncodeAll encodes sents in batches of batchSize, handing each next batch
// to the prefetchers while the current one is encoded, and stops early
// when ctx is done. done, if not nil, hears the size of each batch encoded.
//
// With a DocumentExtractor among the extractors, a batch never ends inside
// a document: it runs on to the document's last sentence.
func (e *Encoder) EncodeAll(ctx context.Context, sents []*corpus.Sentence, batchSize int, done func(n int)) error {
	whole := e.HasDocumentExtractor()
	end := func(lo int) int {
		hi := min(lo+batchSize, len(sents))
		for whole && hi > 0 && hi < len(sents) && corpus.SameDocument(sents[hi-1], sents[hi]) {
			hi++
		}
		return hi
	}
	tokens := 0
	for _, s := range sents {
		tokens += s.Len()
	}
	e.reserve(len(sents), tokens)
	before := e.data.NumTokens() // encoded by earlier calls
	for lo := 0; lo < len(sents); {
		if err := ctx.Err(); err != nil {
			e.Forget()
			return err
		}
		hi := end(lo)
		e.Prefetch(sents[hi:end(hi)])
		if err := e.Encode(sents[lo:hi]); err != nil {
			return err
		}
		if lo == 0 {
			e.reserveAttrs(before, tokens)
		}
		if done != nil {
			done(hi - lo)
		}
		lo = hi
	}
	return nil
}

// reserve makes room in the dataset for sents more sentences of tokens
// more tokens, so that encoding a whole corpus (EncodeAll) grows its
// per-token slices once instead of copying them at every doubling: the
// copies left behind were most of the garbage, and of the peak memory,
// of encoding a training corpus.
func (e *Encoder) reserve(sents, tokens int) {
	d := e.data
	d.SentOff = slices.Grow(d.SentOff, sents)
	d.TokenOff = slices.Grow(d.TokenOff, tokens)
	d.Labels = slices.Grow(d.Labels, tokens)
}

// reserveAttrs makes room for the attributes of the rest of the tokens
// tokens of one EncodeAll call, whose first batch has just been encoded
// after before tokens of earlier calls, at that batch's rate plus a
// twentieth.
func (e *Encoder) reserveAttrs(before, tokens int) {
	d := e.data
	seen := len(d.Labels) - before
	if seen <= 0 || tokens <= seen {
		return
	}
	batchAttrs := len(d.Attrs) - d.TokenOff[before]
	more := int(float64(batchAttrs) / float64(seen) * float64(tokens-seen) * 1.05)
	d.Attrs = slices.Grow(d.Attrs, more)
	if d.Values != nil {
		d.Values = slices.Grow(d.Values, more)
	}
}

// releaseDocuments lets the document extractors drop their index of the
// last batch (Documents(nil)).
func (e *Encoder) releaseDocuments() {
	for _, x := range e.Extractors {
		if dx, ok := x.(DocumentExtractor); ok {
			_ = dx.Documents(nil) // releasing cannot fail
		}
	}
}

// HasDocumentExtractor reports whether an extractor reads whole documents
// (DocumentExtractor), so that batches must not cut documents.
func (e *Encoder) HasDocumentExtractor() bool {
	for _, x := range e.Extractors {
		if _, ok := x.(DocumentExtractor); ok {
			return true
		}
	}
	return false
}

// Forget drops what was prefetched and not encoded.
func (e *Encoder) Forget() {
	for _, x := range e.Extractors {
		if p, ok := x.(Prefetcher); ok {
			p.Forget()
		}
	}
}

// Encode extracts and appends one batch of sentences. Batch extractors see
// the whole batch in one call; the others see one sentence at a time;
// document extractors first see the whole batch (Documents), which must
// therefore hold whole documents.
func (e *Encoder) Encode(sents []*corpus.Sentence) error {
	// Extractors in other processes start on this batch now (unless it
	// was prefetched), and work while the in-process extractors run.
	e.Prefetch(sents)
	for _, x := range e.Extractors {
		if dx, ok := x.(DocumentExtractor); ok {
			if err := dx.Documents(sents); err != nil {
				e.Forget()
				return err
			}
		}
	}
	var err error
	if !e.mode.grow && e.Attrs.idx != nil && e.allFetchers() {
		err = e.encodeEach(sents)
	} else {
		err = e.encodeBatch(sents)
	}
	if err != nil {
		e.Forget()
	}
	return err
}

func (e *Encoder) encodeBatch(sents []*corpus.Sentence) error {
	for len(e.sinks) < len(sents) {
		e.sinks = append(e.sinks, &sentenceSink{enc: e})
	}
	sinks := e.sinkBuf[:0]
	for range sents {
		sinks = append(sinks, nil)
	}
	e.sinkBuf = sinks
	for k, s := range sents {
		e.sinks[k].reset(s.Len())
		sinks[k] = e.sinks[k]
	}
	cells := e.cellPath()
	if cells != nil {
		cells.begin(sents)
	}
	for g, x := range e.Extractors {
		for k := range sents {
			e.sinks[k].group = int32(g)
		}
		if bx, ok := x.(BatchExtractor); ok {
			if err := bx.ExtractBatch(sents, sinks); err != nil {
				return err
			}
			continue
		}
		if cells != nil && cells.shapes[g] != nil {
			// Extractor-major like the plain path, so that training
			// interns new attributes in the same order.
			for k := range sents {
				cells.extract(g, x.(CellExtractor), k, e.sinks[k])
			}
			continue
		}
		for k, s := range sents {
			if err := x.Extract(s, e.sinks[k]); err != nil {
				return fmt.Errorf("%s:%d: %w", s.File, s.Line, err)
			}
		}
	}
	for k, s := range sents {
		sink := e.sinks[k]
		if err := sink.err; err != nil {
			return fmt.Errorf("%s:%d: %w", s.File, s.Line, err)
		}
		sink.resolve() // nothing is queued without an index
		e.appendResolved(s, sink.res)
	}
	return nil
}

// allFetchers reports whether every batch extractor is a Fetcher, so that
// encodeEach can replay their attributes sentence by sentence.
func (e *Encoder) allFetchers() bool {
	for _, x := range e.Extractors {
		if _, ok := x.(BatchExtractor); ok {
			if _, ok := x.(Fetcher); !ok {
				return false
			}
		}
	}
	return true
}

// encodeEach encodes sentence by sentence with one sink, when nothing is
// interned (so the order of sentences cannot change IDs) and the only
// extractors that want the whole batch can hand it over (Fetcher): the
// sink's buffers then stay in cache between extraction, lookup and
// appending.
func (e *Encoder) encodeEach(sents []*corpus.Sentence) error {
	if len(e.sinks) == 0 {
		e.sinks = append(e.sinks, &sentenceSink{enc: e})
	}
	sink := e.sinks[0]
	fetched := e.fetched[:0]
	for _, x := range e.Extractors {
		var fb Fetched
		if f, ok := x.(Fetcher); ok {
			var err error
			if fb, err = f.Fetch(sents); err != nil {
				return err
			}
		}
		fetched = append(fetched, fb)
	}
	e.fetched = fetched
	cells := e.cellPath()
	for k, s := range sents {
		sink.reset(s.Len())
		if cells != nil {
			e.one = append(e.one[:0], s)
			cells.begin(e.one)
		}
		for g, x := range e.Extractors {
			sink.group = int32(g)
			if fb := fetched[g]; fb != nil {
				fb.Replay(k, sink)
				continue
			}
			if e.tokenMajor(cells, g) {
				cells.prepare(g, 0) // its attributes go in token by token, in appendFused
				continue
			}
			if err := x.Extract(s, sink); err != nil {
				return fmt.Errorf("%s:%d: %w", s.File, s.Line, err)
			}
		}
		if err := sink.err; err != nil {
			return fmt.Errorf("%s:%d: %w", s.File, s.Line, err)
		}
		sink.resolve()
		if cells != nil {
			e.appendFused(s, cells, sink)
			continue
		}
		e.appendResolved(s, sink.res)
	}
	return nil
}

// appendFused appends sentence s to the dataset token by token: at each
// token, extractor by extractor, the cell extractors' IDs (tokenMajor) straight from
// the caches and the others' from sink.res (looked up already). It is
// appendResolved's result without collecting the cell path's IDs and
// sorting them into token order, a measurable share of tagging's CPU
// (docs/results.md, "Measurements behind design choices in the code").
func (e *Encoder) appendFused(s *corpus.Sentence, cells *cellCache, sink *sentenceSink) {
	d := e.data
	// Stable: a token's attributes stay in extractor order, and in the
	// order each extractor added them.
	other := sink.res
	if !slices.IsSortedFunc(other, byToken) {
		slices.SortStableFunc(other, byToken)
	}
	if d.Values == nil && !unitValues(other) {
		d.materializeValues()
	}
	for i := range s.Len() {
		for g, x := range e.Extractors {
			if e.tokenMajor(cells, g) {
				d.Attrs = cells.appendToken(d.Attrs, cells.source(g, x.(CellExtractor), e), 0, i, sink)
				if d.Values != nil {
					d.padValues()
				}
				continue
			}
			for len(other) > 0 && other[0].token == int32(i) && other[0].group == int32(g) {
				d.Attrs = append(d.Attrs, other[0].id)
				if d.Values != nil {
					d.Values = append(d.Values, other[0].value)
				}
				other = other[1:]
			}
		}
		d.TokenOff = append(d.TokenOff, len(d.Attrs))
		d.Labels = append(d.Labels, e.labelID(s, i))
	}
	if len(other) > 0 {
		// Every entry has a token of s and the group of an extractor
		// that is not token-major: one left over is a bug here.
		panic(fmt.Sprintf("feature: appendFused left %d attributes unplaced", len(other)))
	}
	d.SentOff = append(d.SentOff, len(d.Labels))
}

// tokenMajor reports whether encodeEach adds extractor g's attributes
// through appendFused's cell path: a CellExtractor whose attributes were
// not fetched from another process.
func (e *Encoder) tokenMajor(cells *cellCache, g int) bool {
	return cells != nil && cells.shapes[g] != nil && e.fetched[g] == nil
}

// appendResolved appends sentence s, whose attributes res are in the
// order they were added (extractor by extractor), to the dataset: a stable
// counting sort by token puts them in token-major order, each token's in
// the order they were added. It is the one way to append a sentence in
// every mode; appendFused is its faster twin for one case of tagging.
func (e *Encoder) appendResolved(s *corpus.Sentence, res []resolved) {
	d := e.data
	n := s.Len()
	if cap(e.pos) < n+1 {
		e.pos = make([]int, n+1)
	}
	pos := e.pos[:n+1]
	clear(pos)
	for _, r := range res {
		pos[r.token+1]++
	}
	base := len(d.Attrs)
	if d.Values == nil && !unitValues(res) {
		d.materializeValues()
	}
	d.Attrs = slices.Grow(d.Attrs, len(res))[:base+len(res)]
	if d.Values != nil {
		d.Values = slices.Grow(d.Values, len(res))[:base+len(res)]
	}
	pos[0] = base
	for i := 1; i <= n; i++ {
		pos[i] += pos[i-1]
	}
	for i := 0; i < n; i++ {
		d.TokenOff = append(d.TokenOff, pos[i+1])
		d.Labels = append(d.Labels, e.labelID(s, i))
	}
	// pos[i] now advances from the start of token i's range.
	for _, r := range res {
		k := pos[r.token]
		d.Attrs[k] = r.id
		if d.Values != nil {
			d.Values[k] = r.value
		}
		pos[r.token] = k + 1
	}
	d.SentOff = append(d.SentOff, len(d.Labels))
}

func byToken(a, b resolved) int { return cmp.Compare(a.token, b.token) }

// unitValues reports whether every value of res is 1.
func unitValues(res []resolved) bool {
	for _, r := range res {
		if r.value != 1 {
			return false
		}
	}
	return true
}

func (e *Encoder) labelID(s *corpus.Sentence, i int) int32 {
	if e.labelColumn < 0 {
		return -1
	}
	label := s.Tokens[i][e.labelColumn]
	if label == "" {
		return -1
	}
	if e.mode.grow {
		return e.Labels.InternString(label)
	}
	id, ok := e.Labels.LookupString(label)
	if !ok {
		e.UnknownLabels[label]++
		return -1
	}
	return id
}

// Prune drops attributes seen fewer than minCount times in the data
// encoded so far and renumbers the rest densely in first-seen order.
func (e *Encoder) Prune(minCount int) {
	if remap := e.PruneAttrs(minCount); remap != nil {
		e.data.Remap(remap)
	}
}

// PruneAttrs is Prune's dictionary side: it prunes the attributes and
// their groups and returns the remap (Dictionary.Prune) that the data
// encoded so far needs (Dataset.Remap), or nil when nothing changes.
func (e *Encoder) PruneAttrs(minCount int) (remap []int32) {
	if minCount <= 1 {
		return nil
	}
	remap = e.Attrs.Prune(int64(minCount))
	kept := 0
	for old, nid := range remap {
		if nid >= 0 {
			e.AttrGroup[kept] = e.AttrGroup[old]
			kept++
		}
	}
	e.AttrGroup = e.AttrGroup[:kept]
	return remap
}
