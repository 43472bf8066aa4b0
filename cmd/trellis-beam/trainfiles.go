package main

// This file holds the files `trellis-beam train` passes between the
// driver and the workers, all under the run's work folder (beamDir): the
// job (what a worker needs to rebuild a replica, and the kind of work),
// each shard's encoded sentences (written once, after encoding), each
// round's broadcast input and each shard's result, with a codec per kind
// of job: an online epoch (broadcast, ShardResult), a CRF SGD epoch
// (sgdBroadcast, SGDShardResult), a CRF evaluation (the point x; a
// shard's loss and expected counts). Every file is written whole (temporary file,
// then rename) and ends in a CRC-32 of what precedes it, which the reader
// checks — a shard's encoded sentences are framework/feature's on-disk
// dataset, checked against its manifest's checksums — so a retried
// bundle rewrites the same bytes under the same name, and a torn or
// foreign file is refused, never used.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/trellis-nlp/trellis/framework/feature"
	"github.com/trellis-nlp/trellis/framework/fileio"
	"github.com/trellis-nlp/trellis/framework/lattice"
	"github.com/trellis-nlp/trellis/framework/learn/crf"
	"github.com/trellis-nlp/trellis/framework/learn/online"
	"github.com/trellis-nlp/trellis/framework/linear"
)

// errBadFile is returned (wrapped, naming the file) for a file that is
// not what its name says: truncated, damaged or of another format.
var errBadFile = errors.New("damaged or not a trellis-beam train file")

// The files of a run's work folder.
const (
	jobFileName = "job.bin"
	beamDirName = "beam-train"
)

// beamDir is the executor's folder inside the run's work folder.
func beamDir(work string) string { return filepath.Join(work, beamDirName) }

// shardDataPath is shard s's folder: sentences.bin and the on-disk
// dataset (framework/feature) in data/.
func shardDataPath(dir string, s int) string {
	return filepath.Join(dir, fmt.Sprintf("shard-%05d", s))
}

func epochDir(dir string, epoch int) string {
	return filepath.Join(dir, fmt.Sprintf("epoch-%05d", epoch))
}

func inputPath(epochDir string) string { return filepath.Join(epochDir, "input.bin") }

func resultPath(epochDir string, s int) string {
	return filepath.Join(epochDir, fmt.Sprintf("shard-%05d.result", s))
}

// jobKind is the shard work a job does.
type jobKind string

const (
	onlineJob   jobKind = "online"       // an online learner's mixed epochs
	sgdJob      jobKind = "crf-sgd"      // CRF SGD's mixed epochs
	gradientJob jobKind = "crf-gradient" // the CRF objective's shards, per evaluation
)

// round names a round of the kind's work, in logs and errors.
func (k jobKind) round() string {
	if k == gradientJob {
		return "evaluation"
	}
	return "epoch"
}

// jobFile is what every worker reads once: the kind of work, the learner
// (its type and settings as JSON, from which the registry rebuilds it:
// online.Mixable's rule, or the CRF's shard replica or gradient), the
// model's structure and what decoding needs of the problem.
type jobFile struct {
	Kind        jobKind
	Learner     string
	Config      []byte
	Model       *linear.Model
	NumLabels   int
	Transitions bool
	Constraints *lattice.Constraints
	Shards      int
	// Sentences is the run's training sentences (CRF SGD's λ).
	Sentences int
}

// shardData is one shard's encoded sentences: Data holds them in deal
// order, Sentences[k] being the index in the full training Dataset of
// Data's sentence k. Data is mapped from the shard's files; Close unmaps
// it.
type shardData struct {
	Sentences []int
	Data      *feature.Dataset
	Close     func() error
}

// appendBatch is how many sentences writeShardData copies at a time, so
// that writing a shard holds a batch of it in memory, not the shard.
const appendBatch = 4096

// writeShardData and readShardData are the one seam through which a
// shard's data reaches a disk and comes back: the sentences' indices in
// sentences.bin, their encoding as framework/feature's on-disk dataset
// (a file per array, CRC-32C checksums in its manifest), which the worker
// maps read only.
func writeShardData(path string, d *feature.Dataset, sentences []int) error {
	if err := os.Mkdir(path, 0o755); err != nil {
		return err
	}
	if err := writeChecked(filepath.Join(path, "sentences.bin"), func(w io.Writer) error {
		e := &binEncoder{w: w}
		e.ints(sentences)
		return e.err
	}); err != nil {
		return err
	}
	w, err := feature.CreateDataset(filepath.Join(path, "data"), shardKey(len(sentences)))
	if err != nil {
		return err
	}
	for lo := 0; lo < len(sentences); lo += appendBatch {
		if err := w.Append(d.Subset(sentences[lo:min(lo+appendBatch, len(sentences))])); err != nil {
			w.Abort()
			return err
		}
	}
	if err := w.Close(); err != nil {
		w.Abort()
		return err
	}
	return nil
}

// shardKey is the key a shard's dataset records, checked on reading.
func shardKey(sentences int) string {
	return fmt.Sprintf("trellis-beam shard of %d sentences", sentences)
}

// readShardData maps what writeShardData wrote, checking every file.
func readShardData(path string) (*shardData, error) {
	var sentences []int
	if err := readChecked(filepath.Join(path, "sentences.bin"), func(r *bytes.Reader) error {
		d := &binDecoder{r: r}
		sentences = d.ints()
		return d.err
	}); err != nil {
		return nil, err
	}
	md, err := feature.OpenDataset(filepath.Join(path, "data"))
	if err != nil {
		return nil, err
	}
	d := md.Dataset
	if md.Key != shardKey(len(sentences)) || d.NumSentences() != len(sentences) || len(d.Labels) != d.NumTokens() {
		md.Close()
		return nil, fmt.Errorf("%s: its dataset does not match its %d sentences: %w", path, len(sentences), errBadFile)
	}
	return &shardData{Sentences: sentences, Data: d, Close: md.Close}, nil
}

func writeJob(path string, j *jobFile) error { return writeGob(path, j) }

func readJob(path string) (*jobFile, error) {
	var j jobFile
	if err := readGob(path, &j); err != nil {
		return nil, err
	}
	if j.Model == nil || j.Shards < 1 || j.Kind != onlineJob && j.Kind != sgdJob && j.Kind != gradientJob {
		return nil, fmt.Errorf("%s: %w", path, errBadFile)
	}
	return &j, nil
}

// broadcast is an epoch's input to every shard: the mixed state and each
// shard's visiting order (indices into the full training Dataset).
type broadcast struct {
	In     online.ShardInput // Order unset
	Orders [][]int
}

// writeBroadcast writes in's state and the shards' orders.
func writeBroadcast(path string, in *online.ShardInput, orders [][]int) error {
	return writeChecked(path, func(w io.Writer) error {
		e := &binEncoder{w: w}
		e.floats(in.W)
		e.floats(in.U)
		e.floats([]float64{in.C})
		e.floats(in.State)
		e.uint(uint64(len(orders)))
		for _, o := range orders {
			e.ints(o)
		}
		return e.err
	})
}

func readBroadcast(path string) (*broadcast, error) {
	var b broadcast
	err := readChecked(path, func(r *bytes.Reader) error {
		d := &binDecoder{r: r}
		b.In.W, b.In.U = d.floats(), d.floats()
		b.In.C = d.scalar()
		b.In.State = d.floats()
		b.Orders = make([][]int, d.count())
		for s := range b.Orders {
			b.Orders[s] = d.ints()
		}
		return d.err
	})
	if err != nil {
		return nil, err
	}
	if len(b.In.U) != len(b.In.W) {
		return nil, fmt.Errorf("%s: %w", path, errBadFile)
	}
	return &b, nil
}

// writeResult writes a shard's result.
func writeResult(path string, r *online.ShardResult) error {
	return writeChecked(path, func(w io.Writer) error {
		e := &binEncoder{w: w}
		e.floats(r.W)
		e.floats(r.U)
		e.floats([]float64{r.C})
		e.floats(r.State)
		e.ints([]int{r.Updates, r.Errors, r.Tokens})
		return e.err
	})
}

// readResult reads a shard's result of n weights and stateLen state
// entries.
func readResult(path string, n, stateLen int) (*online.ShardResult, error) {
	var r online.ShardResult
	err := readChecked(path, func(rd *bytes.Reader) error {
		d := &binDecoder{r: rd}
		r.W, r.U = d.floats(), d.floats()
		r.C = d.scalar()
		r.State = d.floats()
		counts := d.ints()
		if d.err == nil && len(counts) == 3 {
			r.Updates, r.Errors, r.Tokens = counts[0], counts[1], counts[2]
		}
		return d.err
	})
	if err != nil {
		return nil, err
	}
	if len(r.W) != n || len(r.U) != n || len(r.State) != stateLen {
		return nil, fmt.Errorf("%s: %d weights and %d state entries, want %d and %d: %w", path, len(r.W), len(r.State), n, stateLen, errBadFile)
	}
	return &r, nil
}

// sgdBroadcast is a CRF SGD epoch's input: the mixed weights, the same
// for every shard, and each shard's clock and order (indices into the
// full training Dataset).
type sgdBroadcast struct {
	V      []float64
	Scale  float64
	Clocks []float64
	Orders [][]int
}

// writeSGDBroadcast writes the shards' inputs, whose V and Scale are
// shared.
func writeSGDBroadcast(path string, in []crf.SGDShardInput) error {
	return writeChecked(path, func(w io.Writer) error {
		e := &binEncoder{w: w}
		e.floats(in[0].V)
		e.floats([]float64{in[0].Scale})
		clocks := make([]float64, len(in))
		for s := range in {
			clocks[s] = in[s].T
		}
		e.floats(clocks)
		for s := range in {
			e.ints(in[s].Order)
		}
		return e.err
	})
}

func readSGDBroadcast(path string) (*sgdBroadcast, error) {
	var b sgdBroadcast
	err := readChecked(path, func(r *bytes.Reader) error {
		d := &binDecoder{r: r}
		b.V = d.floats()
		b.Scale = d.scalar()
		b.Clocks = d.floats()
		b.Orders = make([][]int, len(b.Clocks))
		for s := range b.Orders {
			b.Orders[s] = d.ints()
		}
		return d.err
	})
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// writeSGDResult writes a shard's SGD epoch.
func writeSGDResult(path string, r *crf.SGDShardResult) error {
	return writeChecked(path, func(w io.Writer) error {
		e := &binEncoder{w: w}
		e.floats(r.V)
		e.floats([]float64{r.Scale, r.T, r.Loss})
		return e.err
	})
}

// readSGDResult reads a shard's SGD epoch of n weights.
func readSGDResult(path string, n int) (*crf.SGDShardResult, error) {
	var r crf.SGDShardResult
	var rest []float64
	err := readChecked(path, func(rd *bytes.Reader) error {
		d := &binDecoder{r: rd}
		r.V, rest = d.floats(), d.floats()
		return d.err
	})
	if err != nil {
		return nil, err
	}
	if len(r.V) != n || len(rest) != 3 {
		return nil, fmt.Errorf("%s: %d weights, want %d: %w", path, len(r.V), n, errBadFile)
	}
	r.Scale, r.T, r.Loss = rest[0], rest[1], rest[2]
	return &r, nil
}

// writeFloats writes x (an evaluation's point) as a file of its own.
func writeFloats(path string, x []float64) error {
	return writeChecked(path, func(w io.Writer) error {
		e := &binEncoder{w: w}
		e.floats(x)
		return e.err
	})
}

func readFloats(path string) ([]float64, error) {
	var x []float64
	err := readChecked(path, func(r *bytes.Reader) error {
		d := &binDecoder{r: r}
		x = d.floats()
		return d.err
	})
	return x, err
}

// writeGradientResult writes a shard's loss and expected counts.
func writeGradientResult(path string, loss float64, grad []float64) error {
	return writeChecked(path, func(w io.Writer) error {
		e := &binEncoder{w: w}
		e.floats([]float64{loss})
		e.floats(grad)
		return e.err
	})
}

// readGradientResult reads a shard's expected counts into grad, which
// has the model's length, and returns its loss.
func readGradientResult(path string, grad []float64) (float64, error) {
	var loss float64
	err := readChecked(path, func(r *bytes.Reader) error {
		d := &binDecoder{r: r}
		loss = d.scalar()
		if n := d.count(); d.err == nil && n != len(grad) {
			d.err = fmt.Errorf("%d weights, want %d", n, len(grad))
		}
		if d.err == nil {
			d.err = binary.Read(r, binary.LittleEndian, grad)
		}
		return d.err
	})
	return loss, err
}

// writeGob writes v to path as gob, checked.
func writeGob(path string, v any) error {
	return writeChecked(path, func(w io.Writer) error { return gob.NewEncoder(w).Encode(v) })
}

// readGob reads what writeGob wrote into v, a pointer.
func readGob(path string, v any) error {
	return readChecked(path, func(r *bytes.Reader) error { return gob.NewDecoder(r).Decode(v) })
}

// writeChecked writes path whole with body, then its CRC-32 (IEEE, little
// endian), through a temporary file renamed into place.
func writeChecked(path string, body func(io.Writer) error) error {
	f, err := fileio.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	crc := crc32.NewIEEE()
	if err := body(io.MultiWriter(bw, crc)); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := binary.Write(bw, binary.LittleEndian, crc.Sum32()); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Commit()
}

// readChecked checks path's CRC-32 and hands its body to read, which must
// consume all of it.
func readChecked(path string, read func(*bytes.Reader) error) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if len(b) < 4 || crc32.ChecksumIEEE(b[:len(b)-4]) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return fmt.Errorf("%s: checksum mismatch: %w", path, errBadFile)
	}
	body := bytes.NewReader(b[:len(b)-4])
	if err := read(body); err != nil {
		return fmt.Errorf("%s: %w: %w", path, errBadFile, err)
	}
	if body.Len() != 0 {
		return fmt.Errorf("%s: %d bytes after its content: %w", path, body.Len(), errBadFile)
	}
	return nil
}

// binEncoder writes lengths and arrays little endian; the first error
// sticks.
type binEncoder struct {
	w   io.Writer
	err error
}

func (e *binEncoder) uint(v uint64) {
	if e.err == nil {
		e.err = binary.Write(e.w, binary.LittleEndian, v)
	}
}

// floats writes len(x), then x's bits.
func (e *binEncoder) floats(x []float64) {
	e.uint(uint64(len(x)))
	if e.err == nil && len(x) > 0 {
		e.err = binary.Write(e.w, binary.LittleEndian, x)
	}
}

// ints writes len(x), then x as int64s.
func (e *binEncoder) ints(x []int) {
	e.uint(uint64(len(x)))
	if e.err != nil || len(x) == 0 {
		return
	}
	buf := make([]int64, len(x))
	for k, v := range x {
		buf[k] = int64(v)
	}
	e.err = binary.Write(e.w, binary.LittleEndian, buf)
}

// binDecoder reads what binEncoder wrote; the first error sticks, and a
// length beyond what is left is one.
type binDecoder struct {
	r   *bytes.Reader
	err error
}

// count reads a length of 8-byte items that must fit in what is left.
func (d *binDecoder) count() int {
	var n uint64
	if d.err == nil {
		d.err = binary.Read(d.r, binary.LittleEndian, &n)
	}
	if d.err == nil && n > uint64(d.r.Len())/8 && n > 0 {
		d.err = fmt.Errorf("a length of %d with %d bytes left", n, d.r.Len())
	}
	if d.err != nil {
		return 0
	}
	return int(n)
}

func (d *binDecoder) floats() []float64 {
	n := d.count()
	if d.err != nil || n == 0 {
		return nil
	}
	x := make([]float64, n)
	d.err = binary.Read(d.r, binary.LittleEndian, x)
	return x
}

// scalar reads a one-element floats.
func (d *binDecoder) scalar() float64 {
	x := d.floats()
	if d.err == nil && len(x) != 1 {
		d.err = fmt.Errorf("%d values where one was expected", len(x))
	}
	if len(x) != 1 {
		return 0
	}
	return x[0]
}

func (d *binDecoder) ints() []int {
	n := d.count()
	if d.err != nil || n == 0 {
		return nil
	}
	buf := make([]int64, n)
	if d.err = binary.Read(d.r, binary.LittleEndian, buf); d.err != nil {
		return nil
	}
	x := make([]int, n)
	for k, v := range buf {
		x[k] = int(v)
	}
	return x
}
