package feature

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trellis-nlp/trellis/framework/corpus"
)

// testBatches are three small encoded batches; the second has values
// other than 1 (its first token's attributes), the others none.
func testBatches() []*Dataset {
	mk := func(vals bool, sents ...[][]int32) *Dataset {
		d := NewDataset()
		for _, s := range sents {
			for k, tok := range s {
				d.Attrs = append(d.Attrs, tok...)
				if vals {
					for range tok {
						d.Values = append(d.Values, float64(k)+0.5)
					}
				}
				d.TokenOff = append(d.TokenOff, len(d.Attrs))
				d.Labels = append(d.Labels, int32(k%3))
			}
			d.SentOff = append(d.SentOff, d.NumTokens())
		}
		return d
	}
	return []*Dataset{
		mk(false, [][]int32{{0, 1}, {2}}, [][]int32{{3, 1, 4}}),
		mk(true, [][]int32{{5}, {}, {1, 2}}),
		mk(false, [][]int32{{0}}, [][]int32{{6, 7}, {0, 2}}),
	}
}

// writeTest writes batches to a new dataset folder under t's temp dir.
func writeTest(t *testing.T, batches []*Dataset) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ds")
	w, err := CreateDataset(dir, "key-1")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		if err := w.Append(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestDatasetFileRoundTrip: the mapped dataset is the batches appended in
// memory, array for array, with values or without.
func TestDatasetFileRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name    string
		batches []*Dataset
	}{
		{"values in the middle", testBatches()},
		{"no values", []*Dataset{testBatches()[0], testBatches()[2]}},
		{"empty", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := NewDataset()
			for _, b := range tc.batches {
				want.AppendSentences(b, 0, b.NumSentences())
			}
			md, err := OpenDataset(writeTest(t, tc.batches))
			if err != nil {
				t.Fatal(err)
			}
			defer md.Close()
			if md.Key != "key-1" {
				t.Errorf("key %q", md.Key)
			}
			got := md.Dataset
			if !reflect.DeepEqual(got.SentOff, want.SentOff) || !reflect.DeepEqual(got.TokenOff, want.TokenOff) ||
				!reflect.DeepEqual(got.Labels, nilIfEmpty(want.Labels)) || !reflect.DeepEqual(got.Values, want.Values) ||
				len(got.Attrs) != len(want.Attrs) || (len(want.Attrs) > 0 && !reflect.DeepEqual(got.Attrs, want.Attrs)) {
				t.Errorf("mapped dataset\n%+v\nwant\n%+v", *got, *want)
			}
			if err := got.Check(8, 3); err != nil {
				t.Error(err)
			}
			md.ReleaseOver(0) // the pages dropped as it is read: the same arrays
			for range 4 {
				time.Sleep(releasePoll)
				if !reflect.DeepEqual(got.TokenOff, want.TokenOff) || !reflect.DeepEqual(got.Values, want.Values) {
					t.Fatal("arrays changed after a release")
				}
			}
		})
	}
}

func nilIfEmpty[T any](xs []T) []T {
	if len(xs) == 0 {
		return nil
	}
	return xs
}

// TestDatasetFileCorrupt: a changed byte, a truncated file, a missing file
// or manifest is ErrCorruptDataset, never a dataset.
func TestDatasetFileCorrupt(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(dir string) error
		want  string
	}{
		{"flipped byte", func(dir string) error {
			p := filepath.Join(dir, "attrs.bin")
			b, _ := os.ReadFile(p)
			b[5] ^= 1
			return os.WriteFile(p, b, 0o644)
		}, "CRC-32C"},
		{"truncated", func(dir string) error { return os.Truncate(filepath.Join(dir, "tokoff.bin"), 16) }, "tokoff.bin has 16 bytes"},
		{"missing file", func(dir string) error { return os.Remove(filepath.Join(dir, "values.bin")) }, "missing"},
		{"no manifest", func(dir string) error { return os.Remove(filepath.Join(dir, "manifest.json")) }, "never finished"},
		{"bad manifest", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"format":`), 0o644)
		}, "manifest.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTest(t, testBatches())
			if err := tc.spoil(dir); err != nil {
				t.Fatal(err)
			}
			md, err := OpenDataset(dir)
			if err == nil {
				md.Close()
				t.Fatal("a spoilt dataset opened")
			}
			if !errors.Is(err, ErrCorruptDataset) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want ErrCorruptDataset saying %q", err, tc.want)
			}
		})
	}
}

// TestCreateDatasetRefusesExisting: a folder that exists is left alone.
func TestCreateDatasetRefusesExisting(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "mine.txt")
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CreateDataset(dir, ""); err == nil {
		t.Fatal("CreateDataset wrote into an existing folder")
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "mine" {
		t.Errorf("the folder's file changed: %q %v", b, err)
	}
}

// TestDatasetWriterDiskFull: writing to a full disk (/dev/full) says so,
// and Abort leaves nothing behind.
func TestDatasetWriterDiskFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here to stand for a full disk")
	}
	createFile = func(name string) (*os.File, error) {
		if filepath.Base(name) == "attrs.bin" {
			return os.OpenFile("/dev/full", os.O_WRONLY, 0)
		}
		return os.Create(name)
	}
	defer func() { createFile = os.Create }()
	dir := filepath.Join(t.TempDir(), "ds")
	w, err := CreateDataset(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	big := NewDataset()
	for range 1 << 19 { // 2 MiB of attributes: past the 1 MiB buffer
		big.Attrs = append(big.Attrs, 1)
	}
	big.TokenOff = append(big.TokenOff, len(big.Attrs))
	big.Labels = append(big.Labels, 0)
	big.SentOff = append(big.SentOff, 1)
	err = w.Append(big)
	if err == nil {
		err = w.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "the disk is full") {
		t.Fatalf("error %v, want one saying the disk is full", err)
	}
	if w.Close() == nil {
		t.Error("Close succeeded after a failed write")
	}
	w.Abort()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Abort left %s: %v", dir, err)
	}
}

// TestAppendRemapped: pruning on disk is Dataset.Remap in memory.
func TestAppendRemapped(t *testing.T) {
	all := NewDataset()
	for _, b := range testBatches() {
		all.AppendSentences(b, 0, b.NumSentences())
	}
	remap := []int32{0, -1, 1, 2, -1, 3, 4, -1}
	dir := filepath.Join(t.TempDir(), "ds")
	w, err := CreateDataset(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AppendRemapped(all, remap); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	md, err := OpenDataset(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer md.Close()
	all.Remap(remap)
	if !reflect.DeepEqual(md.Attrs, all.Attrs) || !reflect.DeepEqual(md.TokenOff, all.TokenOff) || !reflect.DeepEqual(md.Values, all.Values) {
		t.Errorf("remapped on disk %+v, in memory %+v", *md.Dataset, *all)
	}
}

// TestFitterIsFit: fitting batch by batch (Fit's batches) and applying
// Finish's remap gives Fit's dictionaries, groups and dataset.
func TestFitterIsFit(t *testing.T) {
	train := []*corpus.Sentence{sent("a", "X", "B", "Y", "a", "X"), sent("cb", "Y"), sent("b", "X", "Cb", "Y"), sent("a", "Y")}
	for _, minCount := range []int{1, 2} {
		m, err := NewMapper(testTemplates(nil, "w", "s"), mapperCols)
		if err != nil {
			t.Fatal(err)
		}
		want, err := m.Fit(context.Background(), train, FitOptions{MinCount: minCount, BatchSize: 3})
		if err != nil {
			t.Fatal(err)
		}
		m2, err := NewMapper(testTemplates(nil, "w", "s"), mapperCols)
		if err != nil {
			t.Fatal(err)
		}
		f, err := m2.NewFitter(FitOptions{MinCount: minCount})
		if err != nil {
			t.Fatal(err)
		}
		got := NewDataset()
		for _, batch := range [][]*corpus.Sentence{train[:3], train[3:]} {
			d, err := f.Encode(batch)
			if err != nil {
				t.Fatal(err)
			}
			got.AppendSentences(d, 0, d.NumSentences())
		}
		if remap := f.Finish(); remap != nil {
			got.Remap(remap)
		}
		if !reflect.DeepEqual(m.Attrs().Names(), m2.Attrs().Names()) || !reflect.DeepEqual(m.AttrGroups(), m2.AttrGroups()) ||
			!reflect.DeepEqual(m.UnknownAttrs(), m2.UnknownAttrs()) || !reflect.DeepEqual(m.Labels().Names(), m2.Labels().Names()) {
			t.Errorf("min count %d: the fitters' dictionaries differ: %q %q", minCount, m.Attrs().Names(), m2.Attrs().Names())
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("min count %d: dataset\n%+v\nwant\n%+v", minCount, *got, *want)
		}
	}
}

// TestReleaseOverBoundsResident: reading a 64 MiB mapped dataset through
// keeps the process's resident file pages near the limit, not the file's
// size.
func TestReleaseOverBoundsResident(t *testing.T) {
	buf := make([]byte, 128)
	if _, ok := residentShared(buf); !ok {
		t.Skip("no /proc/self/statm to read the resident pages from")
	}
	big := NewDataset()
	big.Attrs = make([]int32, 16<<20)
	big.TokenOff = append(big.TokenOff, len(big.Attrs))
	big.Labels = append(big.Labels, 0)
	big.SentOff = append(big.SentOff, 1)
	dir := writeTest(t, []*Dataset{big})
	big = nil
	md, err := OpenDataset(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer md.Close()
	const limit = 8 << 20
	md.ReleaseOver(limit)
	page := int64(os.Getpagesize())
	before, _ := residentShared(buf)
	peak := int64(0)
	sum := int32(0)
	for k := 0; k < len(md.Attrs); k += 1024 { // a page at a time, slowly enough for the polls
		sum += md.Attrs[k]
		if k%(1<<18) == 0 {
			time.Sleep(time.Millisecond)
			n, _ := residentShared(buf)
			peak = max(peak, (n-before)*page)
		}
	}
	time.Sleep(3 * releasePoll)
	after, _ := residentShared(buf)
	if sum != 0 || (after-before)*page > limit {
		t.Errorf("after reading 64 MiB through: %d MiB more resident file pages, want at most %d", (after-before)*page>>20, limit>>20)
	}
	t.Logf("resident file pages: peak %d MiB over the start, %d MiB at the end", peak>>20, (after-before)*page>>20)
}

// TestMappedResidentProbe measures, when TRELLIS_PROBE_GIB is set, the
// resident file pages of a process reading a mapped dataset of that many
// GiB at random for 6 s, released past 512 MiB (docs/results.md,
// "Out-of-core training: keeping the mapped pages few"):
//
//	TRELLIS_PROBE_GIB=4 go test -run TestMappedResidentProbe -v ./framework/feature
func TestMappedResidentProbe(t *testing.T) {
	gib, _ := strconv.Atoi(os.Getenv("TRELLIS_PROBE_GIB"))
	buf := make([]byte, 128)
	if _, ok := residentShared(buf); !ok || gib <= 0 {
		t.Skip("a measurement: set TRELLIS_PROBE_GIB (Linux only)")
	}
	d := NewDataset()
	d.Attrs = make([]int32, 1<<20)
	for i := range d.Attrs {
		d.Attrs[i] = int32(i)
	}
	d.TokenOff = append(d.TokenOff, len(d.Attrs))
	d.Labels = append(d.Labels, 0)
	d.SentOff = append(d.SentOff, 1)
	batches := make([]*Dataset, gib<<8) // 4 MiB each
	for i := range batches {
		batches[i] = d
	}
	md, err := OpenDataset(writeTest(t, batches))
	if err != nil {
		t.Fatal(err)
	}
	defer md.Close()
	md.ReleaseOver(512 << 20)
	r := rand.New(rand.NewPCG(1, 2))
	page := int64(os.Getpagesize())
	var peak, sum int64
	for start, next := time.Now(), time.Now(); time.Since(start) < 6*time.Second; {
		for range 10000 {
			sum += int64(md.Attrs[r.IntN(len(md.Attrs))])
		}
		if time.Now().After(next) {
			n, _ := residentShared(buf)
			peak = max(peak, n*page)
			t.Logf("resident file pages %d MiB", n*page>>20)
			next = time.Now().Add(500 * time.Millisecond)
		}
	}
	t.Logf("peak %d MiB (sum %d)", peak>>20, sum)
}
