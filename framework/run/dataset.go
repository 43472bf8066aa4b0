// dataset.go streams the training corpus through the encoding batch by
// batch, for features.dataset = "disk" or "auto": the sentences are read,
// checked, encoded and dropped, and the encoded batches go to memory or
// to an on-disk dataset (feature.DatasetWriter), so that neither the
// corpus nor (on disk) its encoding is ever whole in memory.

package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/trellis-nlp/trellis/framework/corpus"
	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/spec"
	"github.com/trellis-nlp/trellis/framework/tagger"
)

// datasetPlace is where the encoded training set is kept.
type datasetPlace int

const (
	// inMemory encodes the corpus read whole (Mapper.Fit), as runs
	// always have.
	inMemory datasetPlace = iota
	// onDisk streams the corpus and writes its encoding to disk.
	onDisk
	// spilling streams the corpus and keeps its encoding in memory until
	// it passes the memory budget, then moves it to disk.
	spilling
)

// defaultResidentLimit is the memory a training set on disk may take
// when no memory budget is set: the bytes of it the process keeps mapped
// (feature.MappedDataset.ReleaseOver). Past it the pages go back to the
// page cache, to be mapped again when touched.
const defaultResidentLimit = 512 << 20

// datasetPlace is features.dataset, or Options.Dataset over it, with its
// memory budget: what spilling keeps in memory before it moves to disk,
// and what a dataset on disk keeps mapped.
func (ss *session) datasetPlace() streamPlace {
	setting, budget := ss.spec.Features.Dataset, ss.spec.Features.MemoryBudget
	if ss.opts.Dataset != "" {
		setting = ss.opts.Dataset
	}
	if ss.opts.MemoryBudget > 0 {
		budget = ss.opts.MemoryBudget
	}
	switch setting {
	case spec.DatasetDisk:
		if budget <= 0 {
			budget = defaultResidentLimit
		}
		return streamPlace{onDisk, budget}
	case spec.DatasetAuto:
		if budget <= 0 {
			budget = defaultMemoryBudget()
		}
		return streamPlace{spilling, budget}
	}
	return streamPlace{place: inMemory}
}

// streamRefusal says why the spec's training encoding needs the whole
// corpus in memory ("" when it streams): what reads the sentences beside
// the feature mapper.
func streamRefusal(s *spec.Spec, mp *feature.Mapper) string {
	for _, li := range s.Learners {
		if li.Encoder != nil {
			return fmt.Sprintf("learner %q has a neural encoder, whose inputs are built from the sentences in memory", li.Name)
		}
	}
	if _, _, _, ok := mp.DecisionsOf(); ok {
		return "a template reads the decision history, which is built from the sentences in memory"
	}
	return ""
}

// scratch holds what a run wrote for itself and removes at its end (the
// on-disk datasets); a session and the sessions derived from it share
// one.
type scratch struct{ release []func() }

func (sc *scratch) add(f func()) { sc.release = append(sc.release, f) }

// close releases everything, newest first.
func (sc *scratch) close() {
	for i := len(sc.release) - 1; i >= 0; i-- {
		sc.release[i]()
	}
	sc.release = nil
}

// streamEncoding is one streamed training encoding in progress.
type streamEncoding struct {
	ss    *session
	enc   *encoded
	fit   *feature.Fitter
	check *schemeCheck
	hist  *historyBuilder
	sink  *datasetSink
	whole bool // a batch ends at a document's end
	// ready is the batch read and waiting to be encoded (after the next
	// one has been handed to the prefetchers); batch is the one filling.
	ready, batch []*corpus.Sentence
	done         func(n int)
}

// encodeStreamed is encodeTraining for a dataset on disk or spilling:
// the same mapper, dataset and checks as reading the corpus whole.
func encodeStreamed(ctx context.Context, ss *session, mp *feature.Mapper, at streamPlace) (*encoded, error) {
	s := ss.spec
	trainC := s.Corpus(s.Evaluation.Train)
	labelCol := mp.Columns().Label
	fit, err := mp.NewFitter(feature.FitOptions{MinCount: s.Features.MinCount, Base: ss.base})
	if err != nil {
		return nil, err
	}
	sink, err := newDatasetSink(ss, at)
	if err != nil {
		return nil, err
	}
	st := &streamEncoding{ss: ss, fit: fit, sink: sink, whole: fit.WholeDocuments(),
		enc:   &encoded{mapper: mp, wordColumn: corpus.WordColumn(trainC.Format.Name, mp.Columns().Names, labelCol)},
		check: newSchemeCheck(s, trainC, labelCol), hist: newHistoryBuilder(mp)}
	bar := ss.progress.Start("extracting features", 0, "sentences")
	st.done = func(n int) { bar.Add(int64(n)) }
	ss.trace("read " + s.Evaluation.Train)
	err = scanCorpus(trainC, func(sent *corpus.Sentence) error { return st.add(ctx, sent) })
	if err == nil {
		err = st.flush()
	}
	bar.Done()
	if err == nil {
		err = st.finish()
	}
	if err != nil {
		sink.abort()
		return nil, err
	}
	return st.enc, nil
}

// encodeOnDisk is encodeStreamedWithDev with the spec's dev corpus,
// encoding the training set a second time, from a new mapper, when the
// dataset written the first time fails its check on opening: a dataset
// whose bytes are not those written is never trained on.
func encodeOnDisk(ctx context.Context, ss *session, mp *feature.Mapper, at streamPlace) (*encoded, error) {
	dev := func() ([]*corpus.Sentence, error) { return readDev(ss) }
	enc, err := encodeStreamedWithDev(ctx, ss, mp, at, dev)
	if !errors.Is(err, feature.ErrCorruptDataset) {
		return enc, err
	}
	ss.log.Warn().Err(err).Msg("the training set written to disk failed its check: encoding it again")
	if mp, err = trainingMapper(ss.spec); err != nil {
		return nil, err
	}
	return encodeStreamedWithDev(ctx, ss, mp, at, dev)
}

// add puts sent in the filling batch, first encoding the batch before
// when the filling one is complete (Fit's batches: BatchSize sentences,
// run on to a document's end when a template reads documents).
func (st *streamEncoding) add(ctx context.Context, sent *corpus.Sentence) error {
	if n := len(st.batch); n >= tagger.BatchSize && !(st.whole && corpus.SameDocument(st.batch[n-1], sent)) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := st.encodeReady(); err != nil {
			return err
		}
		st.ready, st.batch = st.batch, nil
	}
	st.batch = append(st.batch, sent)
	return nil
}

// flush encodes the batches still held, at the corpus's end.
func (st *streamEncoding) flush() error {
	if err := st.encodeReady(); err != nil {
		return err
	}
	st.ready, st.batch = st.batch, nil
	return st.encodeReady()
}

// encodeReady hands the filling batch to the prefetchers and encodes the
// ready one: checks, label encoding, vocabulary and history as
// encodeSentences does over the whole corpus, then features.
func (st *streamEncoding) encodeReady() error {
	b := st.ready
	if len(b) == 0 {
		return nil
	}
	st.ready = nil
	s, enc := st.ss.spec, st.enc
	labelCol := enc.mapper.Columns().Label
	if !st.ss.dataChecked {
		for _, sent := range b {
			st.check.add(sent)
		}
	}
	encodeLabels(s.Labels, labelCol, b)
	if err := enc.readVocabulary(s.Labels.Scheme, b); err != nil {
		return err
	}
	st.hist.add(b)
	st.fit.Prefetch(st.batch)
	d, err := st.fit.Encode(b)
	if err != nil {
		return err
	}
	st.done(len(b))
	return st.sink.append(d)
}

// finish completes the mapper and the dataset and checks the scheme.
func (st *streamEncoding) finish() error {
	if !st.ss.dataChecked {
		if err := schemeVerdict(st.ss, st.check, true); err != nil {
			return err
		}
	}
	remap := st.fit.Finish()
	train, err := st.sink.finish(remap)
	if err != nil {
		return err
	}
	st.hist.h.Labels = st.enc.mapper.Labels().Names()
	st.enc.train, st.enc.history = train, st.hist.h
	return nil
}

// afterDatasetWrite, when set (by a test), sees each on-disk training set
// once written, before it is opened.
var afterDatasetWrite func(dir string)

// datasetSink receives the encoded batches in corpus order: in memory
// until the budget (spilling; never for onDisk), on disk after.
type datasetSink struct {
	ss     *session
	budget int64
	mem    *feature.Dataset       // nil once on disk
	w      *feature.DatasetWriter // nil while in memory
	dir    string                 // the on-disk dataset's parent folder, ours
}

// newDatasetSink starts the sink of at.
func newDatasetSink(ss *session, at streamPlace) (*datasetSink, error) {
	k := &datasetSink{ss: ss, budget: at.budget, mem: feature.NewDataset()}
	if at.place == onDisk {
		return k, k.toDisk()
	}
	return k, nil
}

// datasetBytes is the memory of d's arrays.
func datasetBytes(d *feature.Dataset) int64 {
	return int64(len(d.Attrs))*4 + int64(len(d.Values))*8 + int64(len(d.Labels))*4 + int64(len(d.TokenOff)+len(d.SentOff))*8
}

func (k *datasetSink) append(d *feature.Dataset) error {
	if k.w != nil {
		return k.w.Append(d)
	}
	k.mem.AppendSentences(d, 0, d.NumSentences())
	if datasetBytes(k.mem) <= k.budget {
		return nil
	}
	k.ss.log.Info().Int64("budget", k.budget).Int("sentences", k.mem.NumSentences()).
		Msg("the encoded training set passed the memory budget: moving it to disk")
	return k.toDisk()
}

// toDisk makes the on-disk dataset and moves what is in memory there.
func (k *datasetSink) toDisk() error {
	dir, err := k.ss.datasetFolder()
	if err != nil {
		return err
	}
	k.dir = dir
	if k.w, err = feature.CreateDataset(filepath.Join(dir, "train"), k.key()); err != nil {
		return err
	}
	if err := k.w.Append(k.mem); err != nil {
		return err
	}
	k.mem = nil
	return nil
}

// finish returns the whole dataset with remap applied (nil: none): in
// memory, or written, rewritten when pruned, and mapped.
func (k *datasetSink) finish(remap []int32) (*feature.Dataset, error) {
	if k.w == nil {
		if remap != nil {
			k.mem.Remap(remap)
		}
		return k.mem, nil
	}
	if err := k.w.Close(); err != nil {
		return nil, err
	}
	if afterDatasetWrite != nil {
		afterDatasetWrite(filepath.Join(k.dir, "train"))
	}
	name := "train"
	if remap != nil {
		// Pruning rewrites the dataset once, a chunk at a time.
		old, err := feature.OpenDataset(filepath.Join(k.dir, name))
		if err != nil {
			return nil, err
		}
		name = "train-pruned"
		err = k.rewrite(old.Dataset, name, remap)
		old.Close()
		if err != nil {
			return nil, err
		}
		if err := os.RemoveAll(filepath.Join(k.dir, "train")); err != nil {
			return nil, err
		}
	}
	md, err := feature.OpenDataset(filepath.Join(k.dir, name))
	if err != nil {
		return nil, err
	}
	md.ReleaseOver(max(k.budget, 1))
	k.ss.scratch.add(func() { md.Close() })
	k.ss.log.Info().Str("folder", filepath.Join(k.dir, name)).Int("tokens", md.NumTokens()).
		Msg("training on the encoded training set on disk")
	return md.Dataset, nil
}

// rewrite writes src remapped into the dataset folder name.
func (k *datasetSink) rewrite(src *feature.Dataset, name string, remap []int32) error {
	w, err := feature.CreateDataset(filepath.Join(k.dir, name), k.key())
	if err != nil {
		return err
	}
	if err := w.AppendRemapped(src, remap); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}

// key names what the dataset encodes, for whoever reads its manifest.
func (k *datasetSink) key() string {
	s := k.ss.spec
	return fmt.Sprintf("experiment %q, training corpus %s", s.Name, s.Corpus(s.Evaluation.Train).Path)
}

// abort removes a dataset being written after an error.
func (k *datasetSink) abort() {
	if k.w != nil {
		k.w.Abort()
	}
}

// datasetFolder makes the folder of the run's on-disk datasets:
// Options.DatasetDir, or a new folder beside the run directory (the same
// disk as the results, not a small /tmp). The run removes it at its end
// (scratch), and never a folder it did not make.
func (ss *session) datasetFolder() (string, error) {
	parent := ss.opts.DatasetDir
	if parent == "" {
		parent = os.TempDir()
		if ss.outDir != "" {
			parent = filepath.Dir(filepath.Clean(ss.outDir))
		}
	}
	dir, err := os.MkdirTemp(parent, ".trellis-dataset-")
	if err != nil {
		return "", fmt.Errorf("dataset folder: %w", err)
	}
	ss.scratch.add(func() { os.RemoveAll(dir) })
	return dir, nil
}

// defaultMemoryBudget is a quarter of the machine's memory (1 GiB where
// it cannot be read).
func defaultMemoryBudget() int64 {
	if n := physicalMemory(); n > 0 {
		return n / 4
	}
	return 1 << 30
}

// placeRefused is the spec error for a training set on disk when the
// spec's encoding needs the corpus in memory; it points at the spec's
// dataset setting unless Options set it.
func placeRefused(ss *session, why string) error {
	d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "The training set cannot be on disk",
		Detail: fmt.Sprintf("A training set on disk streams the training corpus through the feature templates alone, but %s; keep it in memory (dataset = \"memory\" or \"auto\").", why)}
	if r := ss.spec.Features.DatasetRange; ss.opts.Dataset == "" && r.Filename != "" {
		d.Subject = &r
	}
	return &DiagnosticsError{hcl.Diagnostics{d}}
}

// physicalMemory is MemTotal of /proc/meminfo in bytes, 0 where there is
// none.
func physicalMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		var kb int64
		if _, err := fmt.Sscanf(line, "MemTotal: %d kB", &kb); err == nil {
			return kb << 10
		}
	}
	return 0
}

// streamPlace is where a streamed encoding goes, with its memory budget.
type streamPlace struct {
	place  datasetPlace
	budget int64
}
