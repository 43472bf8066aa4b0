// datasetfile.go holds the on-disk form of a Dataset: a folder written
// once, sentence batch by sentence batch (DatasetWriter), checked against
// its checksums and memory-mapped when opened (OpenDataset), so that a
// training corpus larger than memory can be trained on.

package feature

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"github.com/trellis-nlp/trellis/framework/fileio"
)

// The folder holds one file per array of the Dataset, in the machine's
// native layout (so that a mapping is the slice), and manifest.json, which
// is written last: a folder without it is an unfinished write.
//
//	sentoff.bin  [S+1]int     SentOff: sentence s is tokens [SentOff[s], SentOff[s+1])
//	tokoff.bin   [T+1]int     TokenOff: token t's attributes are [TokenOff[t], TokenOff[t+1])
//	labels.bin   [T]int32     Labels: token t's gold label ID (-1: unknown)
//	attrs.bin    [A]int32     Attrs: attribute IDs
//	values.bin   [A]float64   Values: their values; absent when all are 1
const (
	datasetFormat   = "trellis-dataset/1"
	datasetManifest = "manifest.json"
)

// datasetFiles names the array files in the order they are written.
var datasetFiles = [...]string{"sentoff.bin", "tokoff.bin", "labels.bin", "attrs.bin", "values.bin"}

const (
	fileSentOff = iota
	fileTokenOff
	fileLabels
	fileAttrs
	fileValues
)

// ErrCorruptDataset is returned (wrapped, naming the file and what is
// wrong) by OpenDataset for a folder whose files do not match their
// manifest: truncated, changed, or never finished.
var ErrCorruptDataset = errors.New("on-disk dataset is corrupt or incomplete")

// releasePoll is how often ReleaseOver looks: a pass over the arrays at
// memory speed (some GB/s) maps at most a few hundred MB in between.
const releasePoll = 50 * time.Millisecond

// createFile creates a dataset's array file (a test makes one full).
var createFile = os.Create

// castagnoli is CRC-32C, which the CPU computes (SSE 4.2 / ARMv8), so
// that checking a dataset costs little beside reading it.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// datasetManifestFile is manifest.json.
type datasetManifestFile struct {
	Format string `json:"format"`
	// Key is the caller's identity of the encoding (what was encoded with
	// what); OpenDataset's caller compares it.
	Key       string `json:"key"`
	IntBits   int    `json:"int_bits"`
	Sentences int    `json:"sentences"`
	Tokens    int    `json:"tokens"`
	Attrs     int    `json:"attrs"`
	Values    bool   `json:"values"`
	// Files maps each array file to its size and CRC-32C.
	Files map[string]fileSum `json:"files"`
}

type fileSum struct {
	Bytes  int64  `json:"bytes"`
	CRC32C uint32 `json:"crc32c"`
}

// sumWriter is one array file being written: buffered, with its running
// checksum and size.
type sumWriter struct {
	f   *os.File
	buf *bufio.Writer
	sum fileSum
}

func (w *sumWriter) write(p []byte) error {
	w.sum.CRC32C = crc32.Update(w.sum.CRC32C, castagnoli, p)
	w.sum.Bytes += int64(len(p))
	_, err := w.buf.Write(p)
	return err
}

// DatasetWriter writes a Dataset to a folder batch by batch. Append
// copies what it is given; the writer holds only its buffers, so a corpus
// of any size is written in constant memory.
type DatasetWriter struct {
	dir   string
	key   string
	files [len(datasetFiles)]*sumWriter
	// sents, tokens and attrs count what was appended so far; ones counts
	// the attributes appended before the first value that is not 1, whose
	// values.bin entries are written (as 1) only when that value comes.
	sents, tokens, attrs int
	values               bool
	scratch              []int // offsets rebased to the whole dataset
	err                  error // the first write error: every later call returns it
}

// CreateDataset starts writing a dataset into dir, which must not exist
// (nothing of anyone's is overwritten); its parent must. key is recorded
// in the manifest for the reader to compare.
func CreateDataset(dir, key string) (*DatasetWriter, error) {
	if strconv.IntSize != 64 {
		return nil, fmt.Errorf("on-disk datasets need a 64-bit platform")
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("dataset folder: %w", err)
	}
	w := &DatasetWriter{dir: dir, key: key}
	for i, name := range datasetFiles {
		f, err := createFile(filepath.Join(dir, name))
		if err != nil {
			w.Abort()
			return nil, fmt.Errorf("dataset: %w", err)
		}
		w.files[i] = &sumWriter{f: f, buf: bufio.NewWriterSize(f, 1<<20)}
	}
	// The leading zeros of both offset arrays.
	w.err = w.writeInts(fileSentOff, []int{0}, 0)
	if w.err == nil {
		w.err = w.writeInts(fileTokenOff, []int{0}, 0)
	}
	return w, w.wrap(w.err)
}

// Append writes d's sentences after those appended before. d's offsets
// start at zero (a batch's own Dataset, Encoder.Dataset).
func (w *DatasetWriter) Append(d *Dataset) error {
	if w.err != nil {
		return w.err
	}
	w.err = w.append(d)
	return w.wrap(w.err)
}

func (w *DatasetWriter) append(d *Dataset) error {
	if d.Values != nil && !w.values {
		// The first values: those appended so far were all 1.
		w.values = true
		if err := w.writeOnes(w.attrs); err != nil {
			return err
		}
	}
	if err := w.writeInts(fileSentOff, d.SentOff[1:], w.tokens); err != nil {
		return err
	}
	if err := w.writeInts(fileTokenOff, d.TokenOff[1:], w.attrs); err != nil {
		return err
	}
	if err := w.files[fileLabels].write(bytesOf(d.Labels)); err != nil {
		return err
	}
	if err := w.files[fileAttrs].write(bytesOf(d.Attrs)); err != nil {
		return err
	}
	switch {
	case d.Values != nil:
		if err := w.files[fileValues].write(bytesOf(d.Values)); err != nil {
			return err
		}
	case w.values:
		if err := w.writeOnes(len(d.Attrs)); err != nil {
			return err
		}
	}
	w.sents += d.NumSentences()
	w.tokens += d.NumTokens()
	w.attrs += len(d.Attrs)
	return nil
}

// writeInts writes xs+base to file i, through the scratch buffer.
func (w *DatasetWriter) writeInts(i int, xs []int, base int) error {
	for len(xs) > 0 {
		n := min(len(xs), 1<<14)
		w.scratch = w.scratch[:0]
		for _, x := range xs[:n] {
			w.scratch = append(w.scratch, x+base)
		}
		if err := w.files[i].write(bytesOf(w.scratch)); err != nil {
			return err
		}
		xs = xs[n:]
	}
	return nil
}

// writeOnes writes n values 1 to values.bin.
func (w *DatasetWriter) writeOnes(n int) error {
	var one [512]float64
	for k := range one {
		one[k] = 1
	}
	for n > 0 {
		k := min(n, len(one))
		if err := w.files[fileValues].write(bytesOf(one[:k])); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

// wrap names the folder in a write error; a full disk says so and what
// to do.
func (w *DatasetWriter) wrap(err error) error {
	if err == nil {
		return nil
	}
	if isNoSpace(err) {
		return fmt.Errorf("writing the training dataset to %s: the disk is full after %d sentences; free space there, or keep the dataset in memory (dataset = \"memory\"): %w", w.dir, w.sents, err)
	}
	return fmt.Errorf("writing the training dataset to %s: %w", w.dir, err)
}

// Close finishes the dataset: flushes and syncs the files, then writes
// the manifest. After an error, nothing
// is finished; call Abort.
func (w *DatasetWriter) Close() error {
	if w.err != nil {
		return w.err
	}
	m := datasetManifestFile{Format: datasetFormat, Key: w.key, IntBits: strconv.IntSize,
		Sentences: w.sents, Tokens: w.tokens, Attrs: w.attrs, Values: w.values, Files: map[string]fileSum{}}
	for i, sw := range w.files {
		if i == fileValues && !w.values {
			continue
		}
		if err := sw.buf.Flush(); err != nil {
			return w.fail(err)
		}
		if err := sw.f.Sync(); err != nil {
			return w.fail(err)
		}
		m.Files[datasetFiles[i]] = sw.sum
	}
	if err := w.closeFiles(); err != nil {
		return w.fail(err)
	}
	if !w.values {
		if err := os.Remove(filepath.Join(w.dir, datasetFiles[fileValues])); err != nil {
			return w.fail(err)
		}
	}
	// Synced and renamed into place: a crash leaves no manifest rather
	// than a wrong one.
	return w.fail(fileio.WriteJSON(filepath.Join(w.dir, datasetManifest), m))
}

func (w *DatasetWriter) fail(err error) error {
	if err != nil && w.err == nil {
		w.err = err
	}
	return w.wrap(err)
}

func (w *DatasetWriter) closeFiles() error {
	var first error
	for i, sw := range w.files {
		if sw == nil {
			continue
		}
		if err := sw.f.Close(); err != nil && first == nil {
			first = err
		}
		w.files[i] = nil
	}
	return first
}

// Abort closes and removes what the writer made (the folder and its
// files), after an error or an interruption.
func (w *DatasetWriter) Abort() {
	w.closeFiles()
	os.RemoveAll(w.dir)
}

// bytesOf is the memory of xs as bytes (native layout), without a copy.
func bytesOf[T int | int32 | float64](xs []T) []byte {
	if len(xs) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&xs[0])), len(xs)*int(unsafe.Sizeof(xs[0])))
}

// readManifest reads and checks dir's manifest against what this build
// can map.
func readManifest(dir string) (*datasetManifestFile, error) {
	b, err := os.ReadFile(filepath.Join(dir, datasetManifest))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: no %s (the write never finished): %w", dir, datasetManifest, ErrCorruptDataset)
	}
	if err != nil {
		return nil, err
	}
	var m datasetManifestFile
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %v: %w", filepath.Join(dir, datasetManifest), err, ErrCorruptDataset)
	}
	if m.Format != datasetFormat || m.IntBits != strconv.IntSize || binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		return nil, fmt.Errorf("%s: format %q with %d-bit offsets; this build reads %s with %d-bit offsets on a little-endian machine: %w",
			dir, m.Format, m.IntBits, datasetFormat, strconv.IntSize, ErrCorruptDataset)
	}
	return &m, nil
}

// verify reads every array file through once (not mapped, so that the
// pages it reads are the page cache's, not the process's) and compares
// its size and checksum with the manifest's.
func (m *datasetManifestFile) verify(dir string) error {
	want := map[string]int64{
		"sentoff.bin": int64(m.Sentences+1) * 8, "tokoff.bin": int64(m.Tokens+1) * 8,
		"labels.bin": int64(m.Tokens) * 4, "attrs.bin": int64(m.Attrs) * 4,
	}
	if m.Values {
		want["values.bin"] = int64(m.Attrs) * 8
	}
	buf := make([]byte, 1<<20)
	for name, size := range want {
		sum, ok := m.Files[name]
		if !ok || sum.Bytes != size {
			return fmt.Errorf("%s: %s should hold %d bytes for %d sentences, %d tokens and %d attributes, the manifest says %d: %w",
				dir, name, size, m.Sentences, m.Tokens, m.Attrs, sum.Bytes, ErrCorruptDataset)
		}
		got, err := checksumFile(filepath.Join(dir, name), buf)
		if err != nil {
			return err
		}
		if got != sum {
			return fmt.Errorf("%s: %s has %d bytes with CRC-32C %08x, the manifest says %d bytes with %08x: %w",
				dir, name, got.Bytes, got.CRC32C, sum.Bytes, sum.CRC32C, ErrCorruptDataset)
		}
	}
	return nil
}

// checksumFile is the size and CRC-32C of the file at path.
func checksumFile(path string, buf []byte) (fileSum, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return fileSum{}, fmt.Errorf("%s: missing: %w", path, ErrCorruptDataset)
	}
	if err != nil {
		return fileSum{}, err
	}
	defer f.Close()
	cacheSmall(f)
	var s fileSum
	for {
		n, err := f.Read(buf)
		s.CRC32C = crc32.Update(s.CRC32C, castagnoli, buf[:n])
		s.Bytes += int64(n)
		if err == io.EOF {
			return s, nil
		}
		if err != nil {
			return s, err
		}
	}
}

// MappedDataset is a Dataset whose arrays are an on-disk dataset's files,
// mapped read-only: the pages are the operating system's to keep or drop,
// so the process's memory does not grow with the corpus. Close unmaps
// them; the Dataset must not be used after.
type MappedDataset struct {
	*Dataset
	// Key is the manifest's key (CreateDataset).
	Key      string
	maps     [][]byte
	stop     chan struct{}
	released chan struct{}
}

// OpenDataset checks the dataset in dir against its manifest (every
// file's size and checksum: ErrCorruptDataset when one differs or the
// manifest is missing) and maps it.
func OpenDataset(dir string) (*MappedDataset, error) {
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	if err := m.verify(dir); err != nil {
		return nil, err
	}
	md := &MappedDataset{Dataset: &Dataset{}, Key: m.Key}
	var maps [len(datasetFiles)][]byte
	for i, name := range datasetFiles {
		if i == fileValues && !m.Values {
			continue
		}
		b, err := mapFile(filepath.Join(dir, name))
		if err != nil {
			md.Close()
			return nil, fmt.Errorf("dataset: %w", err)
		}
		maps[i] = b
		md.maps = append(md.maps, b)
	}
	d := md.Dataset
	d.SentOff = sliceOf[int](maps[fileSentOff])
	d.TokenOff = sliceOf[int](maps[fileTokenOff])
	d.Labels = sliceOf[int32](maps[fileLabels])
	d.Attrs = sliceOf[int32](maps[fileAttrs])
	if m.Values {
		d.Values = sliceOf[float64](maps[fileValues])
	}
	if d.Attrs == nil {
		d.Attrs = []int32{}
	}
	return md, nil
}

// sliceOf is b's memory as a slice of T, without a copy.
func sliceOf[T int | int32 | float64](b []byte) []T {
	if len(b) == 0 {
		return nil
	}
	var x T
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(x)))
}

// Close stops ReleaseOver's loop and unmaps the files.
func (md *MappedDataset) Close() error {
	if md.stop != nil {
		close(md.stop)
		<-md.released
		md.stop = nil
	}
	var first error
	for _, b := range md.maps {
		if err := unmapFile(b); err != nil && first == nil {
			first = err
		}
	}
	md.maps = nil
	md.Dataset = nil
	return first
}

// isNoSpace reports whether err is a full disk (or quota).
func isNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// AppendRemapped appends src to w with Dataset.Remap applied, a chunk of
// sentences at a time through one scratch Dataset, so that an on-disk
// dataset is pruned (MinCount) in constant memory.
func (w *DatasetWriter) AppendRemapped(src *Dataset, remap []int32) error {
	const chunk = 4096 // sentences
	scratch := NewDataset()
	for lo := 0; lo < src.NumSentences(); lo += chunk {
		scratch.Reset()
		scratch.AppendSentences(src, lo, min(lo+chunk, src.NumSentences()))
		scratch.Remap(remap)
		if err := w.Append(scratch); err != nil {
			return err
		}
	}
	return nil
}
